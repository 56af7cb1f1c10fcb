/**
 * Parsers for the HTML attribute values that hold URLs in a structured form:
 * `srcset` candidate lists and meta refresh `content`. Both follow the HTML
 * standard's algorithms closely enough for crawling (URLs may contain commas;
 * descriptors may contain parentheses; refresh URLs may be quoted).
 */

/** The URLs of a srcset / imagesrcset value, descriptors dropped. */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    // Skip whitespace and commas between candidates.
    while (i < n && (isSpace(value[i]!) || value[i] === ',')) i++;
    if (i >= n) break;
    let start = i;
    while (i < n && !isSpace(value[i]!)) i++;
    let url = value.slice(start, i);
    // A URL that ends in commas ends the candidate (no descriptors).
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
      if (url !== '') urls.push(url);
      continue;
    }
    if (url !== '') urls.push(url);
    // Descriptors run to the next comma outside parentheses.
    let depth = 0;
    start = i;
    while (i < n) {
      const ch = value[i]!;
      if (ch === '(') depth++;
      else if (ch === ')' && depth > 0) depth--;
      else if (ch === ',' && depth === 0) break;
      i++;
    }
    if (i < n) i++; // the comma
  }
  return urls;
}

/** The URL in a meta refresh `content` ("5; url=next.html", "0;URL='x'", "3, x"), or null. */
export function metaRefreshUrl(content: string): string | null {
  let s = content.trim();
  const delay = /^[0-9.]*/.exec(s)?.[0] ?? '';
  s = s.slice(delay.length).trimStart();
  if (s === '') return null;
  if (s[0] !== ';' && s[0] !== ',') return null;
  s = s.slice(1).trimStart();
  const prefixed = /^url\s*=\s*/i.exec(s);
  if (prefixed) s = s.slice(prefixed[0].length);
  const quote = s[0];
  if (quote === '"' || quote === "'") {
    const end = s.indexOf(quote, 1);
    s = end < 0 ? s.slice(1) : s.slice(1, end);
  }
  s = s.trim();
  return s === '' ? null : s;
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f';
}
