/**
 * The search index of a job as the crawl and the console hold it:
 * `add(page)` for each captured page, committed in batches (a page is
 * searchable within `commitMs`), `search()`, `catchUp()` after a resume,
 * `close()`. The engine (search-store.ts) runs on a worker thread
 * ("arch-search"), so the crawl's main thread only queues pages and posts a
 * message per batch; without the compiled worker (running from the
 * TypeScript sources) or if it fails, the same code runs in this thread.
 *
 * Crash safety: a batch is one transaction, so a kill loses at most the
 * pages not yet committed; they are still in the capture journal, and
 * catchUp() adds them on the next run (a page already there is skipped, so
 * nothing is counted twice).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import { captureJournalPath } from '../job/job-dir.js';
import { SearchIndexError } from './errors.js';
import { journalFrom, rescanPaths, searchPageOf, warcPages } from './page-sources.js';
import { SearchRequestHandler, type SearchReply, type SearchRequest } from './search-requests.js';
import { SearchStore } from './search-store.js';
import type { SearchOptions, SearchPage, SearchResponse } from './search-types.js';

export interface SearchIndexOptions {
  /** Longest a page waits in memory before its batch is committed, in ms. Default 1000. */
  commitMs?: number;
  /** A batch is committed as soon as it holds this many pages. Default 256. */
  batchPages?: number;
  /** Run the engine on a worker thread. Default true (in-thread anyway when run from TypeScript sources). */
  worker?: boolean;
}

export interface CatchUpResult {
  /** Journal bytes read (from where the last catch-up stopped). */
  journalBytes: number;
  /** Pages offered from the journal and from re-read WARC files. */
  offered: number;
  /** Of those, pages that were missing from the index and were added. */
  added: number;
  /** WARC files read because the journal may lack their last captures. */
  warcsRead: number;
}

/** Meta key: the journal byte offset up to which every page has been offered to the index. */
const JOURNAL_META = 'journalOffset';

export class SearchIndex {
  readonly #dir: string;
  readonly #pool: BatchedWorker<SearchRequest, SearchReply> | null;
  readonly #local = new SearchRequestHandler();
  readonly #commitMs: number;
  readonly #batchPages: number;
  #pending: SearchPage[] = [];
  #timer: NodeJS.Timeout | null = null;
  readonly #inFlight = new Set<Promise<unknown>>();
  #failure: SearchIndexError | null = null;
  #added = 0;
  #closing: Promise<void> | null = null;

  private constructor(dir: string, opts: SearchIndexOptions) {
    this.#dir = path.resolve(dir);
    this.#commitMs = opts.commitMs ?? 1000;
    this.#batchPages = opts.batchPages ?? 256;
    this.#pool = opts.worker === false ? null : new BatchedWorker(compiledWorker(new URL('./search-worker.js', import.meta.url)));
  }

  /** Open (creating it if needed) the index in `dir`, e.g. jobSearchDir(job). Rejects with ARCHIVER_SEARCH_OPEN. */
  static async open(dir: string, opts: SearchIndexOptions = {}): Promise<SearchIndex> {
    // Opened once here, so a bad directory or another schema fails now, not on the first batch.
    SearchStore.open(dir).close();
    return new SearchIndex(dir, opts);
  }

  get dir(): string {
    return this.#dir;
  }

  /** Pages added by this handle that were new to the index (committed so far). */
  get added(): number {
    return this.#added;
  }

  /** The first commit failure (ARCHIVER_SEARCH_WRITE), or null; pages added after it are dropped. */
  get failure(): SearchIndexError | null {
    return this.#failure;
  }

  /** Queue one captured 2xx HTML page; never throws (see `failure`). Same url+timestamp twice: counted once. */
  add(page: SearchPage): void {
    if (this.#closing !== null || this.#failure !== null) return;
    this.#pending.push(page);
    if (this.#pending.length >= this.#batchPages) this.#commit();
    else this.#timer ??= setTimeout(() => this.#commit(), this.#commitMs);
  }

  /** Commit what is queued; settles once everything added so far is committed (rejects with the failure if any). */
  async flush(): Promise<void> {
    this.#commit();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    if (this.#failure !== null) throw this.#failure;
  }

  search(query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
    return this.#run({ op: 'search', dir: this.#dir, query, opts }) as Promise<SearchResponse>;
  }

  /** Pages in the index (committed). */
  count(): Promise<number> {
    return this.#run({ op: 'count', dir: this.#dir }) as Promise<number>;
  }

  /**
   * Offer the index every page of the job's capture journal written since
   * the last catch-up (or since the start), and the pages of the WARC files
   * the journal's `rescan` lines name (a kill can leave captures in a WARC
   * without their journal line); pages already indexed are skipped. Call it
   * on resume, after the journal was opened (that writes the rescan line)
   * and before the crawl adds pages.
   */
  async catchUp(jobDir: string): Promise<CatchUpResult> {
    const file = captureJournalPath(jobDir);
    const saved = Number((await this.#run({ op: 'getMeta', dir: this.#dir, key: JOURNAL_META })) ?? 0);
    const size = await stat(file).then((st) => st.size, () => 0);
    // A journal shorter than the mark is not the one the mark was taken on (a job moved aside and begun again).
    const start = Number.isSafeInteger(saved) && saved <= size ? saved : 0;
    const before = this.#added;
    let end = start;
    let offered = 0;
    const rescan = new Set<string>();
    for await (const chunk of journalFrom(file, start)) {
      for (const line of chunk.lines) {
        if (line.kind === 'rescan') for (const f of line.files) rescan.add(f);
        if (line.kind !== 'capture') continue;
        const page = searchPageOf(line.capture);
        if (page === null) continue;
        offered++;
        this.add(page);
      }
      end = chunk.end;
    }
    let warcsRead = 0;
    for (const warc of rescanPaths(jobDir, [...rescan])) {
      try {
        await warcPages(warc, async (page) => {
          offered++;
          this.add(page);
        });
        warcsRead++;
      } catch {
        // Gone, or unreadable past some record: what it held before that was offered, and the journal's lines were.
      }
    }
    await this.flush();
    await this.#run({ op: 'setMeta', dir: this.#dir, key: JOURNAL_META, value: String(end) });
    return { journalBytes: end - start, offered, added: this.#added - before, warcsRead };
  }

  /** Commit what is queued, then close the engine. Idempotent; rejects with the commit failure if one happened. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await this.flush();
      } finally {
        await this.#run({ op: 'close', dir: this.#dir }).catch(() => {});
        await this.#pool?.close();
        this.#local.closeAll();
      }
    })();
    return this.#closing;
  }

  #commit(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.length === 0) return;
    const pages = this.#pending;
    this.#pending = [];
    const done = (this.#run({ op: 'add', dir: this.#dir, pages }) as Promise<number>).then(
      (n) => {
        this.#added += n;
      },
      (err: unknown) => {
        this.#failure ??= err instanceof SearchIndexError ? err : new SearchIndexError('ARCHIVER_SEARCH_WRITE', `search index: ${(err as Error).message}`, { cause: err });
      },
    );
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
  }

  #run(req: SearchRequest): Promise<SearchReply> {
    const here = async (): Promise<SearchReply> => this.#local.handle(req);
    if (this.#pool === null) return here();
    return this.#pool.run(req, [], here);
  }
}
