/**
 * HTML link extraction on a worker thread. Parsing a page (parse5's
 * tokenizer, our scan, resolving every link) was about a tenth of the
 * crawl's main thread, the thread that limits a crawl on a small machine;
 * here it runs beside it. Pages under SMALL_PAGE_CHARS are extracted in
 * this thread: the trip would cost more than the parse.
 *
 * The worker runs compiled JavaScript only (tsx's loader does not reach
 * worker threads), so when this module runs from its TypeScript source, or
 * the worker fails, extraction happens here, with the same function and the
 * same result.
 */
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import type { HtmlExtractRequest } from './html-extract-worker.js';
import { extractHtml, type HtmlExtraction } from './link-extractor.js';

/** Pages shorter than this (in UTF-16 units) are extracted in this thread. */
export const SMALL_PAGE_CHARS = 2048;

export type HtmlExtractFn = (html: string, url: string) => Promise<HtmlExtraction>;

export class HtmlExtractThread {
  readonly #pool: BatchedWorker<HtmlExtractRequest, HtmlExtraction>;
  readonly #options: Pick<HtmlExtractRequest, 'maxLinks' | 'linkText'>;

  /**
   * `maxLinks`: distinct links taken from one page (limits.maxOutlinks); the
   * page is still read whole for its text. `linkText`: hyperlinks carry
   * their anchor and surrounding text (a focused crawl scores links by them).
   */
  constructor(opts: { maxLinks?: number; linkText?: boolean } = {}) {
    this.#pool = new BatchedWorker(compiledWorker(new URL('./html-extract-worker.js', import.meta.url)));
    this.#options = {
      ...(opts.maxLinks !== undefined ? { maxLinks: opts.maxLinks } : {}),
      ...(opts.linkText === true ? { linkText: true } : {}),
    };
  }

  /** True when extraction runs in this thread (no worker here, or it failed). */
  get fellBack(): boolean {
    return this.#pool.fellBack;
  }

  readonly extract: HtmlExtractFn = (html, url) => {
    const options = this.#options;
    const here = async (): Promise<HtmlExtraction> => extractHtml(html, url, options);
    if (html.length < SMALL_PAGE_CHARS) return here();
    return this.#pool.run({ html, url, ...options }, [], here);
  };

  close(): Promise<void> {
    return this.#pool.close();
  }
}
