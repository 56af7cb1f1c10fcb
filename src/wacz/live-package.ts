/**
 * What a crawl makes of its package as it goes: the page list
 * (live-pages.ts) and the index lines (live-index.ts), both following the
 * capture journal. Made for a journal the run begins, in a crawl of one
 * process (the index lines alone when the job is not packaged); the end of
 * the crawl takes each part that covers the journal it reads, and makes
 * the others itself.
 */
import type { CaptureJournal } from '../job/capture-journal.js';
import { LiveIndex, type LiveIndexLines } from './live-index.js';
import { LivePages, type LivePageList } from './live-pages.js';

export interface LivePackageOptions {
  /** Where the page list's DEFLATE stream goes; null: no page list (the job is not packaged). */
  pagesFile: string | null;
  /** Where the index's sorted runs go. */
  indexDir: string;
  seeds: readonly string[];
  /** The cap on a page's text the end of the crawl would apply (0: no text). */
  maxTextChars: number;
}

/** The parts finished: each null when it was set aside. */
export interface LiveParts {
  livePages: LivePageList | null;
  liveIndex: LiveIndexLines | null;
}

export class LivePackage {
  readonly #pages: LivePages | null;
  readonly #index: LiveIndex;

  private constructor(pages: LivePages | null, index: LiveIndex) {
    this.#pages = pages;
    this.#index = index;
  }

  /** Follow `journal` from its first capture. */
  static async follow(journal: CaptureJournal, opts: LivePackageOptions): Promise<LivePackage> {
    const index = await LiveIndex.start({ dir: opts.indexDir, journal: journal.path });
    const pages = opts.pagesFile === null ? null : await LivePages.start({ file: opts.pagesFile, journal: journal.path, seeds: opts.seeds, maxTextChars: opts.maxTextChars });
    // Each part sets itself aside on any failure of its own: neither ever fails the journal's append.
    journal.follow(pages === null ? (line) => index.add(line) : (line, textJson) => {
      index.add(line);
      pages.add(line, textJson);
    });
    return new LivePackage(pages, index);
  }

  /** Once the journal is closed. */
  async finish(): Promise<LiveParts> {
    const [livePages, liveIndex] = await Promise.all([this.#pages?.finish() ?? null, this.#index.finish()]);
    return { livePages, liveIndex };
  }

  /** Remove what is left of both (after the end of the crawl, or a failure). */
  async discard(): Promise<void> {
    await Promise.all([this.#pages?.discard(), this.#index.discard()]);
  }
}
