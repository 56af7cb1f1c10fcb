/**
 * The CDXJ index lines of a crawl, made from each capture as the capture
 * journal writes it, into the external sort the end of the crawl reads
 * the index from (LineSorter: sorted runs spilled under the job's
 * `indexes/`). The end then writes index.cdxj and the package's index
 * without reading the journal back — on OpenJDK's API docs a 67 MB read,
 * its text included, and a tenth of a second of garbage collection, all
 * after the last response.
 *
 * The lines are the ones the end would make from the same journal lines
 * (cdxjEntryOf, formatCdxjLine). finalize-job.ts takes them only when
 * every WARC of the job is covered by that one journal, with as many
 * captures, closed with its summary. A spill that fails sets them aside
 * (the end reads the journal, as before).
 */
import { mkdir, rm } from 'node:fs/promises';
import { formatCdxjLine } from '../index/cdxj.js';
import { LineSorter } from '../index/line-sorter.js';
import type { JournaledCapture } from '../job/capture-journal.js';
import { cdxjEntryOf } from './cdxj-entry.js';

/**
 * Lines held before a sorted run is spilled: the crawl holds them for as
 * long as it runs. 8 MiB let a long crawl's peak RSS climb ~20 MB between
 * spills (a crawl of 100,000 small pages: 141 MiB, against 126 MiB with
 * 2 MiB); the runs that pile up are merged as they come (LineSorter's
 * fanIn), so the end still merges a few dozen files at most.
 */
const LIVE_SORT_BUFFER_BYTES = 2 * 1024 * 1024;

export interface LiveIndexOptions {
  /** The directory its sorted runs go to (made here, removed by discard()). */
  dir: string;
  /** The journal followed: finalize-job.ts takes the lines only with this journal. */
  journal: string;
  /** Lines held before a sorted run is spilled, as LineSorter counts them. Default 2 MiB. */
  sortBufferBytes?: number;
}

/** The index lines of a crawl, ready to be written. */
export interface LiveIndexLines {
  /** Where its sorted runs are (kept by the end of the crawl's clean-up). */
  dir: string;
  journal: string;
  /** Journal captures it followed: all of the journal's. */
  captures: number;
  /** Every line, sorted when read (batches()). */
  sorter: LineSorter;
}

export class LiveIndex {
  readonly #opts: LiveIndexOptions;
  readonly #sorter: LineSorter;
  /** Spills run one after another; null once one failed. */
  #spills: Promise<void> | null;
  #captures = 0;
  #spillQueued = false;
  #ended = false;

  private constructor(opts: LiveIndexOptions) {
    this.#opts = opts;
    this.#sorter = new LineSorter({ tmpDir: opts.dir, maxBufferedBytes: opts.sortBufferBytes ?? LIVE_SORT_BUFFER_BYTES });
    this.#spills = Promise.resolve();
  }

  static async start(opts: LiveIndexOptions): Promise<LiveIndex> {
    await mkdir(opts.dir, { recursive: true });
    return new LiveIndex(opts);
  }

  /** A capture as the journal wrote it. Never throws: a line it cannot take sets the lines aside. */
  add(line: JournaledCapture): void {
    if (this.#spills === null || this.#ended) return;
    this.#captures++;
    let room: boolean;
    try {
      room = this.#sorter.add(formatCdxjLine(cdxjEntryOf(line)));
    } catch {
      this.#spills = null;
      return;
    }
    if (room || this.#spillQueued) return;
    // One spill queued at a time: it takes whatever the buffer holds when it starts.
    this.#spillQueued = true;
    this.#spills = this.#spills.then(() => {
      this.#spillQueued = false;
      return this.#sorter.spill();
    });
    this.#spills.catch(() => {
      this.#spills = null;
    });
  }

  /** The lines, once the journal is closed; null when a spill failed. */
  async finish(): Promise<LiveIndexLines | null> {
    this.#ended = true;
    await this.#spills?.catch(() => {});
    if (this.#spills === null) return null;
    return { dir: this.#opts.dir, journal: this.#opts.journal, captures: this.#captures, sorter: this.#sorter };
  }

  /** Drop the lines and their runs (the crawl failed, or the index was written). */
  async discard(): Promise<void> {
    this.#ended = true;
    await this.#spills?.catch(() => {});
    await this.#sorter.close();
    await rm(this.#opts.dir, { recursive: true, force: true });
  }
}
