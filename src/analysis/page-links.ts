/**
 * A page's title and resolved links, extracted in this thread or by a pool
 * of worker threads. Tokenizing HTML is about two thirds of reading a WARC
 * set; the pool spreads it over the machine's cores while the reading
 * thread parses records, decodes bodies and builds the graph. Pages under
 * SMALL_PAGE_CHARS stay in this thread (the trip would cost more), and so
 * does everything when workers cannot run (from TypeScript sources under
 * tsx) or fail: same function, same result.
 */
import os from 'node:os';
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import { extractLinks, resolveLinks } from './link-extract.js';

export interface PageLinksRequest {
  html: string;
  /** The page's URL (href), for resolving its links. */
  url: string;
}

export interface PageLinks {
  title: string;
  /** Resolved http(s) links, fragments removed, in document order (duplicates possible). */
  links: string[];
}

/** Pages shorter than this (UTF-16 units) are extracted in the calling thread. */
export const SMALL_PAGE_CHARS = 2048;

export function pageLinksHere(html: string, url: string): PageLinks {
  const found = extractLinks(html);
  return { title: found.title, links: resolveLinks(new URL(url), found) };
}

export class PageLinksPool {
  readonly #workers: BatchedWorker<PageLinksRequest, PageLinks>[];
  #next = 0;

  /** `threads`: default one per core beyond the reading thread's, at least one. */
  constructor(threads = Math.max(1, Math.min(8, os.availableParallelism()))) {
    this.#workers = Array.from({ length: threads }, () => new BatchedWorker<PageLinksRequest, PageLinks>(compiledWorker(new URL('./page-links-worker.js', import.meta.url))));
  }

  /** True when extraction runs in the calling thread (no workers here, or they failed). */
  get fellBack(): boolean {
    return this.#workers.every((w) => w.fellBack);
  }

  extract(html: string, url: string): Promise<PageLinks> {
    const here = async (): Promise<PageLinks> => pageLinksHere(html, url);
    if (html.length < SMALL_PAGE_CHARS) return here();
    const worker = this.#workers[this.#next++ % this.#workers.length] as BatchedWorker<PageLinksRequest, PageLinks>;
    return worker.run({ html, url }, [], here);
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
  }
}
