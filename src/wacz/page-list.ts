/**
 * The page list built in one pass over page candidates given in package
 * order (WARC file, then offset), holding no page: pages.jsonl is written
 * as entries come out, and the main page is chosen on the way.
 *
 * What it keeps instead of the pages:
 * - the URLs already listed, as 64-bit Rabin fingerprints in a KeyTable
 *   (~16 bytes a page). Two URLs with one fingerprint would drop the second
 *   from the list; for N pages the chance of any such pair is about
 *   N²/2^65 (1e-7 for a million pages).
 * - the title and text of the first original of each digest that a
 *   text-less revisit still ahead will borrow, until the last such revisit
 *   has passed (PageCollector counts them while candidates are added).
 *   Usually an original comes before its revisits, so this holds what lies
 *   between the two. Not always: the crawl writes a capture when its page
 *   work is done, and a revisit's can end first; and in a crawl of several
 *   processes a revisit may sit in a file of a node whose name sorts first.
 *   For a revisit ahead of its original, PageCollector hands over the
 *   original's title and text as it met them (`lateOriginals`). Without
 *   them, such a revisit gets no title or text.
 * - the best main page so far (see mainPage()).
 */
import { KeyTable } from '../fingerprint/key-table.js';
import { std64, type Fp64 } from '../fingerprint/rabin.js';

/** pages.jsonl's first line. */
export const PAGES_HEADER = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true } as const;

/** Default cap on a page's text, in characters. */
export const DEFAULT_MAX_TEXT_CHARS = 100_000;

/**
 * `T`: how a page's text is carried — a string, or (pages written straight
 * from the capture journal) its JSON string as the journal holds it, which
 * this list only passes along.
 */
export interface PageEntry<T = string> {
  url: string;
  /** ISO 8601, the capture's WARC-Date. */
  ts: string;
  title?: string;
  text?: T;
  /** A focused crawl's relevance of the page to its topic. */
  relevance?: number;
}

/** A page candidate as the ordered pass needs it (its place in the package is its position in the stream). */
export interface OrderedCandidate<T = string> {
  url: string;
  /** WARC-Date as written. */
  warcDate: string;
  digest: string | null;
  /** A response: its title and text are the payload's, which revisits may borrow. */
  original: boolean;
  title?: string;
  text?: T;
  /** A focused crawl's relevance of this capture (its own, never borrowed). */
  relevance?: number;
}

export interface PageListOptions<T = string> {
  /** The crawl's seeds, profile order: the first one listed as a page is the main page. */
  seeds?: readonly string[];
  /** URLs the WARCs or journal mark as seeds (complete before the pass). */
  markedSeeds?: ReadonlySet<string>;
  /**
   * Digest → number of text-less revisits with it among the candidates.
   * Handed over, not copied: the list counts it down as revisits pass.
   */
  borrowers?: Map<string, number>;
  /**
   * Digest → the title and text of its first original, for originals that
   * come after a text-less revisit of theirs in package order. Handed over:
   * each is dropped once the last of its revisits has passed.
   */
  lateOriginals?: Map<string, Borrowed<T>>;
}

export type Borrowed<T = string> = Pick<OrderedCandidate<T>, 'title' | 'text'>;

/** A listed page as the choice of the main page keeps it: not its text. */
export type PageRef = Pick<PageEntry<unknown>, 'url' | 'ts'>;

export class PageList<T = string> {
  readonly #listed = new KeyTable();
  readonly #fp: Fp64 = { hi: 0, lo: 0 };
  readonly #seedRank = new Map<string, number>();
  readonly #markedSeeds: ReadonlySet<string>;
  /** Digest → text-less revisits still to come. */
  readonly #waiting: Map<string, number>;
  /** Digest → title/text of its first original, while revisits wait for it. */
  readonly #held = new Map<string, Borrowed<T>>();
  /** Digest → title/text of an original still ahead, for the revisits that come first. */
  readonly #late: Map<string, Borrowed<T>>;
  #count = 0;
  #bySeed: { rank: number; page: PageRef } | null = null;
  #earliestMarked: PageRef | null = null;
  #earliest: PageRef | null = null;

  constructor(opts: PageListOptions<T> = {}) {
    (opts.seeds ?? []).forEach((s, i) => {
      if (!this.#seedRank.has(s)) this.#seedRank.set(s, i);
    });
    this.#markedSeeds = opts.markedSeeds ?? new Set();
    this.#waiting = opts.borrowers ?? new Map();
    this.#late = opts.lateOriginals ?? new Map();
  }

  /** Pages listed so far. */
  get count(): number {
    return this.#count;
  }

  /** Whether a page of this URL is listed already. */
  listed(url: string): boolean {
    std64.fpInto(url, this.#fp);
    return this.#listed.has(this.#fp.hi, this.#fp.lo);
  }

  /** The next candidate in package order: its page entry, or null when its URL is already listed. */
  next(c: OrderedCandidate<T>): PageEntry<T> | null {
    let source: Borrowed<T> | undefined = c;
    if (c.original) {
      if (c.digest !== null && this.#waiting.has(c.digest) && !this.#held.has(c.digest)) {
        this.#held.set(c.digest, { ...(c.title !== undefined ? { title: c.title } : {}), ...(c.text !== undefined ? { text: c.text } : {}) });
      }
    } else if (c.title === undefined && c.text === undefined) {
      source = c.digest !== null ? this.#borrow(c.digest) : undefined;
    }
    std64.fpInto(c.url, this.#fp);
    if (!this.#listed.add(this.#fp.hi, this.#fp.lo)) return null;
    const page: PageEntry<T> = { url: c.url, ts: new Date(Date.parse(c.warcDate)).toISOString() };
    if (source?.title) page.title = source.title;
    if (source?.text) page.text = source.text;
    if (c.relevance !== undefined) page.relevance = c.relevance;
    this.#count++;
    this.#consider({ url: page.url, ts: page.ts });
    return page;
  }

  /**
   * The page a viewer opens first: the first of `seeds` (the profile's
   * order) that was listed; else the earliest page marked as a seed; else
   * the earliest page (ties: the first listed). Null without pages.
   */
  mainPage(): PageRef | null {
    return this.#bySeed?.page ?? this.#earliestMarked ?? this.#earliest;
  }

  /** A text-less revisit passes: what its digest's original holds, released after the last revisit. */
  #borrow(digest: string): Borrowed<T> | undefined {
    const source = this.#held.get(digest) ?? this.#late.get(digest);
    const left = (this.#waiting.get(digest) ?? 0) - 1;
    if (left > 0) {
      this.#waiting.set(digest, left);
    } else {
      this.#waiting.delete(digest);
      this.#held.delete(digest);
      this.#late.delete(digest);
    }
    return source;
  }

  #consider(page: PageRef): void {
    const rank = this.#seedRank.get(page.url);
    if (rank !== undefined && (this.#bySeed === null || rank < this.#bySeed.rank)) this.#bySeed = { rank, page };
    if (this.#markedSeeds.has(page.url) && (this.#earliestMarked === null || page.ts < this.#earliestMarked.ts)) this.#earliestMarked = page;
    if (this.#earliest === null || page.ts < this.#earliest.ts) this.#earliest = page;
  }
}
