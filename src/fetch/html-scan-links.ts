/**
 * Collects a page's outlinks while the scanner streams: resolves each raw
 * value, drops the unfetchable, de-duplicates (url + hop) and stops at a cap.
 *
 * The first `<base href>` governs every link of the page, including those
 * found before it. A tree makes that free (find the base, then walk); a
 * single pass must resolve a link before it knows whether a base follows.
 * So a page is first read as if it had none, keeping nothing; a base tag
 * met before any link value is taken as it comes (setBase). One met after
 * makes link-extractor.ts read the page again with `mayHaveBase`: links are
 * then resolved against the page URL and their raw values kept, and a base
 * that changes the resolution replays them.
 */
import { directoryOf, resolveKey, resolveUrl, type ExtractedLink } from './link-resolution.js';

interface RawLink {
  raw: string;
  hop: ExtractedLink['hop'];
  context: string;
}

export interface LinkCollectorOptions {
  /** Stop after this many distinct links. */
  maxLinks: number;
  /**
   * A <base> element may come after links (false: none is expected, no raw
   * values are kept, and one can still be taken before the first link:
   * setBase).
   */
  mayHaveBase: boolean;
}

/**
 * How many distinct values a page's resolutions are remembered for, per
 * link the page may yield: beyond it (a page of a million distinct mailto:
 * links) values are resolved without being remembered, so the memo stays
 * within a few times the cap.
 */
const MEMO_PER_LINK = 4;

/**
 * The part of a trimmed link value its resolution depends on: up to its
 * fragment, which is dropped anyway. The URL parser reads a `#` as the start
 * of the fragment wherever it stands, so `x.html#a` and `x.html#b` resolve
 * as `x.html` does — but for whitespace or a control character just before
 * the `#`, which is kept in the path there (`a #b` is `a%20`) and would be
 * trimmed without it (by resolveUrl, or by the parser).
 */
export function resolutionKey(value: string): string {
  const hash = value.indexOf('#');
  if (hash <= 0) return value;
  const cut = value.slice(0, hash);
  return cut.charCodeAt(hash - 1) > 0x20 && cut.trimEnd().length === hash ? cut : value;
}

export class LinkCollector {
  links: ExtractedLink[] = [];
  #seen = new Set<string>();
  /**
   * Values already resolved against the current base, by resolutionKey: a
   * documentation page links the same few pages many times at different
   * anchors (the Python docs: 118,000 values, 29,000 distinct keys per page).
   */
  #resolved = new Map<string, string | null>();
  readonly #pageUrl: string;
  readonly #maxLinks: number;
  #base: string;
  /** directoryOf(#base), worked out at the first link resolved against it (undefined until then). */
  #directory: string | null | undefined = undefined;
  /** A <base href> was taken (setBase): later ones do not count. */
  #baseSeen = false;
  /** Raw links kept while a base may still change their resolution (mayHaveBase, before the base); null otherwise. */
  #pending: RawLink[] | null;
  /** A link value was read: a base coming now, with no raw values kept, comes too late (setBase). */
  #read = false;

  constructor(pageUrl: string, opts: LinkCollectorOptions) {
    this.#pageUrl = pageUrl;
    this.#base = pageUrl;
    this.#maxLinks = opts.maxLinks;
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
    this.#read = true;
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
   * link, where this never arises. False, and nothing done, when it comes
   * too late: a link value was read with no raw values kept (mayHaveBase
   * false), so the page must be read again with them (link-extractor.ts).
   */
  setBase(href: string): boolean {
    if (this.#baseSeen) return true;
    if (this.#pending === null && this.#read) return false;
    this.#baseSeen = true;
    const pending = this.#pending ?? [];
    this.#pending = null;
    const base = resolveUrl(href, this.#pageUrl) ?? this.#pageUrl;
    if (base === this.#base) return true;
    this.#base = base;
    this.#directory = undefined;
    this.links = [];
    this.#seen = new Set();
    this.#resolved = new Map();
    for (const p of pending) {
      if (this.full) break;
      this.#take(p.raw, p.hop, p.context);
    }
    return true;
  }

  /** The link when it was new, else null. */
  #take(raw: string, hop: ExtractedLink['hop'], context: string): ExtractedLink | null {
    const url = this.#resolve(raw);
    if (url === null) return null;
    const key = `${hop} ${url}`;
    if (this.#seen.has(key)) return null;
    this.#seen.add(key);
    const link: ExtractedLink = { url, hop, context };
    this.links.push(link);
    return link;
  }

  /** `raw` resolved against the base (resolveUrl, or resolveKey's shortcut), remembered by its resolution key. */
  #resolve(raw: string): string | null {
    const key = resolutionKey(raw.trim());
    const memo = this.#resolved;
    let url = memo.get(key);
    if (url === undefined) {
      if (this.#directory === undefined) this.#directory = directoryOf(this.#base);
      url = resolveKey(key, this.#base, this.#directory);
      if (memo.size < this.#maxLinks * MEMO_PER_LINK) memo.set(key, url);
    }
    return url;
  }
}
