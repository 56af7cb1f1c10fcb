/**
 * A crawl with Ctrl-C/SIGTERM handling, for `run` (with or without the
 * console) and `demo`: the first signal stops the crawl gracefully (no new
 * URIs, in-flight fetches finish), the second abandons the fetches in
 * flight (they stay queued for the resume). Signals stop this process
 * only: in a crawl of several processes the other nodes go on. A crawl
 * that turns out long gets V8's default optimisation back on the way
 * (long-crawl-tiering.ts).
 */
import { setFlagsFromString } from 'node:v8';
import type { Profile } from '../config/profile.js';
import { Crawl, type CrawlStartOptions } from '../crawl/crawl.js';
import type { CrawlSummary } from '../crawl/reports.js';
import { tierUpWhenLong } from './long-crawl-tiering.js';

export async function crawlWithSignals(profile: Profile, opts: CrawlStartOptions, onStart?: (crawl: Crawl) => void): Promise<CrawlSummary> {
  let crawl: Crawl | null = null;
  let interrupts = 0;
  // A signal that comes while the crawl opens is applied once it is there.
  const apply = (): void => {
    if (crawl === null || interrupts === 0) return;
    crawl.stop({ thisNodeOnly: true, abandonInFlight: interrupts >= 2 });
  };
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) opts.log.write('\narchiver: stopping — finishing in-flight fetches (Ctrl-C again to abandon them)\n');
    else if (interrupts === 2) opts.log.write('archiver: abandoning in-flight fetches (they stay queued for the resume)\n');
    else return;
    apply();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let untier = (): void => {};
  try {
    crawl = await Crawl.start(profile, opts);
    untier = tierUpWhenLong(crawl.events, setFlagsFromString);
    onStart?.(crawl);
    apply();
    return await crawl.done;
  } finally {
    untier();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
