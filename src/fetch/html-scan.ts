/**
 * One streaming pass over an HTML document with parse5's Tokenizer, no tree.
 * Building parse5's tree cost most of link extraction and ~30 bytes of heap
 * per input byte; the crawler needs no tree, only each element's start tag
 * in document order, the text of <title> and <style>, and the visible text.
 *
 * Without the tree builder, two of its jobs fall to us, done here as the
 * HTML standard's tree construction does them, so tags inside scripts are
 * not taken for markup and SVG is not taken for HTML:
 * - switching the tokenizer into its text states (script, style, title…);
 * - knowing when we are inside SVG/MathML (foreign content), where those
 *   switches do not apply, CDATA sections are text, and some HTML tags
 *   (div, p, img…) break back out.
 * Scripting is off: <noscript> content is markup, as a crawler sees it.
 * Where real markup is broken the tree builder may repair it differently
 * (an ignored <frame> in <body>, a <canvas> closed by its parent's end tag);
 * such differences only ever add a link or move a word boundary.
 */
import { html as htmlSpec, TokenizerMode, type TokenHandler, type Token } from 'parse5';
import { ownString } from './own-string.js';
import { PlainRunTokenizer } from './plain-run-tokenizer.js';

export type HtmlAttribute = Token.Attribute;

/**
 * What the scan calls, in document order. An element's `attrs` (the array
 * and its attributes) are the tokenizer's own and valid during the call
 * only: they are reused for the next tag (plain-run-tokenizer.ts).
 */
export interface HtmlScanHandler {
  /** Start tag of an HTML element, in document order (`image` already renamed `img`, as the tree builder does). */
  onHtmlElement(tag: string, attrs: readonly HtmlAttribute[]): void;
  /** End tag of an HTML element (optional: for those who follow where an element ends, e.g. an anchor's text). */
  onHtmlEndTag?(tag: string): void;
  /** Start tag of an element inside SVG or MathML (including the <svg>/<math> root). */
  onForeignElement(tag: string, attrs: readonly HtmlAttribute[]): void;
  /** The whole content of an HTML <title> or <style>, at its end tag or at the end of input. */
  onElementText(tag: 'title' | 'style', text: string): void;
  /** Characters a reader sees (not script, style, template, noscript, SVG…); entities already decoded. */
  onVisibleText(chunk: string): void;
  /** A word boundary: visible whitespace, or a tag or comment ending a text node. */
  onTextBoundary(): void;
}

type TextState = (typeof TokenizerMode)[keyof typeof TokenizerMode];

interface TextElement {
  state: TextState;
  /** Its content is passed to onVisibleText. */
  visible: boolean;
  /** Its content is collected whole for onElementText. */
  collected: boolean;
}

/** Elements whose content the tree builder reads as text, in which tokenizer state, and what we do with it. */
const TEXT_ELEMENTS: ReadonlyMap<string, TextElement> = new Map<string, TextElement>([
  ['title', { state: TokenizerMode.RCDATA, visible: false, collected: true }],
  ['textarea', { state: TokenizerMode.RCDATA, visible: true, collected: false }],
  ['style', { state: TokenizerMode.RAWTEXT, visible: false, collected: true }],
  ['xmp', { state: TokenizerMode.RAWTEXT, visible: true, collected: false }],
  ['iframe', { state: TokenizerMode.RAWTEXT, visible: false, collected: false }],
  ['noembed', { state: TokenizerMode.RAWTEXT, visible: false, collected: false }],
  ['noframes', { state: TokenizerMode.RAWTEXT, visible: false, collected: false }],
  ['script', { state: TokenizerMode.SCRIPT_DATA, visible: false, collected: false }],
  ['plaintext', { state: TokenizerMode.PLAINTEXT, visible: true, collected: false }],
]);

/** Markup elements whose content is not rendered text (fallback or inert content). */
const HIDDEN_CONTAINERS = new Set(['template', 'noscript', 'object', 'canvas']);

