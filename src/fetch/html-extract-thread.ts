/**
 * HTML link extraction on a worker thread. Parsing a page (parse5's
 * tokenizer, our scan, resolving every link) was about a tenth of the
 * crawl's main thread, the thread that limits a crawl on a small machine;
 * here it runs beside it. Pages under SMALL_PAGE_CHARS are extracted in
 * this thread: the trip would cost more than the parse — unless a focused
 * crawl's terms are asked for (src/focus/page-terms.ts): cutting words with
 * ICU costs more than any parse.
 *
 * The worker runs compiled JavaScript only (tsx's loader does not reach
 * worker threads), so when this module runs from its TypeScript source, or
 * the worker fails, extraction happens here, with the same function and the
 * same result.
 */
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import { withFocusTerms } from '../focus/page-terms.js';
import type { HtmlExtractRequest } from './html-extract-worker.js';
import { extractHtml, type HtmlExtraction } from './link-extractor.js';

/** Pages shorter than this (in UTF-16 units) are extracted in this thread. */
export const SMALL_PAGE_CHARS = 2048;

export type HtmlExtractFn = (html: string, url: string) => Promise<HtmlExtraction>;

export class HtmlExtractThread {
  readonly #pool: BatchedWorker<HtmlExtractRequest, HtmlExtraction>;
  readonly #options: Pick<HtmlExtractRequest, 'maxLinks' | 'focusTerms'>;

  /**
   * `maxLinks`: distinct links taken from one page (limits.maxOutlinks); the
   * page is still read whole for its text. `focusTerms`: the page and its
   * hyperlinks (anchor, surrounding text, URL) come with the terms a
   * focused crawl scores, cut on the worker (src/focus/page-terms.ts).
   */
  constructor(opts: { maxLinks?: number; focusTerms?: boolean } = {}) {
    this.#pool = new BatchedWorker(compiledWorker(new URL('./html-extract-worker.js', import.meta.url)));
    this.#options = {
      ...(opts.maxLinks !== undefined ? { maxLinks: opts.maxLinks } : {}),
      ...(opts.focusTerms === true ? { focusTerms: true } : {}),
    };
  }

  /** True when extraction runs in this thread (no worker here, or it failed). */
  get fellBack(): boolean {
    return this.#pool.fellBack;
  }

  readonly extract: HtmlExtractFn = (html, url) => {
    const options = this.#options;
    const here = async (): Promise<HtmlExtraction> => extractFor(html, url, options);
    // Cutting a focused crawl's terms (ICU's segmenter) outweighs the trip even for a small page.
    if (html.length < SMALL_PAGE_CHARS && options.focusTerms !== true) return here();
    return this.#pool.run({ html, url, ...options }, [], here);
  };

  close(): Promise<void> {
    return this.#pool.close();
  }
}

/** What the worker does with a request, and the fallback in this thread. */
export function extractFor(html: string, url: string, o: Omit<HtmlExtractRequest, 'html' | 'url'>): HtmlExtraction {
  const page = extractHtml(html, url, { ...(o.maxLinks !== undefined ? { maxLinks: o.maxLinks } : {}), ...(o.focusTerms === true ? { linkText: true } : {}) });
  return o.focusTerms === true ? withFocusTerms(page) : page;
}
