/**
 * Snippets safe to insert as HTML. The engine cuts the snippet with two
 * control characters around each match (control characters are removed
 * from indexed text, see text-prep.ts, so they cannot come from a page);
 * here the text is HTML-escaped (& < > " ') and only then the markers
 * become `<mark>` and `</mark>`. So a snippet holds no markup but those
 * two tags, whatever the page contained. The U+200B the indexer put between
 * CJK words is removed, and adjacent marks are merged.
 */

export const MARK_OPEN = '\u0001';
export const MARK_CLOSE = '\u0002';
export const ELLIPSIS = '…';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A snippet with markers → HTML with `<mark>`; whitespace collapsed. */
export function markedHtml(raw: string): string {
  const clean = raw.replace(/\u200B/g, '').replace(new RegExp(`${MARK_CLOSE}(\\s*)${MARK_OPEN}`, 'g'), '$1').replace(/\s+/g, ' ').trim();
  return escapeHtml(clean).replaceAll(MARK_OPEN, '<mark>').replaceAll(MARK_CLOSE, '</mark>');
}

/** True when a raw snippet marks something. */
export function hasMark(raw: string): boolean {
  return raw.includes(MARK_OPEN);
}

/**
 * A snippet cut around the first place `text` contains one of `needles`
 * (searched as they are, case-insensitively), for a match the engine made
 * in a column it cannot cut snippets from (the CJK bigrams); null when no
 * needle occurs.
 */
export function needleSnippet(text: string, needles: readonly string[], contextChars = 40): string | null {
  const plain = text.replace(/\u200B/g, '');
  const lower = plain.toLowerCase();
  let at = -1;
  let len = 0;
  for (const n of needles) {
    const i = lower.indexOf(n.toLowerCase());
    if (i >= 0 && (at < 0 || i < at)) {
      at = i;
      len = n.length;
    }
  }
  if (at < 0) return null;
  const start = Math.max(0, at - contextChars);
  const end = Math.min(plain.length, at + len + contextChars);
  const raw = (start > 0 ? ELLIPSIS : '') + plain.slice(start, at) + MARK_OPEN + plain.slice(at, at + len) + MARK_CLOSE + plain.slice(at + len, end) + (end < plain.length ? ELLIPSIS : '');
  return markedHtml(raw);
}
