/**
 * Which characters parse5's tokenizer only appends to what it is building,
 * state by state: the plain runs PlainRunTokenizer
 * (plain-run-tokenizer.ts) takes in one move. Anything else (markup, a
 * character reference, CR, NUL, half a surrogate pair, the end of input)
 * is left to parse5.
 */

const LESS_THAN = 0x3c;
const AMPERSAND = 0x26;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const APOSTROPHE = 0x27;
const TAB = 0x09;
const FORM_FEED = 0x0c;
const LINE_FEED = 0x0a;
export const SOLIDUS = 0x2f;
export const EQUALS = 0x3d;
export const GREATER_THAN = 0x3e;

/** A character of a word in text: not markup, a reference, whitespace, a control character below space, or half a surrogate pair. */
export function wordChar(c: number): boolean {
  return c > SPACE && c !== LESS_THAN && c !== AMPERSAND && (c < 0xd800 || c > 0xdfff);
}

/**
 * A character of a tag or attribute name that parse5 only appends as it is:
 * a lower-case ASCII letter, a digit, `-`, `.`, `:` or `_`. Anything else
 * (an upper-case letter, which it lowers, whitespace, `/`, `>`, `=`, a
 * quote, NUL, the end) goes through parse5.
 */
export function nameChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x2d && c <= 0x3a && c !== 0x2f) || c === 0x5f;
}

/** Where the plain name run that goes on at `from` ends. */
export function nameRunEnd(html: string, from: number): number {
  let end = from;
  while (end < html.length && nameChar(html.charCodeAt(end))) end++;
  return end;
}

/** Where the plain run of a value quoted by `quote` that goes on at `from` ends. */
export function valueRunEnd(html: string, from: number, quote: number): number {
  let end = from;
  while (end < html.length && valueChar(html.charCodeAt(end), quote)) end++;
  return end;
}

export function asciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** A character of a quoted attribute value parse5 only appends: not the quote, a reference, CR, LF, NUL, half a surrogate pair. */
export function valueChar(c: number, quote: number): boolean {
  return c > 0x0d ? c !== quote && c !== AMPERSAND && (c < 0xd800 || c > 0xdfff) : c === TAB || c === FORM_FEED;
}

/**
 * A character of text in a text state (script, style, title…) that parse5
 * only appends: not `<`, not `&` where it starts a reference
 * (`references`), not NUL, CR or another C0 control character but TAB, LF
 * and FF, not half a surrogate pair (nor the end, -1).
 */
export function textChar(c: number, references: boolean): boolean {
  if (c < SPACE) return c === TAB || c === LINE_FEED || c === FORM_FEED;
  return c !== LESS_THAN && !(references && c === AMPERSAND) && (c < 0xd800 || c > 0xdfff);
}

/** Whitespace as parse5 reads it inside a tag or in text (a CR, which it reads as LF, is left to parse5). */
export function tagSpace(c: number): boolean {
  return c === SPACE || c === LINE_FEED || c === TAB || c === FORM_FEED;
}

/** Where the run of whitespace that goes on at `from` ends. */
export function spaceRunEnd(html: string, from: number): number {
  let end = from;
  while (end < html.length && tagSpace(html.charCodeAt(end))) end++;
  return end;
}

/**
 * Where the plain run of text in a text state that goes on at `from` ends,
 * whitespace at its end left out: parse5 reads that on (a CR may follow it).
 */
export function textRunEnd(html: string, from: number, references: boolean): number {
  let end = from;
  while (end < html.length && textChar(html.charCodeAt(end), references)) end++;
  while (end > from && tagSpace(html.charCodeAt(end - 1))) end--;
  return end;
}
