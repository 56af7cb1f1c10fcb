/**
 * Outlinks of an HTML page: hyperlinks (L), embeds needed to render the page
 * (E) and meta refresh targets (R), resolved against the first `<base href>`,
 * with the page's title, meta robots and visible text, all in one streaming
 * pass of parse5's tokenizer (the HTML standard's tokenizer, so broken
 * markup is read as browsers read it; see html-scan.ts for why no tree).
 * Also re-exports the CSS and X-Robots-Tag extractors so callers have one
 * place to import from.
 */
import { scanCss } from './css-links.js';
import { srcsetUrls, metaRefreshUrl } from './html-attributes.js';
import { scanHtml, type HtmlAttribute, type HtmlScanHandler } from './html-scan.js';
import { LinkCollector } from './html-scan-links.js';
import { DEFAULT_MAX_TEXT_CHARS, VisibleText } from './html-scan-text.js';
import { LinkTexts } from './link-text.js';
import type { ExtractedLink } from './link-resolution.js';
import { applyDirectiveList, type RobotsDirectives } from './robots-directives.js';

export { extractCss } from './css-links.js';
export { robotsDirectivesFromHeaders } from './robots-directives.js';
export { DEFAULT_MAX_TEXT_CHARS } from './html-scan-text.js';
export type { ExtractedLink } from './link-resolution.js';

export interface HtmlExtraction {
  links: ExtractedLink[];
  /** Text of the first <title>, whitespace collapsed ('' when empty); null when the page has none. */
  title: string | null;
  metaRobots: RobotsDirectives;
  /** The base links were resolved against: the first <base href>, else the page URL. */
  baseUrl: string;
  /**
   * The visible text (not script, style, template, noscript, object,
   * canvas, iframe, SVG/MathML, nor the title), whitespace runs collapsed
   * to one space, text nodes separated by a space, at most `maxTextChars`.
   */
  text: string;
  /** A focused crawl's terms of the title and text, space-separated (src/focus/page-terms.ts). */
  terms?: string;
  /**
   * Link-bearing elements met after `maxLinks` distinct links were taken
   * (counted, not resolved or de-duplicated: an estimate of what was left).
   */
  linksBeyondCap: number;
}

export interface HtmlExtractOptions {
  /** Stop after this many distinct links; default 100 000. The whole page is still scanned (title, robots, text). */
  maxLinks?: number;
  /** Characters of visible text kept; default 100 000 (DEFAULT_MAX_TEXT_CHARS). */
  maxTextChars?: number;
  /** Give each a/area hyperlink its anchor text and the text around it (link-text.ts); default false. */
  linkText?: boolean;
}

const DEFAULT_MAX_LINKS = 100_000;

/**
 * Attributes that embed a resource, per element: [attribute, is a srcset
 * list]. A Map, not an object: a page's own tag names index it, and
 * `<constructor>` or `<__proto__>` must find nothing (on an object they
 * found Object's prototype members, and the page's extraction threw).
 */
const EMBED_ATTRS: ReadonlyMap<string, ReadonlyArray<readonly [string, boolean]>> = new Map([
  ['img', [['src', false], ['srcset', true]]],
  ['script', [['src', false]]],
  ['iframe', [['src', false]]],
  ['frame', [['src', false]]],
  ['embed', [['src', false]]],
  ['object', [['data', false]]],
  ['source', [['src', false], ['srcset', true]]],
  ['video', [['src', false], ['poster', false]]],
  ['audio', [['src', false], ['poster', false]]],
  ['track', [['src', false]]],
]);

/**
 * `<link rel>` values that name another page rather than a resource of
 * this one: HTML's hyperlink types and the older navigation ones that
 * Sphinx and DocBook write on every page (`index`, `search`, `up`, `home`…),
 * which as embeds would be fetched with every page whatever a budget or a
 * focused crawl's order says.
 */
