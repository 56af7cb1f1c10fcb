/**
 * The visible text of a page, built as the scanner streams it: whitespace
 * runs (JavaScript's \s, so also no-break spaces) collapse to one space, and
 * text nodes are separated by a space, the way `src/wacz/page-text.ts` joins
 * the text nodes of a parse5 tree, so both give the same string for a normal
 * page. Capped, because the archive stores it per page for full-text search.
 *
 * Text arrives a few words at a time (the tokenizer splits it at every
 * whitespace run but a single space between two words, and the scanner
 * reports each split as a boundary), so appending must be cheap: pieces are
 * joined by one space as they come, and only other whitespace (U+00A0,
 * U+3000…) inside them is collapsed, in bulk.
 */
import { ownString } from './own-string.js';

/** Default cap on visible text, in characters (the same as the WACZ page text). */
export const DEFAULT_MAX_TEXT_CHARS = 100_000;

export class VisibleText {
  /** Pieces joined by single spaces; only characters such as U+00A0 inside a piece are left to collapse. */
  #text = '';
  /** A word boundary is owed before the next piece. */
  #space = false;
  /** Pieces appended so far (one: the text may be a slice of the page). */
  #pieces = 0;
  #full: boolean;
  /** Collapse when the text reaches this length: the cap, then the collapsed length plus the cap, so collapsing stays linear overall. */
  #collapseAt: number;
  readonly #maxChars: number;

  constructor(maxChars: number = DEFAULT_MAX_TEXT_CHARS) {
    this.#maxChars = maxChars;
    this.#collapseAt = maxChars;
    this.#full = maxChars <= 0;
  }

  get full(): boolean {
    return this.#full;
  }

  /** Characters of a text node; the scanner reports HTML whitespace as boundaries instead, the cheaper way. */
  append(chunk: string): void {
    if (this.#full || chunk.length === 0) return;
    if (this.#space && this.#text.length > 0) this.#text += ' ';
    this.#space = false;
    this.#pieces++;
    // A 30 MB text node is taken a cap's length at a time, collapsed as it goes (characters such as
    // U+00A0 may shrink it), until the text is full: what is kept does not depend on how the text
    // came in pieces (a word, or words with single spaces, html-scan.ts).
    let rest = chunk;
    while (rest.length > 0 && !this.#full) {
      const room = this.#collapseAt - this.#text.length;
      if (rest.length <= room) {
        this.#text += rest;
        rest = '';
      } else {
        this.#text += rest.slice(0, room);
        rest = rest.slice(room);
      }
      if (this.#text.length >= this.#collapseAt) this.#collapse();
    }
  }

  /** A word boundary: whitespace, or the end of a text node. */
  boundary(): void {
    this.#space = true;
  }

  toString(): string {
    // Text of one piece may be a slice of the page itself (plain-run-tokenizer.ts): given a string of its
    // own, so that what keeps it does not keep the page. More pieces are flattened into a new string by the test.
    if (this.#pieces === 1) this.#text = ownString(this.#text);
    // The regular expression test is far cheaper than a replace that matches at every word.
    const text = OTHER_SPACE.test(this.#text) ? collapse(this.#text).trim() : this.#text;
    return text.length > this.#maxChars ? text.slice(0, this.#maxChars).trimEnd() : text;
  }

  #collapse(): void {
    this.#text = collapse(this.#text);
    // Leading whitespace is trimmed at the end, so it does not count toward the cap.
    const visible = this.#text.charCodeAt(0) === 0x20 ? this.#text.length - 1 : this.#text.length;
    if (visible >= this.#maxChars) this.#full = true;
    this.#collapseAt = this.#text.length + this.#maxChars;
  }
}

/** Whitespace left to collapse: a \s character other than the plain space, two spaces, or one at either end. */
const OTHER_SPACE = /[^\S ]|  |^ | $/;

/**
 * A whitespace run that is not already one plain space: two or more
 * characters (greedy, so the whole run), or one that is not U+0020.
 * Single spaces, one between every two words, are not matched at all.
 */
const COLLAPSIBLE = /\s{2,}|[^\S ]/g;

function collapse(s: string): string {
  return s.replace(COLLAPSIBLE, ' ');
}
