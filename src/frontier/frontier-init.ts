/**
 * What a WorkQueueFrontier is opened with: the profile's frontier options
 * and politeness limits, the clock, the queue store and, for a frontier
 * shared by several processes, the hooks of that sharing.
 */
import type { FrontierOptions } from '../config/profile.js';
import type { Clock } from '../core/clock.js';
import type { ConnectionLimit } from './host-gate.js';
import type { QueueStore, SharedQueueStore } from './queue-store.js';
import type { QueueStateListener } from './queue-table.js';

export type WorkQueueFrontierInit = FrontierInitOptions & {
  /** Where the URIs are kept; one frontier at a time (the state backend's queue store in a crawl). */
  store: QueueStore;
};

/** How a SharedWorkQueueFrontier shares its queues with other processes through its store. */
export interface SharedFrontierHooks {
  store: SharedQueueStore;
  /**
   * Discovery ordinals are `n × stride + tag` (n counting up from the
   * store's `ordinal`), so sort keys made by different processes never
   * collide within a queue.
   */
  ordinalStride: number;
  ordinalTag: number;
  /** next() found nothing queued here and nothing in process: time to ask whether the crawl is over. */
  onLocalIdle(): void;
  /** A queue reached its total budget (it keeps its URIs, none is handed out). */
  onRetired(queueKey: string): void;
  /**
   * A queue taken over from another process waits this much longer than its
   * saved wake time: the two processes' clocks agree only this closely.
   */
  clockMarginMs: number;
}

export interface FrontierInitOptions {
  options: FrontierOptions;
  /** Fetches in flight per host (`politeness.maxConnectionsPerHost`), also the per-queue limit. */
  maxConnectionsPerHost: number;
  /** A host's own limit (profile overrides), at most `maxConnectionsPerHost`; default that number for every host. */
  maxConnectionsOf?: ConnectionLimit;
  /** Epoch ms. Default systemClock. */
  clock?: Clock;
  /** URIs kept in memory at the head of each active queue. Default 16. */
  headBufferSize?: number;
  /**
   * Called on every change of a queue's state, synchronously as it happens
   * (for a console or the crawl handle); it must not throw or call back
   * into the frontier.
   */
  onQueueState?: QueueStateListener;
}
