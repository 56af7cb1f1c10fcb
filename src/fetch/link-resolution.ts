/**
 * Turning an attribute value into an outlink: resolve it against a base
 * with the WHATWG URL parser, drop the fragment, and keep only http(s) —
 * mailto:, javascript:, tel:, data:, about: and the like are not fetchable.
 * A '%' that does not begin an escape becomes `%25`, as GNU wget sends it:
 * the URL parser keeps it bare (a file named `operator%.html` linked as
 * such, in Boost's docs), and a server is right to refuse a request line
 * with a malformed escape (RFC 3986 §2.1; nginx answers 400), so the page
 * would never be archived.
 */
import { headerValue, type HttpExchange } from '../core/exchange.js';
import { httpUrlOf } from '../url/http-url.js';

export interface ExtractedLink {
  url: string;
  /** L hyperlink, E embed, R redirect (Heritrix hop letters). */
  hop: 'L' | 'E' | 'R';
  /** Where it was found, e.g. "a/@href", "img/@srcset", "css/url()". */
  context: string;
  /** A hyperlink's anchor text, and some text around it (only when asked for: HtmlExtractOptions.linkText). */
  anchor?: string;
  around?: string;
  /** A focused crawl's terms of them and of the URL, space-separated (src/focus/page-terms.ts). */
  anchorTerms?: string;
  aroundTerms?: string;
  urlTerms?: string;
}

/** A scheme as the URL parser reads it: a letter, then letters, digits, '+', '-' or '.', then ':'. */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** A '%' not followed by two hex digits. */
const LONE_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/** A fetchable absolute URL for `raw` resolved against `base`, or null. */
export function resolveUrl(raw: string, base: string): string | null {
  const value = raw.trim();
  if (value === '' || value.charCodeAt(0) === 0x23 /* # */) return null;
  // mailto:, javascript:, data: (often a whole inline image) never reach the URL parser.
  const scheme = SCHEME.exec(value);
  if (scheme !== null) {
    const name = scheme[1]!.toLowerCase();
    if (name !== 'http' && name !== 'https') return null;
  }
  let u: URL;
  try {
    u = new URL(value, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  // In a serialized URL the first '#' starts the fragment (any other is
  // percent-encoded), so slicing is exact, and cheaper than the hash setter.
  const href = u.href;
  const hash = href.indexOf('#');
  return escapeLonePercents(hash < 0 ? href : href.slice(0, hash));
}

/**
 * A URL as the URL parser wrote it, every '%' that begins no escape made
 * `%25` (see the file's comment). The host holds no '%' (the parser decodes
 * or refuses it there): only the path, the query and a fragment can.
 */
export function escapeLonePercents(url: string): string {
  return url.includes('%') ? url.replace(LONE_PERCENT, '%25') : url;
}

/**
 * A value made only of characters a URL path keeps as they are, not starting
 * with '.' (so never a `.` or `..` segment) and with no ':' (no scheme), '/',
 * '?', '%' or '\\': relative to a base, it replaces the base's last path
 * segment and nothing else, so the URL parser would give `directoryOf(base)`
 * followed by the value, unchanged. Most links of a documentation page
 * (`sql-select.html`) are like this.
 */
const PLAIN_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/**
 * `base` up to and including the last '/' of its path, when it is an
 * http(s) URL as the URL parser writes it (null otherwise): what a plain
 * segment value is appended to. In such a URL the first '?' or '#' starts
 * the query or fragment (any other is percent-encoded), and the path starts
 * with the '/' after the host, so its last '/' is the last one before them.
 */
export function directoryOf(base: string): string | null {
  if (httpUrlOf(base)?.href !== base) return null;
  let end = base.length;
  const query = base.indexOf('?');
  if (query >= 0) end = query;
  const hash = base.indexOf('#');
  if (hash >= 0 && hash < end) end = hash;
  return base.slice(0, base.lastIndexOf('/', end - 1) + 1);
}

/**
 * resolveUrl for a value already trimmed and cut at its fragment
 * (html-scan-links.ts's resolutionKey), given `directory` = directoryOf(base):
 * a plain segment without the URL parser, anything else through resolveUrl.
 */
export function resolveKey(key: string, base: string, directory: string | null): string | null {
  if (directory !== null && PLAIN_SEGMENT.test(key)) return directory + key;
  return resolveUrl(key, base);
}

export function resolveLink(raw: string, base: string, hop: ExtractedLink['hop'], context: string): ExtractedLink | null {
  const url = resolveUrl(raw, base);
  return url === null ? null : { url, hop, context };
}

/** Where a 3xx response points (its Location resolved, http(s) only, fragment dropped), or null. */
export function redirectTarget(ex: HttpExchange): string | null {
  if (ex.status < 300 || ex.status >= 400) return null;
  const location = headerValue(ex.responseHeaders, 'location');
  return location ? resolveUrl(location, ex.url) : null;
}
