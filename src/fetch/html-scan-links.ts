/**
 * Collects a page's outlinks while the scanner streams: resolves each raw
 * value, drops the unfetchable, de-duplicates (url + hop) and stops at a cap.
 *
 * The first `<base href>` governs every link of the page, including those
 * found before it. A tree makes that free (find the base, then walk); a
 * single pass must resolve a link before it knows whether a base follows.
 * So, when the page may contain a base, links are resolved against the page
 * URL and their raw values kept; a base that changes the resolution replays
 * them. Pages whose source has no `<base` at all keep nothing.
 */
import { resolveLink, resolveUrl, type ExtractedLink } from './link-resolution.js';

interface RawLink {
  raw: string;
  hop: ExtractedLink['hop'];
  context: string;
}

export interface LinkCollectorOptions {
  /** Stop after this many distinct links. */
  maxLinks: number;
  /**
   * The page may contain a <base> element (false only when its source
   * cannot: then no raw values are kept).
   */
  mayHaveBase: boolean;
}

export class LinkCollector {
  links: ExtractedLink[] = [];
  #seen = new Set<string>();
  readonly #pageUrl: string;
  readonly #maxLinks: number;
  #base: string;
  #baseSettled: boolean;
  /** Raw links taken before the base was settled; null once it is. */
  #pending: RawLink[] | null;

  constructor(pageUrl: string, opts: LinkCollectorOptions) {
    this.#pageUrl = pageUrl;
    this.#base = pageUrl;
    this.#maxLinks = opts.maxLinks;
    this.#baseSettled = !opts.mayHaveBase;
    this.#pending = opts.mayHaveBase ? [] : null;
  }

  /** The base links are resolved against: the first <base href>, else the page URL. */
  get baseUrl(): string {
    return this.#base;
  }

  get full(): boolean {
    return this.links.length >= this.#maxLinks;
  }

  /** The link taken, or null (none, unfetchable, a duplicate, or past the cap). */
  add(raw: string | undefined, hop: ExtractedLink['hop'], context: string): ExtractedLink | null {
    if (raw === undefined || this.full) return null;
    const taken = this.#take(raw, hop, context);
    const pending = this.#pending;
    // Every raw value up to the cap, then the ones taken: at most twice the cap.
    if (pending !== null && (taken !== null || pending.length < this.#maxLinks)) pending.push({ raw, hop, context });
    return taken;
  }

  /**
   * A <base href> value; only the first one counts. One that is not a usable
   * http(s) URL leaves the page URL in charge (as before it was seen).
   * To stay bounded the replay keeps, beyond the first `maxLinks` raw
   * values, only those that were new links: after that, two values that
   * were one link under the page URL but are two under the late base ("x"
   * and "/dir/x") stay one. Pages put their base in <head>, before any
   * link, where this never arises.
   */
  setBase(href: string): void {
    if (this.#baseSettled) return;
    this.#baseSettled = true;
    const pending = this.#pending ?? [];
    this.#pending = null;
    const base = resolveUrl(href, this.#pageUrl) ?? this.#pageUrl;
    if (base === this.#base) return;
    this.#base = base;
    this.links = [];
    this.#seen = new Set();
    for (const p of pending) {
      if (this.full) break;
      this.#take(p.raw, p.hop, p.context);
    }
  }

  /** The link when it was new, else null. */
  #take(raw: string, hop: ExtractedLink['hop'], context: string): ExtractedLink | null {
    const link = resolveLink(raw, this.#base, hop, context);
    if (link === null) return null;
    const key = `${hop} ${link.url}`;
    if (this.#seen.has(key)) return null;
    this.#seen.add(key);
    this.links.push(link);
    return link;
  }
}

/**
 * Whether the source may hold a <base> start tag: the tokenizer only reads
 * `<base` followed by whitespace, `/` or `>` as one (tag names are
 * case-insensitive). A match inside a comment or script only costs the
 * bookkeeping for the late-base replay.
 */
export function mayHaveBaseTag(html: string): boolean {
  return /<base[\t\n\f\r />]/i.test(html);
}
