/**
 * A small CSS scanner for the URLs a stylesheet pulls in: `url(...)` with or
 * without quotes, `@import "..."` and `@import url(...)`. It skips comments
 * and other strings so text such as `content: "url(x)"` is not taken for a
 * reference. Not a CSS parser: it only has to find references, never
 * validate, and it runs in one linear pass however hostile the input.
 */
import { resolveLink, type ExtractedLink } from './link-resolution.js';

export interface CssReference {
  value: string;
  kind: 'url' | 'import';
}

/** Every URL reference in a stylesheet, in source order, unresolved. */
export function scanCss(css: string): CssReference[] {
  const refs: CssReference[] = [];
  const n = css.length;
  let i = 0;
  while (i < n) {
    const c = css.charCodeAt(i);
    if (c === 0x2f /* / */ && css.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === 0x22 || c === 0x27) {
      i = readString(css, i).end;
    } else if (c === 0x40 /* @ */ && css.slice(i + 1, i + 7).toLowerCase() === 'import' && !isNameChar(css.charCodeAt(i + 7))) {
      i = skipSpace(css, i + 7);
      const q = css.charCodeAt(i);
      if (q === 0x22 || q === 0x27) {
        const s = readString(css, i);
        refs.push({ value: s.value, kind: 'import' });
        i = s.end;
      } else if (isUrlStart(css, i)) {
        const u = readUrl(css, i);
        if (u.value !== null) refs.push({ value: u.value, kind: 'import' });
        i = u.end;
      }
    } else if ((c === 0x75 || c === 0x55) /* u U */ && isUrlStart(css, i) && !isNameChar(css.charCodeAt(i - 1))) {
      const u = readUrl(css, i);
      if (u.value !== null) refs.push({ value: u.value, kind: 'url' });
      i = u.end;
    } else {
      i++;
    }
  }
  return refs;
}

/** Links of a CSS response, resolved against its URL, all embeds (E). */
export function extractCss(css: string, cssUrl: string): ExtractedLink[] {
  return cssLinks(css, cssUrl, (kind) => (kind === 'import' ? 'css/@import' : 'css/url()'));
}

/** Shared by stylesheets, <style> elements and style attributes, which name their contexts differently. */
export function cssLinks(css: string, baseUrl: string, contextOf: (kind: CssReference['kind']) => string): ExtractedLink[] {
  const out: ExtractedLink[] = [];
  const seen = new Set<string>();
  for (const ref of scanCss(css)) {
    const link = resolveLink(ref.value, baseUrl, 'E', contextOf(ref.kind));
    if (link !== null && !seen.has(link.url)) {
      seen.add(link.url);
      out.push(link);
    }
  }
  return out;
}

function isUrlStart(css: string, i: number): boolean {
  return css.slice(i, i + 4).toLowerCase() === 'url(';
}

function isNameChar(c: number): boolean {
  // NaN (out of range) is not a name character.
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f || c >= 0x80;
}

function skipSpace(css: string, i: number): number {
  while (i < css.length && /\s/.test(css[i]!)) i++;
  return i;
}

/** A quoted string starting at `start` (the quote). An unterminated string ends at the line (CSS syntax). */
function readString(css: string, start: number): { value: string; end: number } {
  const quote = css[start];
  const s = readUntil(css, start + 1, (ch) => ch === quote || ch === '\n');
  return { value: s.value, end: css[s.end] === quote ? s.end + 1 : s.end };
}

/** `url(` at `start`: quoted or bare contents, up to the closing parenthesis. */
function readUrl(css: string, start: number): { value: string | null; end: number } {
  const i = skipSpace(css, start + 4);
  const q = css.charCodeAt(i);
  if (q === 0x22 || q === 0x27) {
    const s = readString(css, i);
    const close = css.indexOf(')', s.end);
    return { value: s.value, end: close < 0 ? css.length : close + 1 };
  }
  const bare = readUntil(css, i, (ch) => ch === ')');
  const value = bare.value.trim();
  return { value: value === '' ? null : value, end: Math.min(css.length, bare.end + 1) };
}

/** Characters from `i` up to (not including) the first one `isEnd` accepts, with backslash escapes undone. */
function readUntil(css: string, i: number, isEnd: (ch: string) => boolean): { value: string; end: number } {
  let value = '';
  while (i < css.length) {
    const ch = css[i]!;
    if (isEnd(ch)) break;
    if (ch === '\\' && i + 1 < css.length) {
      const esc = readEscape(css, i + 1);
      value += esc.text;
      i = esc.end;
    } else {
      value += ch;
      i++;
    }
  }
  return { value, end: i };
}

/** A CSS escape after the backslash: up to 6 hex digits (+ one space) or one literal character. */
function readEscape(css: string, i: number): { text: string; end: number } {
  const hex = /^[0-9a-fA-F]{1,6}/.exec(css.slice(i, i + 6))?.[0];
  if (hex === undefined) return { text: css[i] === '\n' ? '' : css[i]!, end: i + 1 };
  const cp = parseInt(hex, 16);
  let end = i + hex.length;
  if (/\s/.test(css[end] ?? '')) end++;
  const valid = cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
  return { text: valid ? String.fromCodePoint(cp) : '\ufffd', end };
}
