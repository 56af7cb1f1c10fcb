/**
 * Outlinks of an HTML page, parsed with parse5 (the HTML standard's parser,
 * so broken markup is read as browsers read it): hyperlinks (L), embeds
 * needed to render the page (E) and meta refresh targets (R), resolved
 * against the first `<base href>`, with the page's title and meta robots.
 * Also re-exports the CSS and X-Robots-Tag extractors so callers have one
 * place to import from.
 */
import { parse, type DefaultTreeAdapterTypes } from 'parse5';
import { cssLinks } from './css-links.js';
import { srcsetUrls, metaRefreshUrl } from './html-attributes.js';
import { resolveLink, resolveUrl, type ExtractedLink } from './link-resolution.js';
import { applyDirectiveList, type RobotsDirectives } from './robots-directives.js';

export { extractCss } from './css-links.js';
export { robotsDirectivesFromHeaders } from './robots-directives.js';
export type { ExtractedLink } from './link-resolution.js';

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;

export interface HtmlExtraction {
  links: ExtractedLink[];
  title: string | null;
  metaRobots: RobotsDirectives;
  /** The base links were resolved against: the first <base href>, else the page URL. */
  baseUrl: string;
}

export interface HtmlExtractOptions {
  /** Stop after this many distinct links; default 100 000, so a huge page stays bounded. */
  maxLinks?: number;
  /**
   * Characters of HTML handed to the parser; default 4 Mi. parse5 builds the
   * whole tree first, at ~30 bytes of heap per input byte (a page of a
   * million links, 34 MB, took 780 MB), so the link cap alone bounds nothing.
   */
  maxHtmlChars?: number;
}

const DEFAULT_MAX_LINKS = 100_000;
const DEFAULT_MAX_HTML_CHARS = 4 * 1024 * 1024;
const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Attributes that embed a resource, per element: [attribute, is a srcset list]. */
const EMBED_ATTRS: Readonly<Record<string, ReadonlyArray<readonly [string, boolean]>>> = {
  img: [['src', false], ['srcset', true]],
  script: [['src', false]],
  iframe: [['src', false]],
  frame: [['src', false]],
  embed: [['src', false]],
  object: [['data', false]],
  source: [['src', false], ['srcset', true]],
  video: [['src', false], ['poster', false]],
  audio: [['src', false], ['poster', false]],
  track: [['src', false]],
};

/** `<link rel>` values that name another page rather than a resource of this one. */
const NAVIGATIONAL_RELS = new Set(['alternate', 'next', 'prev', 'previous', 'canonical']);
/** `<link rel>` values whose href is an origin hint, not a resource. */
const HINT_RELS = new Set(['dns-prefetch', 'preconnect']);

