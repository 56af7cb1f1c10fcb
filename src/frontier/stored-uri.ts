/**
 * The shape of a queued URI as the frontier's store holds it, shared by the
 * store (queue-store.ts) and the in-memory queues that buffer its head
 * (work-queue.ts), so neither needs the other to name it.
 */
import type { CrawlUri } from '../core/crawl-uri.js';

export interface StoredUri {
  /** Frontier-wide discovery ordinal. */
  o: number;
  u: CrawlUri;
}

export type StoredEntry = readonly [key: Buffer, value: StoredUri];

export interface ReadResult {
  entries: StoredEntry[];
  last: Buffer | null;
  complete: boolean;
}