const NAVIGATIONAL_RELS = new Set([
  'alternate', 'next', 'prev', 'previous', 'canonical', 'author', 'help', 'license', 'search', 'bookmark', 'tag',
  'index', 'contents', 'toc', 'copyright', 'glossary', 'up', 'home', 'start', 'first', 'last', 'top', 'begin', 'end',
  'chapter', 'section', 'subsection', 'appendix',
]);
/** `<link rel>` values whose href is an origin hint, not a resource. */
const HINT_RELS = new Set(['dns-prefetch', 'preconnect']);

/** A page's text in pieces, in order; read again from its start when asked (html-pieces.ts). */
export interface HtmlTextPieces {
  texts: Iterable<string>;
}

export function extractHtml(html: string | HtmlTextPieces, pageUrl: string, opts: HtmlExtractOptions = {}): HtmlExtraction {
  try {
    return extractOnce(html, pageUrl, opts, false);
  } catch (err) {
    if (!(err instanceof LateBase)) throw err;
    return extractOnce(html, pageUrl, opts, true);
  }
}

/** A `<base href>` met after the first link value: the reading starts over, ready for it. */
class LateBase extends Error {}

/**
 * One reading of the page. Links are resolved as they come, against the
 * page URL, until a `<base href>` tag says otherwise: one met before any
 * link value is taken as it comes; one met after makes the reading start
 * over (`mayHaveBase`), gathering every link value until the base is
 * settled and resolving them against it then (LinkCollector). Pages put
 * their base in <head>, before any link, so the second reading is rare;
 * deciding it from the tag the tokenizer reads spares every page a search
 * of its whole text for `<base` first, and a tag in a comment or a script
 * does not count.
 */
function extractOnce(html: string | HtmlTextPieces, pageUrl: string, opts: HtmlExtractOptions, mayHaveBase: boolean): HtmlExtraction {
  const page = new PageExtraction(pageUrl, mayHaveBase, opts);
  scanHtml(typeof html === 'string' ? html : html.texts, page);
  return page.result();
}

/** The extraction rules, fed by the scanner element by element. */
class PageExtraction implements HtmlScanHandler {
  readonly #links: LinkCollector;
  readonly #text: VisibleText;
  /** Anchor and surrounding text per hyperlink, when asked for. */
  readonly #linkTexts: LinkTexts | null;
  readonly #metaRobots: RobotsDirectives = { noindex: false, nofollow: false };
  #title: string | null = null;
  #beyondCap = 0;

  constructor(pageUrl: string, mayHaveBase: boolean, opts: HtmlExtractOptions) {
    this.#links = new LinkCollector(pageUrl, { maxLinks: opts.maxLinks ?? DEFAULT_MAX_LINKS, mayHaveBase });
    this.#text = new VisibleText(opts.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS);
    this.#linkTexts = opts.linkText === true ? new LinkTexts() : null;
  }