/** Start tags that end foreign content (HTML standard, "in foreign content"). */
const BREAKOUT_TAGS = new Set([
  'b', 'big', 'blockquote', 'body', 'br', 'center', 'code', 'dd', 'div', 'dl', 'dt', 'em', 'embed',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'hr', 'i', 'img', 'li', 'listing', 'menu', 'meta',
  'nobr', 'ol', 'p', 'pre', 'ruby', 's', 'small', 'span', 'strong', 'strike', 'sub', 'sup', 'table',
  'tt', 'u', 'ul', 'var',
]);

/** Foreign elements whose children are parsed as HTML again (HTML and MathML text integration points). */
const SVG_INTEGRATION = new Set(['foreignobject', 'desc', 'title']);
const MATHML_INTEGRATION = new Set(['mi', 'mo', 'mn', 'ms', 'mtext']);

/** Room for every parse5 tag id (about 150 today). */
const TAG_ID_SLOTS = 512;

interface ForeignElement {
  tag: string;
  ns: 'svg' | 'math';
  integration: boolean;
}

/**
 * Scans `html` to the end, calling `handler` in document order: one string,
 * or its pieces in order (html-pieces.ts), which parse5's tokenizer takes
 * as they come. Linear time; memory bounded by the input (by a piece and
 * what the tokenizer holds of an unfinished token, for pieces).
 */
export function scanHtml(html: string | Iterable<string>, handler: HtmlScanHandler): void {
  const scan = new HtmlScan(handler);
  if (typeof html === 'string') scan.run(html);
  else scan.runPieces(html);
}

class HtmlScan implements TokenHandler {
  readonly #handler: HtmlScanHandler;
  readonly #tokenizer: PlainRunTokenizer;
  /** Open SVG/MathML elements; empty in HTML content. HTML elements inside integration points are not tracked. */
  readonly #foreign: ForeignElement[] = [];
  /** Open <template>/<noscript>/<object>/<canvas> elements. */
  #hiddenDepth = 0;
  /**
   * Start tags minus end tags per known HTML tag name (parse5's tag ids): a
   * rough HTML stack, enough to tell whether an end tag met inside SVG
   * closes an element around it. Unknown names are not counted, so a page
   * of invented tags cannot grow it.
   */
  readonly #htmlOpen = new Uint32Array(TAG_ID_SLOTS);
  /** The text element whose content the tokenizer is reading, or null. */
  #textElement: { tag: string; kind: TextElement; content: string } | null = null;

  constructor(handler: HtmlScanHandler) {
    this.#handler = handler;
    this.#tokenizer = new PlainRunTokenizer({ sourceCodeLocationInfo: false }, this);
  }

  run(html: string): void {
    this.#tokenizer.write(html, true);
  }

  runPieces(pieces: Iterable<string>): void {
    for (const piece of pieces) this.#tokenizer.write(piece, false);
    this.#tokenizer.write('', true);
  }

  onStartTag(token: Token.TagToken): void {
    this.#handler.onTextBoundary();
    let tag = token.tagName;
    const foreign = this.#foreign;
    const current = foreign[foreign.length - 1];
    if (current !== undefined && !current.integration) {
      if (!breaksOut(token)) {
        // A foreign element takes its parent's namespace, whatever its name (<math> inside <svg> is SVG).
        this.#openForeign(token, tag === 'svg' && current.tag === 'annotation-xml' ? 'svg' : current.ns);
        return;
      }
      this.#popForeignToIntegrationPoint();
    }
    if (tag === 'svg' || tag === 'math') {
      this.#openForeign(token, tag);
      return;
    }
    if (tag === 'image') tag = 'img';
    if (token.tagID !== htmlSpec.TAG_ID.UNKNOWN && token.tagID < TAG_ID_SLOTS) this.#htmlOpen[token.tagID]!++;
    this.#handler.onHtmlElement(tag, token.attrs);
    if (HIDDEN_CONTAINERS.has(tag)) this.#hiddenDepth++;
    const kind = TEXT_ELEMENTS.get(tag);
    if (kind !== undefined) {
      this.#tokenizer.state = kind.state;
      this.#textElement = { tag, kind, content: '' };
    }
  }

