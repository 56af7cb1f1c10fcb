/**
 * parse5's Tokenizer, stepping over plain runs in one move (and over tag
 * and attribute names, and reusing its tokens: see below). parse5 reads a
 * document one code point at a time, through its state switch, for every
 * character of text and of attribute values — the two states that hold
 * three quarters of a documentation page's characters. In those states,
 * after parse5 has handled a character that changes nothing but the run
 * being built, every following character that would do the same is taken
 * at once: the input position and the run's end move to the first
 * character that needs parse5 (markup, a character reference, a line
 * break, NUL, a surrogate, a quote, the end). The tokens are parse5's,
 * with two differences, which a tree builder would care about and our scan
 * does not: a single space between two words stays inside the character
 * token instead of being a whitespace token of its own (html-scan.ts reads
 * both as text with a word boundary); and without source locations one
 * token of each kind, and one attribute per position, is reused, so a
 * handler reads a token during its call only. parse5 now tokenizes the pg docs
 * ~35% faster (bench/html-scan.ts); test/fetch/plain-run-tokenizer.test.ts
 * holds it to the plain Tokenizer's output.
 *
 * Only when parse5 could not see a difference: the whole input is written
 * (no chunk boundary to hibernate at) and nobody listens for parse errors
 * (parse5 reports control characters as it reads them).
 */
import { html as htmlSpec, Token, Tokenizer, TokenizerMode, type TokenHandler, type TokenizerOptions } from 'parse5';

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

/**
 * A character of a tag or attribute name that parse5 only appends as it is:
 * a lower-case ASCII letter, a digit, `-`, `.`, `:` or `_`. Anything else
 * (an upper-case letter, which it lowers, whitespace, `/`, `>`, `=`, a
 * quote, NUL, the end) goes through parse5.
 */
function nameChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x2d && c <= 0x3a && c !== 0x2f) || c === 0x5f;
}

function asciiLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

function tagToken(type: Token.TokenType.START_TAG | Token.TokenType.END_TAG): Token.TagToken {
  return { type, tagName: '', tagID: htmlSpec.TAG_ID.UNKNOWN, selfClosing: false, ackSelfClosing: false, attrs: [], location: null };
}

/** A character of a quoted attribute value parse5 only appends: not the quote, a reference, CR, LF, NUL, half a surrogate pair. */
function valueChar(c: number, quote: number): boolean {
  return c > 0x0d ? c !== quote && c !== AMPERSAND && (c < 0xd800 || c > 0xdfff) : c === TAB || c === FORM_FEED;
}