  result(): HtmlExtraction {
    this.#linkTexts?.finish();
    return { links: this.#links.links, title: this.#title, metaRobots: this.#metaRobots, baseUrl: this.#links.baseUrl, text: this.#text.toString(), linksBeyondCap: this.#beyondCap };
  }

  onHtmlElement(tag: string, attrs: readonly HtmlAttribute[]): void {
    const out = this.#links;
    if (tag === 'meta') {
      this.#readMeta(attrs);
      return;
    }
    if (tag === 'base') {
      const href = attr(attrs, 'href');
      // Only the first <base href> counts; one after a link value makes the reading start over (extractOnce).
      if (href !== undefined && !out.setBase(href)) throw new LateBase();
      return;
    }
    if (out.full) {
      if (bearsLink(tag, attrs)) this.#beyondCap++;
      return;
    }
    const style = attr(attrs, 'style');
    if (style !== undefined) for (const ref of scanCss(style)) out.add(ref.value, 'E', `${tag}/@style`);
    const background = attr(attrs, 'background');
    if (background !== undefined) out.add(background, 'E', `${tag}/@background`);

    const texts = this.#linkTexts;
    switch (tag) {
      case 'a':
      case 'area': {
        const link = out.add(attr(attrs, 'href'), 'L', `${tag}/@href`);
        if (texts === null) break;
        // A new <a> ends the one open, as the parser does; a duplicate link's anchor goes nowhere.
        if (link === null) texts.close();
        else texts.open(link);
        if (tag === 'area') {
          const alt = attr(attrs, 'alt');
          if (alt !== undefined) texts.alt(alt);
          texts.close();
        }
        break;
      }
      case 'link': {
        const rels = (attr(attrs, 'rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
        if (rels.some((r) => HINT_RELS.has(r))) break;
        const navigational = !rels.includes('stylesheet') && rels.some((r) => NAVIGATIONAL_RELS.has(r));
        out.add(attr(attrs, 'href'), navigational ? 'L' : 'E', 'link/@href');
        break;
      }
      case 'input':
        if ((attr(attrs, 'type') ?? '').trim().toLowerCase() === 'image') out.add(attr(attrs, 'src'), 'E', 'input/@src');
        break;
      default: {
        if (texts !== null && tag === 'img') {
          const alt = attr(attrs, 'alt');
          if (alt !== undefined) texts.alt(alt);
        }
        const embeds = EMBED_ATTRS.get(tag);
        if (embeds === undefined) break;
        for (let i = 0; i < embeds.length; i++) {
          const name = embeds[i]![0];
          const isSrcset = embeds[i]![1];
          const value = attr(attrs, name);
          if (value === undefined) continue;
          if (isSrcset) for (const u of srcsetUrls(value)) out.add(u, 'E', `${tag}/@${name}`);
          else out.add(value, 'E', `${tag}/@${name}`);
        }
      }
    }
  }

  onForeignElement(tag: string, attrs: readonly HtmlAttribute[]): void {
    // SVG <image>; an SVG <a> is not followed (it was not with the tree either).
    if (tag === 'image') this.#links.add(attr(attrs, 'href') ?? attr(attrs, 'xlink:href'), 'E', 'image/@href');
  }

  onElementText(tag: 'title' | 'style', text: string): void {
    if (tag === 'title') {
      this.#title ??= text.replace(/\s+/g, ' ').trim();
    } else {
      for (const ref of scanCss(text)) this.#links.add(ref.value, 'E', ref.kind === 'import' ? 'style/@import' : 'style/url()');
    }
  }

  onVisibleText(chunk: string): void {
    this.#text.append(chunk);
    this.#linkTexts?.text(chunk);
  }

  onTextBoundary(): void {
    this.#text.boundary();
    this.#linkTexts?.boundary();
  }

  onHtmlEndTag(tag: string): void {
    if (tag === 'a') this.#linkTexts?.close();
  }

  #readMeta(attrs: readonly HtmlAttribute[]): void {
    const content = attr(attrs, 'content');
    if (content === undefined) return;
    if ((attr(attrs, 'http-equiv') ?? '').trim().toLowerCase() === 'refresh') {
      const target = metaRefreshUrl(content);
      if (target !== null) this.#links.add(target, 'R', 'meta/@content');
    }
    if ((attr(attrs, 'name') ?? '').trim().toLowerCase() === 'robots') applyDirectiveList(content, this.#metaRobots);
  }
}

/** Whether an element carries a link the extractor would take (for counting past the cap). */
function bearsLink(tag: string, attrs: readonly HtmlAttribute[]): boolean {
  if (tag === 'a' || tag === 'area' || tag === 'link') return attr(attrs, 'href') !== undefined;
  const embeds = EMBED_ATTRS.get(tag);
  return embeds !== undefined && embeds.some(([name]) => attr(attrs, name) !== undefined);
}

function attr(attrs: readonly HtmlAttribute[], name: string): string | undefined {
  // Asked several times for every element: indexed, as for…of makes an object per step in unoptimised code.
  for (let i = 0; i < attrs.length; i++) if (attrs[i]!.name === name) return attrs[i]!.value;
  return undefined;
}
