/**
 * The page list written straight from the capture journal, when the
 * journal already gives the captures in package order — one crawl process
 * that was never killed, every WARC covered by its journal: then the
 * journal's order is the order the records were appended, file after file.
 * PageCollector's external sort (every page's text serialised into it,
 * sorted, parsed back) is then work for nothing, and its buffer the largest
 * memory at the end of a crawl.
 *
 * What PageList must know before its one pass — the URLs marked as seeds
 * and, per digest, how many text-less revisits will borrow an original's
 * text — is gathered by JournalPageOrder during the journal's first read
 * (openCaptureJournals' `onCapture`), which also checks the order. The
 * second read then feeds PageList directly and writes pages.jsonl as it
 * goes; the result is the one the sorted path gives.
 */
import type { JournaledCapture } from '../job/capture-journal.js';
import { AtomicLineFile } from '../index/build-index.js';
import { PageList, type OrderedCandidate } from './page-list.js';
import { PAGES_HEADER, type WrittenPages } from './pages.js';

/** Lines written to pages.jsonl at a time. */
const WRITE_BATCH_LINES = 256;

export class JournalPageOrder {
  readonly #rank: ReadonlyMap<string, number>;
  readonly #maxTextChars: number;
  readonly markedSeeds = new Set<string>();
  readonly borrowers = new Map<string, number>();
  #lastRank = -1;
  #lastOffset = -1;
  #ordered = true;

  /** `files`: the package's WARC file names in package order; `maxTextChars`: PageCollector's cap. */
  constructor(files: readonly string[], maxTextChars: number) {
    this.#rank = new Map(files.map((f, i) => [f, i]));
    this.#maxTextChars = maxTextChars;
  }

  /** Every capture of the first read, in journal order. */
  readonly onCapture = (c: JournaledCapture): void => {
    if (c.seed) this.markedSeeds.add(c.url);
    const rank = this.#rank.get(c.filename);
    if (rank === undefined || rank < this.#lastRank || (rank === this.#lastRank && c.offset <= this.#lastOffset)) this.#ordered = false;
    else {
      this.#lastRank = rank;
      this.#lastOffset = c.offset;
    }
    if (c.page && c.revisit && c.title === undefined && c.text === undefined && c.digest !== null) {
      this.borrowers.set(c.digest, (this.borrowers.get(c.digest) ?? 0) + 1);
    }
  };

  /** Every capture came in package order, each in a file of the package. */
  get ordered(): boolean {
    return this.#ordered;
  }

  /** The candidate PageCollector would have sorted, or null for a capture that is no page. */
  candidateOf(c: JournaledCapture): OrderedCandidate | null {
    if (!c.page) return null;
    const text = c.text !== undefined && c.text.length > this.#maxTextChars ? c.text.slice(0, this.#maxTextChars) : c.text;
    return {
      url: c.url,
      warcDate: c.date,
      digest: c.digest,
      original: !c.revisit,
      ...(c.title !== undefined ? { title: c.title } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(typeof c.relevance === 'number' ? { relevance: c.relevance } : {}),
    };
  }
}

/**
 * pages.jsonl from captures in package order: `each` is called with a
 * function to hand every capture to, in order (the caller's pass over the
 * journal, which does its other work on the way).
 */
export async function writeOrderedPages(
  file: string,
  order: JournalPageOrder,
  seeds: readonly string[],
  each: (take: (c: JournaledCapture) => Promise<void>) => Promise<void>,
): Promise<WrittenPages> {
  const list = new PageList({ seeds, markedSeeds: order.markedSeeds, borrowers: order.borrowers });
  await AtomicLineFile.write(file, async (out) => {
    await out.add([JSON.stringify(PAGES_HEADER)]);
    let lines: string[] = [];
    await each(async (c) => {
      const candidate = order.candidateOf(c);
      const page = candidate === null ? null : list.next(candidate);
      if (page === null) return;
      lines.push(JSON.stringify(page));
      if (lines.length >= WRITE_BATCH_LINES) {
        const batch = lines;
        lines = [];
        await out.add(batch);
      }
    });
    await out.add(lines);
  });
  return { pages: list.count, main: list.mainPage() };
}
