/**
 * Template links: the navigation a site's page template repeats on every
 * page (previous / next / up, home, index, search, a sidebar's table of
 * contents). Where such a link sits says nothing of the topic: it is on
 * the relevant pages because it is on all pages. Yet it inherited the
 * relevance of the page it was found on like any link, so on the held-out
 * documentation sites of issue 26 a relevant page's "previous" and "next"
 * (its neighbours in the book's order, off the topic) and its sidebar's
 * "Core", "Dialects", "FAQ", "Search", "Copyright" ranked with the links of
 * its text — and, found again on a relevant page, were queued again higher
 * (better-paths.ts).
 *
 * A link is part of the template when its anchor text, or its URL, has been
 * seen on at least SHARE of the pages whose links were placed so far (and
 * on at least MIN_PAGES of them): "next" leads somewhere else on every
 * page, but its words repeat; a sidebar's "Core" keeps its URL. A
 * `<link rel=prev|next|up|index…>` in the head is the template's by what it
 * is. What such a link inherits of its page
 * (link-priority.ts):
 * - the same URL from every page (home, index, search, a sidebar's
 *   sections), or a `<link>` (the document's relations: its sequence,
 *   index, search, licence): nothing — it says nothing of this page;
 * - the same words leading somewhere else from each page (Prev, Up, Next in
 *   a DocBook book): what a page off the topic passes on (DECAY, half),
 *   below the links of the page's text — it still tunnels: a chapter's "Up"
 *   leads to the chapter's contents, often on the topic.
 * Measured on the documentation sites of focus-real.ts (keywords, harvest):
 * every template link inheriting nothing, PostgreSQL 0.583 and Berkeley DB
 * 0.341; all at half, SQLAlchemy 0.571; as above, 0.633, 0.341, 0.612 (the
 * `<link>`s at half instead: 0.633, 0.373, 0.571). Its own words (anchor,
 * URL, text around) count in full, so a sidebar entry that names the topic
 * ranks as high as ever. Learnt from the crawl itself, without a word list
 * or a look at the markup (Sphinx, DocBook, Javadoc and hand-written sites
 * lay out their navigation each their own way).
 *
 * Cheap: per link two map look-ups on strings the page thread already cut
 * (the anchor's terms, the URL). Bounded: at most MAX_KEYS anchors and
 * URLs are counted; past it new ones are not (the template's are among the
 * first seen, on the first pages).
 */

/** Where the link extraction says a link came from a <link rel=next|prev|up|index|search|alternate…>. */
export const HEAD_LINK_CONTEXT = 'link/@href';

/**
 * How a link is the template's: `head`, a <link>; `url`, the same link on
 * every page; `anchor`, the same words leading somewhere else from each
 * (previous, next, up).
 */
export type TemplateKind = 'head' | 'url' | 'anchor';

/** The share of pages a link's anchor or URL must be seen on to count as the template's. */
export const SHARE = 0.5;
/** The fewest pages it must be seen on (the first pages say little). */
export const MIN_PAGES = 3;
/** Anchors and URLs counted, each. */
export const MAX_KEYS = 100_000;

export class TemplateLinks {
  #pages = 0;
  readonly #anchors = new Map<string, number>();
  readonly #urls = new Map<string, number>();

  /** A page whose links are about to be placed. */
  page(): TemplatePage {
    return new TemplatePage(this);
  }

  /** Pages whose links were placed (counted at their first link). */
  get pages(): number {
    return this.#pages;
  }

  /** @internal A page's first link. */
  countPage(): void {
    this.#pages++;
  }

  /** @internal An anchor or URL first seen on the current page: its count of pages, this one included. */
  count(anchor: boolean, key: string): number {
    const map = anchor ? this.#anchors : this.#urls;
    const n = (map.get(key) ?? 0) + 1;
    if (n > 1 || map.size < MAX_KEYS) map.set(key, n);
    return n;
  }

  /** @internal How many pages a key was seen on. */
  seen(anchor: boolean, key: string): number {
    return (anchor ? this.#anchors : this.#urls).get(key) ?? 0;
  }

  /** @internal Whether a count of pages makes a template link. */
  repeated(n: number): boolean {
    return n >= MIN_PAGES && n >= SHARE * this.#pages;
  }
}

/** One page's view: counts each anchor and URL once for the page. */
export class TemplatePage {
  readonly #all: TemplateLinks;
  #counted = false;
  readonly #anchors = new Set<string>();
  readonly #urls = new Set<string>();

  constructor(all: TemplateLinks) {
    this.#all = all;
  }

  /** A link of this page, by its anchor's terms ('' or undefined: none) and URL: whether it is the template's. */
  isTemplate(anchorTerms: string | undefined, url: string, context?: string): boolean {
    return this.kind(anchorTerms, url, context) !== null;
  }

  /** As isTemplate, and how (TemplateKind); every link of the page counts, whatever it is. */
  kind(anchorTerms: string | undefined, url: string, context?: string): TemplateKind | null {
    if (!this.#counted) {
      this.#counted = true;
      this.#all.countPage();
    }
    const byUrl = this.#once(false, url, this.#urls);
    const byAnchor = anchorTerms === undefined || anchorTerms === '' ? 0 : this.#once(true, anchorTerms, this.#anchors);
    if (context === HEAD_LINK_CONTEXT) return 'head';
    return this.#all.repeated(byUrl) ? 'url' : this.#all.repeated(byAnchor) ? 'anchor' : null;
  }

  #once(anchor: boolean, key: string, mine: Set<string>): number {
    if (mine.has(key)) return this.#all.seen(anchor, key);
    mine.add(key);
    return this.#all.count(anchor, key);
  }
}
