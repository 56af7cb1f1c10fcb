/**
 * A crawl in one call, for the CLI and tests that need no handle: starts a
 * `Crawl` (crawl.ts), wires a graceful and a hard stop signal to it, and
 * resolves with its summary.
 */
import type { LookupFunction } from 'node:net';
import type { Clock } from '../core/clock.js';
import type { Profile } from '../config/profile.js';
import { Crawl } from './crawl.js';
import type { CrawlSummary } from './reports.js';

export { SOFTWARE } from './crawl-parts.js';

export interface CrawlerOptions {
  profile: Profile;
  /** Where progress and the summary go. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Graceful stop: no new URIs are taken, in-flight ones finish. */
  stopSignal?: AbortSignal;
  /** Hard stop: in-flight fetches are abandoned. */
  abortSignal?: AbortSignal;
  /** Custom DNS (tests, demo). */
  lookup?: LookupFunction;
  /** Epoch ms. Default systemClock. */
  clock?: Clock;
  /** State backend name; default the profile's `store`. */
  store?: string;
  /** Node id in a crawl of several processes (a shared store). */
  node?: string;
  /** Progress interval override (tests). */
  progressIntervalMs?: number;
  quiet?: boolean;
  /** Called with the crawl once it started (to steer it). */
  onStart?: (crawl: Crawl) => void;
}

export async function runCrawl(opts: CrawlerOptions): Promise<CrawlSummary> {
  const crawl = await Crawl.start(opts.profile, {
    log: opts.stderr,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.store !== undefined ? { store: opts.store } : {}),
    ...(opts.node !== undefined ? { node: opts.node } : {}),
    ...(opts.progressIntervalMs !== undefined ? { progressIntervalMs: opts.progressIntervalMs } : {}),
    ...(opts.quiet !== undefined ? { quiet: opts.quiet } : {}),
  });
  opts.onStart?.(crawl);
  // Signals stop this process; in a crawl of several processes the other nodes go on.
  const stop = (): void => void crawl.stop({ thisNodeOnly: true });
  const abandon = (): void => void crawl.stop({ abandonInFlight: true, thisNodeOnly: true });
  opts.stopSignal?.addEventListener('abort', stop, { once: true });
  opts.abortSignal?.addEventListener('abort', abandon, { once: true });
  if (opts.stopSignal?.aborted) stop();
  if (opts.abortSignal?.aborted) abandon();
  try {
    return await crawl.done;
  } finally {
    opts.stopSignal?.removeEventListener('abort', stop);
    opts.abortSignal?.removeEventListener('abort', abandon);
  }
}
