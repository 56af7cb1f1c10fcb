/**
 * From a page's raw links (html-links.ts) to the URLs of the graph:
 * resolved against the document's base, fragments removed, http(s) only;
 * and the key a captured URL is known by.
 */
import type { PageLinks } from './html-links.js';

/**
 * Resolve raw hrefs into absolute http(s) URLs without fragments, in the
 * order found (duplicates kept; the graph collapses them). The document's
 * base is the first `<base href>`, itself resolved against the page URL.
 */
export function resolveLinks(pageUrl: URL, links: PageLinks): string[] {
  let base = pageUrl;
  if (links.baseHref !== null) {
    const b = URL.canParse(links.baseHref, pageUrl.href) ? new URL(links.baseHref, pageUrl) : null;
    if (b !== null && (b.protocol === 'http:' || b.protocol === 'https:')) base = b;
  }
  const prefixes = basePrefixes(base);
  const out: string[] = [];
  for (const raw of links.hrefs) {
    const href = raw.trim();
    if (href === '' || href.charCodeAt(0) === 35 /* '#' only: same page */) continue;
    const verbatim = verbatimResolution(href, prefixes);
    if (verbatim !== null) {
      out.push(verbatim);
      continue;
    }
    // Cheap rejects before the URL parser: mailto:, javascript:, data:, tel: …
    const colon = href.indexOf(':');
    if (colon > 0 && colon < 12) {
      const scheme = href.slice(0, colon).toLowerCase();
      if (scheme !== 'http' && scheme !== 'https' && /^[a-z][a-z0-9+.-]*$/.test(scheme)) continue;
    }
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    out.push(withoutFragment(url.href));
  }
  return out;
}

interface BasePrefixes {
  /** "scheme://[userinfo@]host[:port]" of the base. */
  root: string;
  /** The root and the base's path up to its last '/'. */
  directory: string;
}

function basePrefixes(base: URL): BasePrefixes {
  const href = base.href;
  // In a serialized http(s) URL the path is the first '/' after "scheme://" (a '/' in userinfo is percent-encoded).
  const pathStart = href.indexOf('/', base.protocol.length + 2);
  return { root: href.slice(0, pathStart), directory: href.slice(0, pathStart + base.pathname.lastIndexOf('/') + 1) };
}

/** Characters that the URL parser keeps as written in an http(s) path or query (none it percent-encodes, no '\\' or '#'). */
const VERBATIM = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?%]+$/;
/** A "." or ".." path segment, percent-encoded dots included: the parser removes those. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * The resolution of `href` when it is a plain root-relative ("/a/b?c") or
 * path-relative ("b/c") reference that the URL parser would copy as is
 * after the base's root or directory — most links on a page, at a fraction
 * of a full parse; null for anything else (the parser decides those).
 */
function verbatimResolution(href: string, base: BasePrefixes): string | null {
  if (!VERBATIM.test(href)) return null;
  const query = href.indexOf('?');
  const path = query < 0 ? href : href.slice(0, query);
  if (DOT_SEGMENT.test(path)) return null;
  if (href.charCodeAt(0) === 47 /* / */) return href.charCodeAt(1) === 47 ? null : base.root + href;
  // A ':' before the first '/' could make a scheme ("x:y"), or "http:y" is relative to an http base: leave those to the parser.
  const slash = path.indexOf('/');
  if (path.slice(0, slash < 0 ? path.length : slash).includes(':') || query === 0) return null;
  return base.directory + href;
}

/**
 * In a serialized URL the first '#' starts the fragment (any other '#' is
 * percent-encoded), so slicing is exact — and much cheaper than the `hash`
 * setter, which re-parses the URL.
 */
function withoutFragment(href: string): string {
  const at = href.indexOf('#');
  return at < 0 ? href : href.slice(0, at);
}

/** The key a captured URL is known by: parsed, fragment removed; null if not http(s). */
export function normalizeCaptureUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url;
}
