/**
 * What the end of a crawl's first read of the capture journal learns,
 * gathered by the journal's writer instead, as it appends, and written in
 * the line that closes the journal: the WARC files it names (in the order
 * first named, each with the end of its last member), whether the captures
 * came in file order, the URLs marked as seeds, and per digest the
 * text-less page revisits that will borrow an original's text. With it the
 * end of a crawl skips that read (the whole journal, text and all).
 *
 * Kept only for a journal begun empty by this run and closed by it: a
 * resumed journal's earlier lines, or several nodes' journals, are read as
 * before. Past SUMMARY_MAX_ENTRIES seeds and digests it gives up (no
 * summary; the read is done), so a crawl of many revisits does not hold a
 * growing map for the whole crawl.
 */

/** Seeds plus borrowed digests beyond which no summary is kept. */
export const SUMMARY_MAX_ENTRIES = 10_000;

export interface JournalSummary {
  /** Captures summed up: every line of the journal but the closing one. */
  captures: number;
  /** WARC file name → end of its last member (offset + length), in the order the journal first names them. */
  files: [string, number][];
  /** Offsets only grew within a file, and no file was named again once another had been. */
  inOrder: boolean;
  /** URLs of captures marked `seed`. */
  markedSeeds: string[];
  /** Digest → text-less page revisits with it (what JournalPageOrder's borrowers count). */
  borrowers: [string, number][];
}

/**
 * The fields of a journal line as written that the summary reads; whether
 * the line has a title and a text (empty ones are left out) comes beside it,
 * so that a line is summed as it is, not copied into a summary's shape.
 */
export interface SummedCapture {
  url: string;
  filename: string;
  offset: number;
  length: number;
  seed: boolean;
  page: boolean;
  revisit: boolean;
  digest: string | null;
}

export class JournalSummaryBuilder {
  readonly #files = new Map<string, number>();
  readonly #markedSeeds = new Set<string>();
  readonly #borrowers = new Map<string, number>();
  #captures = 0;
  #last: string | null = null;
  #lastOffset = -1;
  #inOrder = true;
  #gaveUp = false;

  add(c: SummedCapture, hasTitle: boolean, hasText: boolean): void {
    if (this.#gaveUp) return;
    this.#captures++;
    if (c.filename !== this.#last) {
      if (this.#files.has(c.filename)) this.#inOrder = false;
      this.#last = c.filename;
      this.#lastOffset = -1;
    }
    if (c.offset <= this.#lastOffset) this.#inOrder = false;
    this.#lastOffset = Math.max(this.#lastOffset, c.offset);
    this.#files.set(c.filename, Math.max(this.#files.get(c.filename) ?? 0, c.offset + c.length));
    if (c.seed) this.#markedSeeds.add(c.url);
    if (c.page && c.revisit && !hasTitle && !hasText && c.digest !== null) this.#borrowers.set(c.digest, (this.#borrowers.get(c.digest) ?? 0) + 1);
    if (this.#markedSeeds.size + this.#borrowers.size > SUMMARY_MAX_ENTRIES) {
      this.#gaveUp = true;
      this.#markedSeeds.clear();
      this.#borrowers.clear();
      this.#files.clear();
    }
  }

  /** The summary, or null once it gave up. */
  summary(): JournalSummary | null {
    if (this.#gaveUp) return null;
    return { captures: this.#captures, files: [...this.#files], inOrder: this.#inOrder, markedSeeds: [...this.#markedSeeds], borrowers: [...this.#borrowers] };
  }
}

/** The same summary, field for field (in the same order: both were built from the same lines in the same order). */
export function sameSummary(a: JournalSummary, b: JournalSummary): boolean {
  return JSON.stringify([a.captures, a.files, a.inOrder, a.markedSeeds, a.borrowers]) === JSON.stringify([b.captures, b.files, b.inOrder, b.markedSeeds, b.borrowers]);
}

/** A closing line's `summary` checked, or null when it is missing or not one. */
export function summaryOf(v: unknown): JournalSummary | null {
  if (typeof v !== 'object' || v === null) return null;
  const s = v as Record<string, unknown>;
  const pairs = (x: unknown, second: (y: unknown) => boolean): boolean =>
    Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && second(p[1]));
  const ok = Number.isSafeInteger(s['captures']) && typeof s['inOrder'] === 'boolean' && pairs(s['files'], Number.isSafeInteger)
    && pairs(s['borrowers'], Number.isSafeInteger) && Array.isArray(s['markedSeeds']) && s['markedSeeds'].every((u) => typeof u === 'string');
  return ok ? (s as unknown as JournalSummary) : null;
}
