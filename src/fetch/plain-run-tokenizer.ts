/**
 * parse5's Tokenizer, stepping over plain runs in one move. parse5 reads a
 * document one code point at a time, through its state switch, for every
 * character of text and of attribute values — the two states that hold
 * three quarters of a documentation page's characters. In those states,
 * after parse5 has handled a character that changes nothing but the run
 * being built, every following character that would do the same is taken
 * at once: the input position and the run's end move to the first
 * character that needs parse5 (markup, a character reference, a line
 * break, NUL, a surrogate, a quote, the end). The tokens are parse5's,
 * with one difference, which a tree builder would care about and our scan
 * does not: a single space between two words stays inside the character
 * token instead of being a whitespace token of its own (html-scan.ts reads
 * both as text with a word boundary). parse5 now tokenizes the pg docs
 * ~35% faster (bench/html-scan.ts); test/fetch/plain-run-tokenizer.test.ts
 * holds it to the plain Tokenizer's output.
 *
 * Only when parse5 could not see a difference: the whole input is written
 * (no chunk boundary to hibernate at) and nobody listens for parse errors
 * (parse5 reports control characters as it reads them).
 */
import { Tokenizer, TokenizerMode, type TokenHandler, type TokenizerOptions } from 'parse5';

const LESS_THAN = 0x3c;
const AMPERSAND = 0x26;
const SPACE = 0x20;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const TAB = 0x09;
const FORM_FEED = 0x0c;

/** A character of a word in text: not markup, a reference, whitespace, a control character below space, or half a surrogate pair. */
function wordChar(c: number): boolean {
  return c > SPACE && c !== LESS_THAN && c !== AMPERSAND && (c < 0xd800 || c > 0xdfff);
}

/** A character of a quoted attribute value parse5 only appends: not the quote, a reference, CR, LF, NUL, half a surrogate pair. */
function valueChar(c: number, quote: number): boolean {
  return c > 0x0d ? c !== quote && c !== AMPERSAND && (c < 0xd800 || c > 0xdfff) : c === TAB || c === FORM_FEED;
}

export class PlainRunTokenizer extends Tokenizer {
  readonly #fast: boolean;

  constructor(options: TokenizerOptions, handler: TokenHandler) {
    super(options, handler);
    this.#fast = handler.onParseError == null;
  }

  protected override _stateData(cp: number): void {
    super._stateData(cp);
    if (!wordChar(cp) || this.state !== TokenizerMode.DATA || !this.#ready()) return;
    const html = this.preprocessor.html;
    const end = html.length;
    let j = this.preprocessor.pos + 1;
    for (;;) {
      if (j >= end) break;
      const c = html.charCodeAt(j);
      if (wordChar(c)) j++;
      else if (c === SPACE && j + 1 < end && wordChar(html.charCodeAt(j + 1))) j += 2;
      else break;
    }
    this.#take(j);
  }

  protected override _stateAttributeValueDoubleQuoted(cp: number): void {
    const state = this.state;
    super._stateAttributeValueDoubleQuoted(cp);
    this.#valueRun(cp, QUOTE, state);
  }

  protected override _stateAttributeValueSingleQuoted(cp: number): void {
    const state = this.state;
    super._stateAttributeValueSingleQuoted(cp);
    this.#valueRun(cp, APOSTROPHE, state);
  }

  /** After parse5 read `cp` in a quoted value (in `state`): the rest of the value's plain run at once. */
  #valueRun(cp: number, quote: number, state: number): void {
    if (!valueChar(cp, quote) || this.state !== state || !this.#ready()) return;
    const html = this.preprocessor.html;
    const end = html.length;
    let j = this.preprocessor.pos + 1;
    while (j < end && valueChar(html.charCodeAt(j), quote)) j++;
    this.#take(j);
  }

  #ready(): boolean {
    return this.#fast && this.preprocessor.lastChunkWritten;
  }

  /** Consume the input up to (not including) `next`, all of it appended to the current run. */
  #take(next: number): void {
    const pre = this.preprocessor;
    const n = next - 1 - pre.pos;
    if (n <= 0) return;
    pre.pos = next - 1;
    this.consumedAfterSnapshot += n;
    this.runEnd = next;
  }
}
