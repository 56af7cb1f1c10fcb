/**
 * The crawl's one worker thread for page work: parsing HTML (parse5's
 * tokenizer, our scan, resolving links; a focused crawl's terms) and turning
 * captures into gzip members (warcio's serialisation, SHA-1 digests,
 * deflate). On a small machine the main thread, which fetches, queues and
 * logs, limits a crawl; this takes the rest beside it. One thread for both
 * (there were two, and a third for search): each costs its own heap and
 * module copies, and a capture's body crossed twice.
 *
 * `page()` sends a capture's body once, as a moved buffer; `readStored()`
 * is for an HTML body whose records the writer builds here (too large for
 * page(), or read as a sitemap): its stored bytes are moved, and decoded and
 * parsed there, so its decoded bytes and text are never held here (the
 * main thread once decoded such a page and cloned its text across: a 30 MB
 * page held ~60 MB here and as much there). Bodies under SMALL_PAGE_BYTES
 * stay here (the trip would cost more than the parse) unless a focused
 * crawl's terms are asked for. The worker runs compiled
 * JavaScript only (tsx's loader does not reach worker threads): from the
 * TypeScript sources, or when the worker fails, the same functions run in
 * this thread with the same results.
 */
import { isHtmlMime } from '../core/html-mime.js';
import { inProcessGzip } from '../writer/gzip-member.js';
import { extractStored, MAX_DECODED_BYTES, type ExtractOptions, type StoredExtraction } from './extract-for.js';
import type { StoredHtmlReader } from './outlinks.js';
import { pageResultOf, pageWork, warcInfoReply, type PageReply, type PageRequest, type PageResult, type WarcInfoReply } from './page-work.js';
import type { WarcInfoInput } from '../writer/warc-records.js';
import { pageWorker, type PageWorker } from './page-worker-start.js';
import { KNOWN_THERE_CAPACITY } from './known-links.js';

/** Stored bodies shorter than this are read in this thread by `readStored()`. */
export const SMALL_PAGE_BYTES = 2048;

/**
 * Default of `pagesBeforeWorker`: HTML pages worked here before the worker
 * (~25 MB of heap and module copies) is started, unless the crawl started
 * it (readyWithin, or a worker started ahead of it). One, the seed: the
 * worker starts with the first page beyond it, so a crawl of one page,
 * whatever it embeds, never starts it
 * (robots.txt, images, scripts and style sheets do not count). Captures
 * are still worked here until the worker is ready: its start (loading its
 * modules, warming up: ~0.1 s on a small machine) overlaps the crawl
 * instead of holding it. Captures sent to a worker still
 * starting waited for it: 150-180 ms of the PostgreSQL docs' crawl with no
 * request made (notes/performance-history.md).
 */
export const PAGES_BEFORE_WORKER = 1;

/**
 * How long a crawl that follows links waits for its page thread before it
 * begins without it (readyWithin). The thread is ready 0.15–0.25 s after it
 * starts; the CLI starts it before it validates the profile
 * (page-worker-start.ts), so most of that overlaps the crawl's own start
 * and the crawl waits ~0–50 ms, loading warcio meanwhile (crawl-start.ts).
 * On a machine busy elsewhere it can take several times that: the wait is
 * cut short so that the first request still goes out within ~0.5 s of the
 * start (notes/performance-history.md).
 */
export const PAGE_THREAD_WAIT_MS = 250;

export interface PageThreadOptions extends ExtractOptions {
  /** HTML pages worked in this thread before the worker is started (default PAGES_BEFORE_WORKER; 0: the first starts it); until it is ready, captures are still worked here. */
  pagesBeforeWorker?: number;
  /** A worker started ahead of the crawl (page-worker-start.ts) to use instead of making one; this thread closes it with its own. */
  worker?: PageWorker;
}

export class PageThread {
  /** Replies come from the worker; PageResults from the in-process fallback. */
  readonly #pool: PageWorker;
  readonly #options: ExtractOptions;
  /** Link URLs to tell the worker with the next page (knowLinks); null in a focused crawl. */
  #known: string[] | null;
  /** HTML pages still to work here before the worker starts. */
  #pagesBefore: number;

