/**
 * Turning an attribute value into an outlink: resolve it against a base
 * with the WHATWG URL parser, drop the fragment, and keep only http(s) —
 * mailto:, javascript:, tel:, data:, about: and the like are not fetchable.
 */
import { headerValue, type HttpExchange } from '../core/exchange.js';

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
  return hash < 0 ? href : href.slice(0, hash);
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
