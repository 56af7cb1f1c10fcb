/**
 * The link extraction analyze used before its own scan (html-link-scan.ts):
 * parse5's Tokenizer with the text states switched as the tree builder
 * would. Kept here as the reference the scan is compared with on many pages.
 */
import { Tokenizer, TokenizerMode, type TokenHandler, type Token } from 'parse5';
import type { PageLinks } from '../../src/analysis/html-link-scan.js';

const MAX_TITLE_CHARS = 300;

type TextState = (typeof TokenizerMode)[keyof typeof TokenizerMode];

/** Elements whose content the HTML tree builder reads as text, and in which tokenizer state. */
const TEXT_ELEMENTS: ReadonlyMap<string, TextState> = new Map<string, TextState>([
  ['title', TokenizerMode.RCDATA],
  ['textarea', TokenizerMode.RCDATA],
  ['style', TokenizerMode.RAWTEXT],
  ['xmp', TokenizerMode.RAWTEXT],
  ['iframe', TokenizerMode.RAWTEXT],
  ['noembed', TokenizerMode.RAWTEXT],
  ['noframes', TokenizerMode.RAWTEXT],
  ['script', TokenizerMode.SCRIPT_DATA],
  ['plaintext', TokenizerMode.PLAINTEXT],
]);

/** Which attribute of which element is a link. */
const LINK_ATTRIBUTE: ReadonlyMap<string, string> = new Map([
  ['a', 'href'],
  ['area', 'href'],
  ['iframe', 'src'],
  ['frame', 'src'],
]);

function attr(token: Token.TagToken, name: string): string | null {
  for (const a of token.attrs) if (a.name === name) return a.value;
  return null;
}

/** Extract links, base and title from a whole HTML document. */
export function referenceExtractLinks(html: string): PageLinks {
  const hrefs: string[] = [];
  let baseHref: string | null = null;
  let title = '';
  let inTitle = false;
  let titleDone = false;
  // Depth inside <svg>/<math>: there, text elements are ordinary and CDATA is allowed.
  let foreignDepth = 0;

  const onText = (token: Token.CharacterToken): void => {
    if (inTitle && title.length < MAX_TITLE_CHARS) title += token.chars;
  };

  const handler: TokenHandler = {
    onStartTag(token) {
      const name = token.tagName;
      if (foreignDepth > 0) {
        if (name === 'a') {
          const v = attr(token, 'href') ?? attr(token, 'xlink:href');
          if (v !== null) hrefs.push(v);
        }
        if ((name === 'svg' || name === 'math') && !token.selfClosing) foreignDepth++;
        return;
      }
      const linkAttr = LINK_ATTRIBUTE.get(name);
      if (linkAttr !== undefined) {
        const v = attr(token, linkAttr);
        if (v !== null) hrefs.push(v);
      } else if (name === 'base') {
        if (baseHref === null) baseHref = attr(token, 'href');
      } else if (name === 'svg' || name === 'math') {
        if (!token.selfClosing) {
          foreignDepth = 1;
          tokenizer.inForeignNode = true;
        }
        return;
      }
      const textState = TEXT_ELEMENTS.get(name);
      if (textState !== undefined) {
        tokenizer.state = textState;
        if (name === 'title' && !titleDone) inTitle = true;
      }
    },
    onEndTag(token) {
      const name = token.tagName;
      if (foreignDepth > 0) {
        if (name === 'svg' || name === 'math') {
          foreignDepth--;
          if (foreignDepth === 0) tokenizer.inForeignNode = false;
        }
        return;
      }
      if (name === 'title' && inTitle) {
        inTitle = false;
        titleDone = true;
      }
    },
    onCharacter: onText,
    onWhitespaceCharacter: onText,
    onNullCharacter() {},
    onComment() {},
    onDoctype() {},
    onEof() {},
  };

  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: false }, handler);
  tokenizer.write(html, true);
  return { hrefs, baseHref, title: title.replace(/\s+/g, ' ').trim() };
}

