/**
 * Pulls the graph's raw material out of one HTML page: `a`/`area` href,
 * `iframe`/`frame` src, the first `<base href>` and the `<title>` text.
 *
 * Uses parse5's Tokenizer rather than its tree builder: building a DOM costs
 * several times more than tokenizing and we need no tree. Without a tree
 * builder we must switch the tokenizer into its text states ourselves
 * (script, style, title…), exactly where the tree builder would, or markup
 * inside scripts would yield false links. `noscript` is parsed as markup, as
 * a crawler without JavaScript sees it.
 */
import { Tokenizer, TokenizerMode, type TokenHandler, type Token } from 'parse5';

export interface PageLinks {
  /** Raw attribute values in document order, not yet resolved. */
  hrefs: string[];
  /** The first `<base href>` value, or null. */
  baseHref: string | null;
  /** Text of the first HTML `<title>`, whitespace collapsed, '' when none. */
  title: string;
}

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
export function extractLinks(html: string): PageLinks {
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

/**
 * Resolve raw hrefs into absolute http(s) URLs without fragments, in the
 * order found (duplicates kept; the graph collapses them). The document's
 * base is the first `<base href>`, itself resolved against the page URL.
 */
export function resolveLinks(pageUrl: URL, links: PageLinks): string[] {
  let base = pageUrl;
  if (links.baseHref !== null) {
    const b = URL.canParse(links.baseHref, pageUrl.href) ? new URL(links.baseHref, pageUrl) : null;
    if (b !== null && (b.protocol === 'http:' || b.protocol === 'https:')) base = b;
  }
  const out: string[] = [];
  for (const raw of links.hrefs) {
    const href = raw.trim();
    if (href === '' || href.charCodeAt(0) === 35 /* '#' only: same page */) continue;
    // Cheap rejects before the URL parser: mailto:, javascript:, data:, tel: …
    const colon = href.indexOf(':');
    if (colon > 0 && colon < 12) {
      const scheme = href.slice(0, colon).toLowerCase();
      if (scheme !== 'http' && scheme !== 'https' && /^[a-z][a-z0-9+.-]*$/.test(scheme)) continue;
    }
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    out.push(withoutFragment(url.href));
  }
  return out;
}

/**
 * In a serialized URL the first '#' starts the fragment (any other '#' is
 * percent-encoded), so slicing is exact — and much cheaper than the `hash`
 * setter, which re-parses the URL.
 */
function withoutFragment(href: string): string {
  const at = href.indexOf('#');
  return at < 0 ? href : href.slice(0, at);
}

/** The key a captured URL is known by: parsed, fragment removed; null if not http(s). */
export function normalizeCaptureUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url;
}