  /** `maxLinks`: limits.maxOutlinks; `focusTerms`: a focused crawl's terms come with each page; `text` false: pages' text is not gathered. */
  constructor(opts: PageThreadOptions = {}) {
    this.#pagesBefore = opts.pagesBeforeWorker ?? PAGES_BEFORE_WORKER;
    this.#known = opts.focusTerms === true ? null : [];
    this.#pool = opts.worker ?? pageWorker();
    this.#options = {
      ...(opts.maxLinks !== undefined ? { maxLinks: opts.maxLinks } : {}),
      ...(opts.focusTerms === true ? { focusTerms: true } : {}),
      ...(opts.text === false ? { text: false } : {}),
    };
  }

  /** True when the work runs in this thread (no worker here, or it failed). */
  get fellBack(): boolean {
    return this.#pool.fellBack;
  }

  /** True once the worker was started (it may still be loading). */
  get started(): boolean {
    return this.#pool.started;
  }

  /** Start the worker now (if need be) and wait until it takes work: true then, false when the work stays in this thread. */
  whenReady(): Promise<boolean> {
    return this.#pool.whenReady();
  }

  /**
   * whenReady(), but waiting `ms` at most: false then, and the captures are
   * worked here until the worker is ready. A crawl that follows links begins
   * once its page thread is ready (crawl-start.ts): pages worked here
   * meanwhile each ran cold, and made V8 compile the page work a second
   * time, in this thread's isolate.
   */
  async readyWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.whenReady(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether this work goes to the worker: only once it is ready. The first
   * HTML page past `pagesBeforeWorker` (`htmlPage`: this work is one) starts it.
   */
  #toWorker(htmlPage: boolean): boolean {
    if (this.#pool.started) return this.#pool.ready;
    if (!htmlPage) return false;
    if (this.#pagesBefore > 0) this.#pagesBefore--;
    else this.#pool.start();
    return false;
  }

  /**
   * Link URLs the crawl has put through its seen filter (LinkScheduler's
   * onKnown), told to the worker with the next page it is sent: it stops
   * sending them back. Not in a focused crawl, which scores every link.
   * Held here meanwhile up to KNOWN_THERE_CAPACITY (more would be dropped
   * by the worker's set anyway).
   */
  knowLinks(urls: readonly string[]): void {
    const known = this.#known;
    if (known === null) return;
    for (const url of urls) known.push(url);
    if (known.length > KNOWN_THERE_CAPACITY) known.splice(0, known.length - KNOWN_THERE_CAPACITY);
  }

  /** The options every extraction of this crawl uses (a page request carries them). */
  get extractOptions(): ExtractOptions {
    return this.#options;
  }

  /**
   * A capture's outlinks and records. Copies of the body and request head
   * are moved to the worker; `req` itself stays whole for the fallback
   * (a worker that dies after the move leaves nothing to redo it from).
   */
  async page(req: PageRequest): Promise<PageResult> {
    const here = (): Promise<PageResult> => pageWork(req, inProcessGzip);
    if (!this.#toWorker(req.extraction !== null && isHtmlMime(req.extraction.mime))) return here();
    const body = new Uint8Array(req.body);
    const requestHead = new Uint8Array(req.exchange.requestHead);
    const known = this.#known;
    if (known !== null) this.#known = [];
    const moved: PageRequest = { ...req, body, exchange: { ...req.exchange, requestHead }, ...(known !== null ? { known } : {}) };
    const reply = await this.#pool.run({ op: 'page', page: moved }, [body.buffer, requestHead.buffer], here);
    return 'found' in reply ? reply : pageResultOf(reply as PageReply);
  }

  /**
   * A WARC file's warcinfo member (WarcWriterOptions.warcInfo): made on the
   * worker once it is ready, which has warcio loaded for its captures, so
   * that this thread need not load it at all; made here otherwise.
   */
  async warcInfo(info: WarcInfoInput): Promise<Buffer> {
    const here = (): Promise<WarcInfoReply> => warcInfoReply(info, inProcessGzip);
    const reply = (this.#toWorker(false) ? await this.#pool.run({ op: 'warcinfo', info }, [], here) : await here()) as WarcInfoReply;
    return Buffer.from(reply.warcinfo);
  }

  /**
   * A stored HTML body decoded and parsed on the worker: a copy of its
   * stored bytes is moved there (at most MAX_DECODED_BYTES of them, past
   * which nothing is looked at: `capped` then). The fallback reads the body
   * itself here, as the copy may be gone with a worker that died.
   */
  readonly readStored: StoredHtmlReader = async (body, headers, url) => {
    const options = this.#options;
    const here = (): Promise<StoredExtraction> => extractStored(body, headers, url, options);
    // Cutting a focused crawl's terms (ICU's segmenter) outweighs the trip even for a small page.
    if (!this.#toWorker(true) || (body.size < SMALL_PAGE_BYTES && options.focusTerms !== true)) return here();
    const stored = body.ownHead !== undefined ? await body.ownHead(MAX_DECODED_BYTES) : new Uint8Array(await body.head(MAX_DECODED_BYTES));
    const cut = body.size > stored.length;
    const request = { op: 'readStored' as const, stored, headers, url, ...options };
    const read = (await this.#pool.run(request, [stored.buffer], here)) as StoredExtraction;
    return cut ? { ...read, capped: true } : read;
  };

  close(): Promise<void> {
    return this.#pool.close();
  }
}