export function extractHtml(html: string, pageUrl: string, opts: HtmlExtractOptions = {}): HtmlExtraction {
  // Scripting off: <noscript> content is parsed as markup, so its fallback images are found.
  const maxChars = opts.maxHtmlChars ?? DEFAULT_MAX_HTML_CHARS;
  const doc = parse(html.length > maxChars ? html.slice(0, maxChars) : html, { scriptingEnabled: false });
  const baseUrl = findBase(doc, pageUrl);
  const out = new LinkCollector(baseUrl, opts.maxLinks ?? DEFAULT_MAX_LINKS);
  const metaRobots: RobotsDirectives = { noindex: false, nofollow: false };
  let title: string | null = null;

  for (const el of elements(doc)) {
    if (out.full) break;
    const tag = el.tagName;
    if (el.namespaceURI !== HTML_NS) {
      if (tag === 'image') out.add(attr(el, 'href') ?? attr(el, 'xlink:href'), 'E', 'image/@href');
      continue;
    }
    const style = attr(el, 'style');
    if (style !== undefined) out.addAll(cssLinks(style, baseUrl, () => `${tag}/@style`));
    const background = attr(el, 'background');
    if (background !== undefined) out.add(background, 'E', `${tag}/@background`);

    switch (tag) {
      case 'a':
      case 'area':
        out.add(attr(el, 'href'), 'L', `${tag}/@href`);
        break;
      case 'link': {
        const rels = (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
        if (rels.some((r) => HINT_RELS.has(r))) break;
        const navigational = !rels.includes('stylesheet') && rels.some((r) => NAVIGATIONAL_RELS.has(r));
        out.add(attr(el, 'href'), navigational ? 'L' : 'E', 'link/@href');
        break;
      }
      case 'input':
        if ((attr(el, 'type') ?? '').trim().toLowerCase() === 'image') out.add(attr(el, 'src'), 'E', 'input/@src');
        break;
      case 'style':
        out.addAll(cssLinks(textOf(el), baseUrl, (kind) => (kind === 'import' ? 'style/@import' : 'style/url()')));
        break;
      case 'meta':
        readMeta(el, out, metaRobots);
        break;
      case 'title':
        title ??= textOf(el).replace(/\s+/g, ' ').trim();
        break;
      default: {
        const embeds = EMBED_ATTRS[tag];
        if (embeds === undefined) break;
        for (const [name, isSrcset] of embeds) {
          const value = attr(el, name);
          if (value === undefined) continue;
          if (isSrcset) for (const u of srcsetUrls(value)) out.add(u, 'E', `${tag}/@${name}`);
          else out.add(value, 'E', `${tag}/@${name}`);
        }
      }
    }
  }
  return { links: out.links, title, metaRobots, baseUrl };
}

function readMeta(el: Element, out: LinkCollector, robots: RobotsDirectives): void {
  const content = attr(el, 'content');
  if (content === undefined) return;
  if ((attr(el, 'http-equiv') ?? '').trim().toLowerCase() === 'refresh') {
    const target = metaRefreshUrl(content);
    if (target !== null) out.add(target, 'R', 'meta/@content');
  }
  if ((attr(el, 'name') ?? '').trim().toLowerCase() === 'robots') applyDirectiveList(content, robots);
}

/** Resolves, filters, de-duplicates (url + hop) and caps the links of one page. */
class LinkCollector {
  readonly links: ExtractedLink[] = [];
  readonly #seen = new Set<string>();
  readonly #base: string;
  readonly #max: number;

  constructor(base: string, max: number) {
    this.#base = base;
    this.#max = max;
  }

  get full(): boolean {
    return this.links.length >= this.#max;
  }

  add(raw: string | undefined, hop: ExtractedLink['hop'], context: string): void {
    if (raw === undefined || this.full) return;
    const link = resolveLink(raw, this.#base, hop, context);
    if (link !== null) this.#push(link);
  }

  addAll(links: ExtractedLink[]): void {
    for (const l of links) if (!this.full) this.#push(l);
  }

  #push(link: ExtractedLink): void {
    const key = `${link.hop} ${link.url}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.links.push(link);
  }
}

/** The document's base URL: the first <base> with an href, resolved against the page. */
function findBase(doc: Node, pageUrl: string): string {
  for (const el of elements(doc)) {
    if (el.tagName !== 'base' || el.namespaceURI !== HTML_NS) continue;
    const href = attr(el, 'href');
    if (href === undefined) continue;
    // A base that is not a usable http(s) URL leaves the page URL in charge.
    return resolveUrl(href, pageUrl) ?? pageUrl;
  }
  return pageUrl;
}

/** Elements in document order, including <template> contents; iterative, so deep nesting cannot overflow the stack. */
function* elements(root: Node): Generator<Element> {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if ('tagName' in node) yield node;
    // Pushed in reverse so they pop in document order (no spread: a node may have a million children).
    if (node.nodeName === 'template' && 'content' in node) pushReversed(stack, (node as DefaultTreeAdapterTypes.Template).content.childNodes);
    if ('childNodes' in node) pushReversed(stack, node.childNodes);
  }
}

function pushReversed(stack: Node[], kids: readonly Node[]): void {
  for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
}

function attr(el: Element, name: string): string | undefined {
  for (const a of el.attrs) {
    const full = a.prefix ? `${a.prefix}:${a.name}` : a.name;
    if (full === name || (a.name === name && !a.prefix)) return a.value;
  }
  return undefined;
}

function textOf(el: Element): string {
  let text = '';
  for (const child of el.childNodes) if (child.nodeName === '#text') text += (child as DefaultTreeAdapterTypes.TextNode).value;
  return text;
}
