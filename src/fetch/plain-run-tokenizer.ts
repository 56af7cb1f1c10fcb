/**
 * parse5's Tokenizer, stepping over plain runs in one move (and over tag
 * and attribute names and whole plain tags, and reusing its tokens: see
 * below). parse5 reads a
 * document one code point at a time, through its state switch, for every
 * character of text and of attribute values — the two states that hold
 * three quarters of a documentation page's characters. In those states,
 * after parse5 has handled a character that changes nothing but the run
 * being built, every following character that would do the same is taken
 * at once: the input position and the run's end move to the first
 * character that needs parse5 (markup, a character reference, a line
 * break, NUL, a surrogate, a quote, the end); a run of whitespace in text
 * is taken the same way. The tokens are parse5's,
 * with two differences, which a tree builder would care about and our scan
 * does not: a single space between two words stays inside the character
 * token instead of being a whitespace token of its own (html-scan.ts reads
 * both as text with a word boundary), and so does any whitespace after the
 * first character of a run inside script, style, title and the other text
 * elements (below); and without source locations one
 * token of each kind, and one attribute per position, is reused, so a
 * handler reads a token during its call only. parse5 now tokenizes the pg docs
 * ~35% faster (bench/html-scan.ts); test/fetch/plain-run-tokenizer.test.ts
 * holds it to the plain Tokenizer's output.
 *
 * Only when parse5 could not see a difference: nobody listens for parse
 * errors (parse5 reports control characters as it reads them). Input
 * written in chunks (a large page, html-pieces.ts) is read the same way: a
 * run is taken at the end of parse5's handling of a character and never
 * past the input written so far, so when the next character is not there
 * yet, parse5 stops before it as it would have after its own step, and
 * goes on from the state set here once the next chunk comes (a name or a
 * tag cut by the chunk's end is finished by parse5). The tests hold chunked
 * input to the plain Tokenizer's output on the whole input.
 */
import { html as htmlSpec, Token, Tokenizer, TokenizerMode, type TokenHandler, type TokenizerOptions } from 'parse5';
import { APOSTROPHE, asciiLetter, EQUALS, GREATER_THAN, nameChar, nameRunEnd, QUOTE, SOLIDUS, SPACE, spaceRunEnd, tagSpace, textChar, textRunEnd, valueChar, valueRunEnd, wordChar } from './plain-run-chars.js';

function tagToken(type: Token.TokenType.START_TAG | Token.TokenType.END_TAG): Token.TagToken {
  return { type, tagName: '', tagID: htmlSpec.TAG_ID.UNKNOWN, selfClosing: false, ackSelfClosing: false, attrs: [], location: null };
}

/**
 * parse5's numbers for the states inside a tag, which it does not export:
 * read off parse5 itself, each as the state a tokenizer rests in when its
 * input ends there (a chunk that is not the last one).
 */