export class PlainRunTokenizer extends Tokenizer {
  readonly #fast: boolean;
  /** Tokens and attributes are reused (no source locations to fill in). */
  readonly #reuse: boolean;
  readonly #startTag = tagToken(Token.TokenType.START_TAG);
  readonly #endTag = tagToken(Token.TokenType.END_TAG);
  /** The current tag's attributes, by position. */
  readonly #attributes: Token.Attribute[] = [];
  /** One character token per type (CHARACTER, NULL_CHARACTER, WHITESPACE_CHARACTER). */
  readonly #characters: Token.CharacterToken[] = [
    { type: Token.TokenType.CHARACTER, chars: '', location: null },
    { type: Token.TokenType.NULL_CHARACTER, chars: '', location: null },
    { type: Token.TokenType.WHITESPACE_CHARACTER, chars: '', location: null },
  ];

  constructor(options: TokenizerOptions, handler: TokenHandler) {
    super(options, handler);
    this.#fast = handler.onParseError == null;
    this.#reuse = this.#fast && options.sourceCodeLocationInfo !== true;
  }

  // Tokens reused. parse5 makes a new object for every tag, attribute and
  // run of text it emits, and the page thread's young generation is kept
  // small (crawl-heap.ts, page-thread.ts), so garbage is paid for in
  // scavenges. The handler reads a token during its call only
  // (html-scan.ts), so one of each kind does. With the names below, the page
  // work of the Python docs' 557 captures allocated 743 MB instead of 1,147.

  protected override _createStartTagToken(): void {
    if (!this.#reuse) return super._createStartTagToken();
    this._flushRun('');
    this.currentToken = resetTag(this.#startTag);
  }

  protected override _createEndTagToken(): void {
    if (!this.#reuse) return super._createEndTagToken();
    this._flushRun('');
    this.currentToken = resetTag(this.#endTag);
  }

  protected override _createAttr(attrNameFirstCh: string): void {
    if (!this.#reuse) return super._createAttr(attrNameFirstCh);
    this._flushRun('');
    // A duplicate name is dropped, not pushed: the next attribute takes its place.
    const at = (this.currentToken as Token.TagToken).attrs.length;
    const attr = (this.#attributes[at] ??= { name: '', value: '' });
    attr.name = attrNameFirstCh;
    attr.value = '';
    this.currentAttr = attr;
  }

  protected override _createCharacterToken(type: Token.CharacterToken['type']): void {
    if (!this.#reuse) return super._createCharacterToken(type);
    const token = this.#characters[type]!;
    token.chars = '';
    this.currentCharacterToken = token;
  }

  // Tag and attribute names. parse5 reads a name a character at a time, each
  // a trip through its state switch and a new string one character longer:
  // names were nearly half of those trips and over a quarter of the page
  // thread's allocations on the Python docs (`<span class=…>` around every
  // highlighted word). The override is on the state that opens a name (one
  // call per tag or attribute), not on the name's own state (one per
  // character): parse5 opens the name with its first character, and the
  // rest of its plain run is taken at once.

  protected override _stateTagOpen(cp: number): void {
    super._stateTagOpen(cp);
    // An ASCII letter opened a start tag whose name now holds it.
    if (asciiLetter(cp)) this.#tagNameRun(cp);
  }

  protected override _stateEndTagOpen(cp: number): void {
    super._stateEndTagOpen(cp);
    if (asciiLetter(cp)) this.#tagNameRun(cp);
  }

  protected override _stateBeforeAttributeName(cp: number): void {
    super._stateBeforeAttributeName(cp);
    // A name character or an upper-case letter opened an attribute whose name now holds it.
    if (nameChar(cp) || (cp >= 0x41 && cp <= 0x5a)) this.#attributeNameRun(cp);
  }

  #tagNameRun(first: number): void {
    const token = this.currentToken as Token.TagToken;
    token.tagName = this.#nameWithRun(token.tagName, first);
  }

  #attributeNameRun(first: number): void {
    this.currentAttr.name = this.#nameWithRun(this.currentAttr.name, first);
  }

  /**
   * `name`, which parse5 has just opened with the current character `first`,
   * followed by the plain name characters after it, which are consumed.
   */
  #nameWithRun(name: string, first: number): string {
    if (!this.#ready()) return name;
    const pre = this.preprocessor;
    const html = pre.html;
    const at = pre.pos;
    let end = at + 1;
    while (end < html.length && nameChar(html.charCodeAt(end))) end++;
    // Not the run being built: that is text or a value, never a name.
    if (!this.#skipTo(end)) return name;
    // One slice when the first character stands as it is in the input (it was not lowered).
    return nameChar(first) ? html.slice(at, end) : name + html.slice(at + 1, end);
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
    if (this.#skipTo(next)) this.runEnd = next;
  }

  /** Consume the input up to (not including) `next`; false when that is nothing. */
  #skipTo(next: number): boolean {
    const pre = this.preprocessor;
    const n = next - 1 - pre.pos;
    if (n <= 0) return false;
    pre.pos = next - 1;
    this.consumedAfterSnapshot += n;
    return true;
  }
}

function resetTag(token: Token.TagToken): Token.TagToken {
  token.tagName = '';
  token.tagID = htmlSpec.TAG_ID.UNKNOWN;
  token.selfClosing = false;
  token.ackSelfClosing = false;
  if (token.attrs.length > 0) token.attrs = [];
  return token;
}
