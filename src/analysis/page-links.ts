/**
 * From a page's stored body to its title and resolved links — decoded
 * (chunked framing, Content-Encoding, charset), scanned and resolved — in
 * this thread or on a pool of worker threads. The reading thread only
 * inflates and splits records and builds the graph; the bytes of each page
 * go to a worker, which sends back the title and the distinct links. Pages
 * under SMALL_PAGE_BYTES stay in this thread (the trip would cost more),
 * and so does everything when workers cannot run (from TypeScript sources
 * under tsx) or fail: same function, same result.
 */
import os from 'node:os';
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import { decodeText, detectCharset, looksLikeHtml } from '../fetch/charset.js';
import { dechunk, decodeContent, DEFAULT_BODY_DECODE } from '../fetch/content-decoding.js';
import { extractLinks } from './html-links.js';
import { resolveLinks } from './link-extract.js';

/** A 2xx capture that may be a page: its stored body and the headers needed to read it. */
export interface PageBody {
  body: Uint8Array;
  /** The page's URL (href), for resolving its links. */
  url: string;
  contentType: string | null;
  contentEncoding: string | null;
  /** Transfer-Encoding says chunked (the body may still be stored de-chunked). */
  chunked: boolean;
  /** No Content-Type: a page only if the body starts like an HTML document. */
  sniff: boolean;
}

export interface PageLinks {
  title: string;
  /** Resolved http(s) links, fragments removed, each once, in document order. */
  links: string[];
}

/** Bodies shorter than this are read in the calling thread (a compressed one counts four times its size). */
export const SMALL_PAGE_BYTES = 2048;
/** Pages sent to a worker in one message at most: it starts on them while this thread reads on. */
const PAGES_PER_MESSAGE = 16;

/** The page's title and links; null when the body, sniffed, is no HTML. Throws BodyDecodeError. */
export function pageLinksHere(page: PageBody): PageLinks | null {
  let body = page.chunked ? dechunk(page.body) : page.body;
  body = decodeContent(body, page.contentEncoding, DEFAULT_BODY_DECODE);
  if (page.sniff && !looksLikeHtml(body)) return null;
  const found = extractLinks(decodeText(body, detectCharset(body, page.contentType)));
  return { title: found.title, links: [...new Set(resolveLinks(new URL(page.url), found))] };
}

export class PageLinksPool {
  readonly #workers: BatchedWorker<PageBody, PageLinks | null>[];
  #next = 0;

  /** `threads`: default one per core beyond the reading thread's, at least one. */
  constructor(threads = Math.max(1, Math.min(8, os.availableParallelism() - 1))) {
    this.#workers = Array.from(
      { length: threads },
      () =>
        new BatchedWorker<PageBody, PageLinks | null>(compiledWorker(new URL('./page-links-worker.js', import.meta.url)), {
          maxBatch: PAGES_PER_MESSAGE,
        }),
    );
  }

  /** True when extraction runs in the calling thread (no workers here, or they failed). */
  get fellBack(): boolean {
    return this.#workers.every((w) => w.fellBack);
  }

  extract(page: PageBody): Promise<PageLinks | null> {
    const here = async (): Promise<PageLinks | null> => pageLinksHere(page);
    if (page.body.length * (page.contentEncoding === null ? 1 : 4) < SMALL_PAGE_BYTES) return here();
    const worker = this.#workers[this.#next++ % this.#workers.length]!;
    // A view would take its whole underlying buffer along (a record, or a pool slab): move an exact copy.
    const body = page.body.slice();
    return worker.run({ ...page, body }, [body.buffer], here);
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.close()));
  }
}
