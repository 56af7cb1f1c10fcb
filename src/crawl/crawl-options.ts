/**
 * What a caller hands the Crawl handle and gets back from it besides the
 * status (crawl-status.ts): the start options (and what the start settles
 * from them), the answers of addSeeds and exclude, and the paging of its
 * queue and host lists.
 */
import type { LookupFunction } from 'node:net';
import type { Clock } from '../core/clock.js';
import type { PageWorker } from './page-worker-start.js';

export interface CrawlStartOptions {
  /** Where progress, notices and the summary go (stderr). */
  log: NodeJS.WritableStream & { isTTY?: boolean };
  /** State backend name; default the profile's `store`. */
  store?: string;
  /** Node id in a crawl of several processes (a shared store); default the hostname. Refused for a store of one process. */
  node?: string;
  /** Start over: the job's earlier crawl goes aside (a shared store forgets it). Without it a finished job is left alone (JobFinishedError). */
  fresh?: boolean;
  /** Where the profile was read from, named in the errors about it. */
  profileFile?: string;
  /** Epoch ms. Default the system clock (a shared store's clock, in step with Redis, when it has one). */
  clock?: Clock;
  /** Custom DNS (tests, demo). */
  lookup?: LookupFunction;
  /** Progress display interval (default 5 s, 0.5 s on a TTY). */
  progressIntervalMs?: number;
  /** No progress display, notices or summary. */
  quiet?: boolean;
  /**
   * The page thread's worker, started ahead of the crawl (page-worker-start.ts; the CLI starts it
   * once it has read a profile that follows links). The crawl takes it over and closes it; the
   * caller closes it too when the crawl fails to start (closing twice is harmless).
   */
  pageWorker?: PageWorker;
}

/** What the run policy settled at the start (crawl-start.ts). */
export interface RunPlan {
  /** The backend's spec. */
  spec: string;
  /** This process's node id in a crawl of several processes; null: one process is the crawl. */
  node: string | null;
}

export interface AddSeedsResult {
  added: string[];
  rejected: Array<{ url: string; reason: string }>;
}

export interface ExcludeResult {
  /** Whether the exclusion is new (false: the job had it already). */
  added: boolean;
  /**
   * Queued URIs dropped at once: 0, by design. URIs queued before the
   * exclusion are dropped as they come up (logged -6000 deletedByOperator
   * when claimed), because dropping them at once would mean reading every
   * queue of the store. The field is part of the console's answer to
   * `POST /api/crawl/exclude` (`{regex, added, dropped}`).
   */
  dropped: number;
}

export interface PageQuery {
  limit?: number;
  /** Key (queue key, host) after which the page starts; omitted: from the first. */
  after?: string;
}

/** Rows in a page of queues or hosts when the caller gives no limit. */
const DEFAULT_PAGE = 100;

/** A page of `items` (sorted by `key`): those after `q.after`, at most `q.limit`. */
export function page<T>(items: T[], key: (item: T) => string, q: PageQuery): T[] {
  const start = q.after === undefined ? 0 : items.findIndex((item) => key(item) > q.after!);
  const limit = Math.max(1, Math.min(q.limit ?? DEFAULT_PAGE, 10_000));
  return start < 0 ? [] : items.slice(start, start + limit);
}
