/**
 * Turning an attribute value into an outlink: resolve it against a base
 * with the WHATWG URL parser, drop the fragment, and keep only http(s) —
 * mailto:, javascript:, tel:, data:, about: and the like are not fetchable.
 */

export interface ExtractedLink {
  url: string;
  /** L hyperlink, E embed, R redirect (Heritrix hop letters). */
  hop: 'L' | 'E' | 'R';
  /** Where it was found, e.g. "a/@href", "img/@srcset", "css/url()". */
  context: string;
}

/** A fetchable absolute URL for `raw` resolved against `base`, or null. */
export function resolveUrl(raw: string, base: string): string | null {
  const value = raw.trim();
  if (value === '' || value.startsWith('#')) return null;
  let u: URL;
  try {
    u = new URL(value, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  return u.href;
}

export function resolveLink(raw: string, base: string, hop: ExtractedLink['hop'], context: string): ExtractedLink | null {
  const url = resolveUrl(raw, base);
  return url === null ? null : { url, hop, context };
}