  onEndTag(token: Token.TagToken): void {
    this.#handler.onTextBoundary();
    const tag = token.tagName;
    if (this.#textElement !== null) {
      // In a text state the only end tag the tokenizer emits is the one that closes it.
      this.#closeTextElement();
      return;
    }
    const foreign = this.#foreign;
    if (foreign.length > 0) {
      const inIntegration = foreign[foreign.length - 1]!.integration;
      // Inside <foreignObject> an end tag closes an open HTML element of its name first.
      for (let i = foreign.length - 1; i >= 0 && !(inIntegration && this.#isHtmlOpen(token)); i--) {
        if (foreign[i]!.tag === tag) {
          foreign.length = i;
          this.#syncForeignMode();
          return;
        }
      }
      if (!inIntegration) {
        // The tree builder hands an end tag no SVG/MathML element matches to
        // the HTML rules: `</div>` for a <div> around an unclosed <svg> ends
        // the SVG too; `</p>` and `</br>` always leave it.
        if (tag === 'p' || tag === 'br' || this.#isHtmlOpen(token)) this.#popForeignToIntegrationPoint();
        else return;
      }
    }
    if (this.#isHtmlOpen(token)) this.#htmlOpen[token.tagID]!--;
    if (HIDDEN_CONTAINERS.has(tag) && this.#hiddenDepth > 0) this.#hiddenDepth--;
    this.#handler.onHtmlEndTag?.(tag);
  }

  onCharacter(token: Token.CharacterToken): void {
    this.#text(token.chars, false);
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.#text(token.chars, true);
  }

  onNullCharacter(): void {
    // U+0000 in body text is dropped by the tree builder, without splitting the text node.
  }

  onComment(): void {
    this.#handler.onTextBoundary();
  }

  onDoctype(): void {}

  onEof(): void {
    if (this.#textElement !== null) this.#closeTextElement();
  }

  #text(chars: string, whitespace: boolean): void {
    const open = this.#textElement;
    if (open !== null && open.kind.collected) open.content += chars;
    // Text under SVG/MathML counts as hidden even inside <foreignObject>: it is rarely page prose.
    if ((open === null || open.kind.visible) && this.#hiddenDepth === 0 && this.#foreign.length === 0) {
      // Collapsed text keeps nothing of a whitespace run but the word boundary.
      if (whitespace) this.#handler.onTextBoundary();
      else this.#handler.onVisibleText(chars);
    }
  }

  #isHtmlOpen(token: Token.TagToken): boolean {
    return token.tagID < TAG_ID_SLOTS && this.#htmlOpen[token.tagID]! > 0;
  }

  #closeTextElement(): void {
    const open = this.#textElement!;
    this.#textElement = null;
    // The tokenizer's text runs are slices of the page (plain-run-tokenizer.ts): what a handler may keep gets a string of its own.
    if (open.kind.collected) this.#handler.onElementText(open.tag as 'title' | 'style', ownString(open.content));
  }

  #openForeign(token: Token.TagToken, ns: 'svg' | 'math'): void {
    const tag = token.tagName;
    this.#handler.onForeignElement(tag, token.attrs);
    if (token.selfClosing) return;
    this.#foreign.push({ tag, ns, integration: isIntegrationPoint(token, ns) });
    this.#syncForeignMode();
  }

  #popForeignToIntegrationPoint(): void {
    const foreign = this.#foreign;
    while (foreign.length > 0 && !foreign[foreign.length - 1]!.integration) foreign.pop();
    this.#syncForeignMode();
  }

  /** CDATA sections are text only where the current node is foreign and not an integration point. */
  #syncForeignMode(): void {
    const top = this.#foreign[this.#foreign.length - 1];
    this.#tokenizer.inForeignNode = top !== undefined && !top.integration;
  }
}

function breaksOut(token: Token.TagToken): boolean {
  if (BREAKOUT_TAGS.has(token.tagName)) return true;
  return token.tagName === 'font' && token.attrs.some((a) => a.name === 'color' || a.name === 'face' || a.name === 'size');
}

function isIntegrationPoint(token: Token.TagToken, ns: 'svg' | 'math'): boolean {
  if (ns === 'svg') return SVG_INTEGRATION.has(token.tagName);
  if (MATHML_INTEGRATION.has(token.tagName)) return true;
  if (token.tagName !== 'annotation-xml') return false;
  const encoding = token.attrs.find((a) => a.name === 'encoding')?.value.toLowerCase();
  return encoding === 'text/html' || encoding === 'application/xhtml+xml';
}
