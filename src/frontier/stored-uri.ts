/**
 * The shape of a queued URI as the frontier's store holds it, shared by the
 * stores (queue-store.ts) and the in-memory queues that buffer its head
 * (work-queue.ts), so neither needs the other to name it.
 */
import type { CrawlUri } from '../core/crawl-uri.js';

export interface StoredUri {
  /** Frontier-wide discovery ordinal. */
  o: number;
  u: CrawlUri;
}