const IN_TAG = ((): { beforeName: number; name: number; afterName: number; afterValue: number } => {
  const stateAfter = (html: string): number => {
    const t = new Tokenizer({}, {} as TokenHandler);
    t.write(html, false);
    return t.state;
  };
  return {
    beforeName: stateAfter('<a '),
    name: stateAfter('<a b'),
    afterName: stateAfter('<a b '),
    afterValue: stateAfter('<a b=""'),
  };
})();

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

  // Runs of text. parse5 copies every run of 13 characters or more out of
  // the input (` ${slice}`.slice(1)), so that text a tree keeps does not
  // keep the whole input alive. Here a character token lives for one
  // handler call, and what the scan keeps of it is the page's text,
  // flattened into a string of its own when it is read (html-scan-text.ts):
  // a slice does, without the copy. Attribute values and comments are
  // parse5's as before (links outlive the page).

  protected override _flushRun(text: string): void {
    if (!this.#reuse || this.currentToken !== null) return super._flushRun(text);
    if (this.runEnd === this.runStart && text.length === 0) return;
    const run = this.preprocessor.html.slice(this.runStart, this.runEnd);
    this.runStart = this.runEnd;
    this.currentCharacterToken!.chars += text.length === 0 ? run : run + text;
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
    if (asciiLetter(cp)) {
      this.#tagNameRun(cp);
      this.#restOfTag(false);
    }
  }

  protected override _stateEndTagOpen(cp: number): void {
    super._stateEndTagOpen(cp);
    if (asciiLetter(cp)) {
      this.#tagNameRun(cp);
      this.#restOfTag(false);
    }
  }

  protected override _stateBeforeAttributeName(cp: number): void {
    super._stateBeforeAttributeName(cp);
    // A name character or an upper-case letter opened an attribute whose name now holds it.
    if (nameChar(cp) || (cp >= 0x41 && cp <= 0x5a)) {
      this.#attributeNameRun(cp);
      this.#restOfTag(true);
    }
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
    const end = nameRunEnd(html, at + 1);
    // Not the run being built: that is text or a value, never a name.
    if (!this.#skipTo(end)) return name;
    // One slice when the first character stands as it is in the input (it was not lowered).
    return nameChar(first) ? html.slice(at, end) : name + html.slice(at + 1, end);
  }

  // The rest of a tag. Between its name and its `>`, parse5 takes a trip
  // through its state switch for every whitespace, `=`, quote and name or
  // value it meets: about eight for `<a href="x" title="y">`, and tags are
  // most of a DocBook page. Once a tag or attribute name is read, the tag's
  // plain parts are read here, in the order and with the calls parse5 makes
  // (the attribute opened, left, its value appended as one run, the token
  // emitted), and the state set to the one parse5 would be in. Anything
  // else (an unquoted value, `=` after whitespace, a reference or line break
  // in a value, upper case, a CR, the end of input) stops the reading where
  // it is, and parse5 goes on from there. Only when tokens are reused (no
  // source locations to fill in).

  /**
   * After a tag name (`inAttributeName` false) or an attribute name that
   * `this.currentAttr` holds (true), with the current character its last:
   * the tag's plain remainder.
   */
  #restOfTag(inAttributeName: boolean): void {
    if (!this.#reuse || !this.#ready()) return;
    const html = this.preprocessor.html;
    const end = html.length;
    let i = this.preprocessor.pos + 1;
    let afterName = inAttributeName;
    while (i < end) {
      let c = html.charCodeAt(i);
      if (afterName) {
        afterName = false;
        if (c === EQUALS) {
          // Never read past the input (a chunk's end: out-of-bounds reads cost the optimised code its assumptions).
          const quote = i + 1 < end ? html.charCodeAt(i + 1) : -1;
          if (quote !== QUOTE && quote !== APOSTROPHE) return;
          const close = valueRunEnd(html, i + 2, quote);
          if (close === end || html.charCodeAt(close) !== quote) return;
          this._leaveAttrName();
          this.runStart = i + 2;
          this.runEnd = close;
          this._flushRun('');
          this.#skipTo(close + 1);
          this.state = IN_TAG.afterValue;
          i = close + 1;
          continue;
        }
        if (!tagSpace(c) && c !== GREATER_THAN && c !== SOLIDUS) return;
        this._leaveAttrName();
        this.state = IN_TAG.afterName;
      }
      if (c === GREATER_THAN) return this.#emitTag(i, false);
      if (c === SOLIDUS) {
        if (i + 1 < end && html.charCodeAt(i + 1) === GREATER_THAN) this.#emitTag(i + 1, true);
        return;
      }
      if (!tagSpace(c)) return;
      do i++;
      while (i < end && tagSpace(html.charCodeAt(i)));
      this.#skipTo(i);
      if (this.state !== IN_TAG.afterName) this.state = IN_TAG.beforeName;
      if (i === end) return;
      c = html.charCodeAt(i);
      if (c === GREATER_THAN || c === SOLIDUS) continue;
      if (!nameChar(c)) return;
      const nameEnd = nameRunEnd(html, i + 1);
      this._createAttr(html.slice(i, nameEnd));
      this.#skipTo(nameEnd);
      this.state = IN_TAG.name;
      i = nameEnd;
      afterName = true;
    }
  }

  /** The tag ends with the `>` at `gt`: consumed, and the token emitted as parse5 does. */
  #emitTag(gt: number, selfClosing: boolean): void {
    this.#skipTo(gt + 1);
    if (selfClosing) (this.currentToken as Token.TagToken).selfClosing = true;
    this.state = TokenizerMode.DATA;
    this.emitCurrentTagToken();
  }

  protected override _stateData(cp: number): void {
    super._stateData(cp);
    if (this.state !== TokenizerMode.DATA || !this.#ready()) return;
    const html = this.preprocessor.html;
    const end = html.length;
    let j = this.preprocessor.pos + 1;
    if (wordChar(cp)) {
      for (;;) {
        if (j >= end) break;
        const c = html.charCodeAt(j);
        if (wordChar(c)) j++;
        else if (c === SPACE && j + 1 < end && wordChar(html.charCodeAt(j + 1))) j += 2;
        else break;
      }
    } else if (tagSpace(cp) && html.charCodeAt(j - 1) === cp) {
      // Whitespace, which parse5 puts in a whitespace token of its own: the rest of it at once
      // (not after a CR, which parse5 reads as LF: the run is then not the input as it is).
      j = spaceRunEnd(html, j);
    } else return;
    this.#take(j);
  }

  // Text in the states the tree builder switches to for script, style, title, textarea, xmp,
  // iframe, noembed, noframes and plaintext. parse5 reads it a character at a time as well, and
  // ends a character token at every change between whitespace and the rest: a token for each word
  // and one for each space between. git-doc's pages are 41% inline style sheet and script. After
  // parse5 has emitted one character of such text, the plain run after it is taken at once into
  // the same character token, whitespace inside it included; after a whitespace character, the
  // rest of the whitespace. The run ends at `<`, at `&` where it starts a reference (title, textarea),
  // at NUL, CR or another C0 control character, half a surrogate pair, or the end. The text
  // is the same; what a tree builder would see differently is whitespace inside a character
  // token, which html-scan.ts reads as the text it is (collected whole, or collapsed).

  protected override _stateRcdata(cp: number): void {
    super._stateRcdata(cp);
    this.#textRun(cp, TokenizerMode.RCDATA);
  }

  protected override _stateRawtext(cp: number): void {
    super._stateRawtext(cp);
    this.#textRun(cp, TokenizerMode.RAWTEXT);
  }

  protected override _stateScriptData(cp: number): void {
    super._stateScriptData(cp);
    this.#textRun(cp, TokenizerMode.SCRIPT_DATA);
  }

  protected override _statePlaintext(cp: number): void {
    super._statePlaintext(cp);
    this.#textRun(cp, TokenizerMode.PLAINTEXT);
  }

  /** After parse5 emitted `cp` as text in `state` (which it is still in): the rest of the run at once. */
  #textRun(cp: number, state: number): void {
    if (this.state !== state || !this.#ready()) return;
    const html = this.preprocessor.html;
    const from = this.preprocessor.pos + 1;
    const references = state === TokenizerMode.RCDATA;
    if (tagSpace(cp)) {
      // Not after a CR, which parse5 reads as LF: the run would not be the input as it is.
      if (html.charCodeAt(from - 1) === cp) this.#take(spaceRunEnd(html, from));
    } else if (textChar(cp, references)) {
      this.#take(textRunEnd(html, from, references));
    }
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
    this.#take(valueRunEnd(this.preprocessor.html, this.preprocessor.pos + 1, quote));
  }

  #ready(): boolean {
    return this.#fast;
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
