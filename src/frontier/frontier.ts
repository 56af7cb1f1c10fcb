/**
 * The Frontier contract: what the crawl loop sees of the URI queue. Two
 * frontiers implement it and run the same conformance suite
 * (test/frontier/conformance.ts): the work-queue frontier of one process
 * (work-queue-frontier.ts, over a LevelDB or in-memory queue store) and
 * the Redis frontier, whose nodes share the queues under per-queue leases
 * (redis-frontier.ts). So nothing here may assume one process.
 */
import type { CrawlUri } from '../core/crawl-uri.js';

/** A URI handed to a worker; give it back to `finished()` exactly once. */
export interface Claim {
  readonly uri: CrawlUri;
  readonly queueKey: string;
  /** `host:port` of `uri.url` (port always present), the unit of politeness. */
  readonly host: string;
}

export type Outcome = (
  /** Finished (success or final failure): remove it; snooze the queue and the host `delayMs`. */
  | { kind: 'done'; delayMs: number }
  /** Transport failure: keep it at the head with retries+1; snooze `delayMs`. */
  | { kind: 'retry'; delayMs: number }
  /**
   * Needs a prerequisite first (robots.txt): the prerequisite goes ahead of it
   * in the same queue; the URI stays queued.
   */
  | { kind: 'defer'; delayMs: number; prerequisite?: CrawlUri }
) & {
  /**
   * The delay is a failure hold of the claim's host (robots.txt
   * unavailable, transport failure), not a politeness delay: the host is
   * held `delayMs` (even after released()), and where a queue holds several
   * hosts its other hosts' URIs go on meanwhile — the held host's URIs are
   * set aside as they reach the head, and come back when the hold ends.
   */
  hostHeld?: true;
};

/**
 * Heritrix queue states. `snoozed` also covers a queue waiting for its host
 * to free a connection, or for holds to end when all its waiting URIs are
 * set aside (then `wakeAt` is null).
 */
export type QueueState = 'inactive' | 'ready' | 'in-process' | 'snoozed' | 'retired' | 'exhausted';
export const QUEUE_STATES: readonly QueueState[] = ['inactive', 'ready', 'in-process', 'snoozed', 'retired', 'exhausted'];

export interface FrontierStats {
  /**
   * URIs scheduled and not yet finished ('done'), in-process ones included
   * (Heritrix's queuedUriCount), retired queues included (they count as remaining).
   */
  queued: number;
  /** URIs handed out by next() and not yet finished. */
  inProcess: number;
  /** URIs finished with 'done'. */
  finished: number;
  /** Of `queued`, those sitting in retired queues (never fetched this session). */
  queuedInRetired: number;
  /** Of `queued`, those set aside while their host is held (see Outcome.hostHeld). */
  setAside: number;
  /** Number of queues in each state. */
  queuesByState: Record<QueueState, number>;
}

export interface QueueReport {
  key: string;
  state: QueueState;
  /** URIs waiting in this queue (in-process ones not included, set-aside ones included). */
  queued: number;
  inProcess: number;
  /** Of `queued`, those set aside while their host is held. */
  setAside: number;
  finished: number;
  /** Cost units spent over the queue's life (1 per URI handed out). */
  budgetSpent: number;
  /** Cost units spent since the queue was last activated. */
  sessionSpent: number;
  /** Epoch ms the queue may hand out its next URI, or null when not snoozed on a time. */
  wakeAt: number | null;
}

/** A page of queues, in queue-key order (plain code-unit string order). */
export interface QueueQuery {
  /** Only queues in this state. */
  state?: QueueState;
  /** At most this many; default all. */
  limit?: number;
  /** Only queues whose key sorts after this one: the last key of the previous page. */
  after?: string;
}

export interface Frontier {
  /** Queue URIs that already passed the scope and seen checks. */
  schedule(uris: readonly CrawlUri[]): Promise<void>;
  /**
   * Resolve with a URI that may be fetched now, waiting as long as needed.
   * Null once nothing is queued (outside retired queues) or in process — the
   * crawl is done — or when `signal` aborts or the frontier closes.
   */
  next(signal?: AbortSignal): Promise<Claim | null>;
  /**
   * The fetch of a claimed URI is over (its connection is free) while the
   * URI is still being processed: its host may be fetched again once
   * `delayMs` has passed, and its queue may hand out its next URI, without
   * waiting for the WARC write, the logs and the outlinks. The URI itself
   * stays stored and in process until finished(); a crash before that
   * fetches it again. Optional per URI; calling it twice does nothing.
   */
  released(claim: Claim, delayMs: number): Promise<void>;
  /**
   * The URI is done with. After released(), a 'done' outcome's delay is
   * not applied again (it was, from the end of the fetch); other outcomes'
   * delays (retries, Retry-After) still are.
   */
  finished(claim: Claim, outcome: Outcome): Promise<void>;
  stats(): FrontierStats;
  /** Queues in key order; with a query, one page of them. */
  queues(query?: QueueQuery): QueueReport[];
  /** Queues held here that hold URIs, retired ones left out (a node's share of a crawl of several processes). */
  readonly busyQueues: number;
  /** Wake every waiting next() with null; the store stays open (its owner closes it). */
  close(): Promise<void>;
}
