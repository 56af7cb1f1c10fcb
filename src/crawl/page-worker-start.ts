/**
 * The page thread's worker (page-worker.ts), made: by PageThread when its
 * crawl comes to need it, or ahead of the crawl by whoever knows it will.
 * The CLI starts it as soon as the profile's JSON says the crawl follows
 * links, before it validates the profile and loads the crawl's own modules:
 * the worker loads and warms up (~0.2 s) beside that, and the crawl finds it
 * ready or nearly (why that matters: PageThread.readyWithin). Imports
 * nothing of the page work itself, so that starting the worker loads next
 * to nothing here.
 */
import { BatchedWorker, compiledWorker } from '../core/batched-worker.js';
import { awaitLinked, LINKED_KEY, linkedCell } from '../core/linked-signal.js';
import type { PageResult } from './page-work.js';
import type { PageThreadReply, PageThreadRequest } from './page-worker.js';

/**
 * The page thread's young generation, in MB: two semi-spaces of half of it
 * (V8 rounds each down to a power of two), made whole with the thread's
 * heap (core/crawl-heap.ts). Left to V8 it grows to 16 MB a semi-space
 * while the thread turns page after page into strings. 8 took 10–17 MB off
 * the Debian doc sites' peak RSS, 2 another 6–11 MB: four times the
 * scavenges of 8 (~350 → ~1,480 on the Python docs), each cheaper, ~0.2–0.3 s
 * more of this thread's time in all (`--trace-gc`). 4 and 8 measured again
 * since (ten alternated crawls of the PostgreSQL docs each): the same CPU
 * and wall as 2, and up to 7 MB more.
 */
const YOUNG_GENERATION_MB = 2;

/** The worker as PageThread drives it: page requests in, replies out (or the same work done here, when it cannot run). */
export type PageWorker = BatchedWorker<PageThreadRequest, PageThreadReply | PageResult>;

/** A page worker, not yet started (BatchedWorker starts it with its first work, or start()); `workerData` as node's Worker takes it. */
export function pageWorker(workerData?: Record<string, unknown>): PageWorker {
  return new BatchedWorker(compiledWorker(new URL('./page-worker.js', import.meta.url), { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }, workerData));
}

/** The worker startPageWorkerFirst started, until the crawl takes it (takeFirstPageWorker). */
let first: PageWorker | null = null;

/**
 * A page worker started now, before the process sets any V8 flag
 * (cli/page-thread-first.ts): kept here for the crawl to take
 * (takeFirstPageWorker). `awaitLinked(ms)` blocks this thread until the
 * worker's modules are loaded, at most `ms`: flags set after that leave
 * its node modules compiled (core/linked-signal.ts). False when it timed
 * out, or no worker could start.
 */
export function startPageWorkerFirst(): { awaitLinked: (ms: number) => boolean } {
  const cell = linkedCell();
  const worker = pageWorker({ [LINKED_KEY]: cell });
  worker.start();
  first = worker;
  return { awaitLinked: (ms) => !worker.fellBack && awaitLinked(cell, ms) };
}

/** The worker startPageWorkerFirst started, once; undefined when none was, or it was taken. */
export function takeFirstPageWorker(): PageWorker | undefined {
  const worker = first ?? undefined;
  first = null;
  return worker;
}

/** A page worker started now, for a crawl about to begin: hand it to the crawl (CrawlStartOptions.pageWorker), which closes it. */
export function startPageWorker(): PageWorker {
  const worker = pageWorker();
  worker.start();
  return worker;
}
