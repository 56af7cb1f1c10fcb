/**
 * A crawl in one call, for tests that need no handle: Crawl.start, a
 * graceful stop when `stopSignal` aborts, and the summary.
 */
import type { LookupFunction } from 'node:net';
import type { Profile } from '../../src/config/profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../src/crawl/reports.js';

export interface RunCrawlOptions {
  profile: Profile;
  stderr: NodeJS.WritableStream;
  quiet?: boolean;
  lookup?: LookupFunction;
  /** Aborted: the crawl stops as on Ctrl-C (no new URIs, in-flight fetches finish). */
  stopSignal?: AbortSignal;
  /** Given the handle once the crawl has started. */
  onStart?: (crawl: Crawl) => void;
}

export async function runCrawl(o: RunCrawlOptions): Promise<CrawlSummary> {
  const crawl = await Crawl.start(o.profile, { log: o.stderr, ...(o.quiet !== undefined ? { quiet: o.quiet } : {}), ...(o.lookup ? { lookup: o.lookup } : {}) });
  o.onStart?.(crawl);
  const stop = (): void => void crawl.stop({ thisNodeOnly: true });
  o.stopSignal?.addEventListener('abort', stop, { once: true });
  if (o.stopSignal?.aborted) stop();
  try {
    return await crawl.done;
  } finally {
    o.stopSignal?.removeEventListener('abort', stop);
  }
}
