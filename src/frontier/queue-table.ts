/**
 * The frontier's work queues by key: made on first use and never dropped
 * (a queue's figures outlive its URIs) unless handed to another process;
 * the counts over them (queues in each state, URIs stored and finished, the
 * retired queues, the last place in the inactive rotation); a listener told
 * of every change of state; and pages of them in key order for a console or
 * the crawl handle.
 */
import { QUEUE_STATES, type QueueQuery, type QueueReport, type QueueState } from './frontier.js';
import type { StoredQueue } from './queue-store.js';
import { SortedKeys } from './sorted-keys.js';
import { WorkQueue } from './work-queue.js';

export type QueueStateListener = (key: string, from: QueueState, to: QueueState) => void;

export class QueueTable {
  readonly #queues = new Map<string, WorkQueue>();
  readonly #keys = new SortedKeys();
  readonly #byState = Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>;
  readonly #onState: QueueStateListener | undefined;
  /** URIs stored in the table's queues, in-flight and set-aside ones included. */
  stored = 0;
  /** URIs finished ('done') in the table's queues, over the crawl. */
  finished = 0;
  /** Queues at their total budget: they keep their URIs and hand out none. */
  readonly retired = new Set<WorkQueue>();
  /** The last place given in the inactive rotation (WorkQueue.rotation). */
  #rotation = 0;

  constructor(onState?: QueueStateListener) {
    this.#onState = onState;
  }

  /** The queue of `key`; a new one is empty, so exhausted. */
  get(key: string): WorkQueue {
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = new WorkQueue(key);
      this.#queues.set(key, queue);
      this.#keys.add(key);
      this.#byState[queue.state]++;
    }
    return queue;
  }

  /** The queue of `key` if this table has it. */
  peek(key: string): WorkQueue | undefined {
    return this.#queues.get(key);
  }

  /**
   * The queue of `key` with the figures a store kept for it (on resume, or
   * taken over from another process): its URIs count as stored here, its
   * finished ones as finished. `wakeMarginMs`, for a queue taken over: added
   * to a saved wake time (the other process's clock agrees only so closely).
   */
  restore(key: string, saved: StoredQueue, wakeMarginMs: number | null = null): WorkQueue {
    const queue = this.get(key);
    const meta = saved.meta;
    if (meta !== null) {
      queue.restore(wakeMarginMs === null ? meta : { ...meta, w: meta.w > 0 ? meta.w + wakeMarginMs : 0 });
      this.finished += meta.f;
      this.#rotation = Math.max(this.#rotation, meta.n);
    }
    queue.count = saved.count;
    queue.allLoaded = saved.count === 0;
    this.stored += saved.count;
    return queue;
  }

  /** Forget a queue (handed to another process: see SharedWorkQueueFrontier.lose()), and its URIs with it. */
  drop(queue: WorkQueue): void {
    if (this.#queues.get(queue.key) !== queue) return;
    this.stored -= queue.count;
    this.finished -= queue.finished;
    this.retired.delete(queue);
    this.#queues.delete(queue.key);
    this.#keys.delete(queue.key);
    this.#byState[queue.state]--;
  }

  /** A URI joined the queue (stored). */
  add(queue: WorkQueue): void {
    queue.count++;
    this.stored++;
  }

  /** A URI of the queue finished ('done'): no longer stored. */
  finish(queue: WorkQueue): void {
    queue.count--;
    this.stored--;
    queue.finished++;
    this.finished++;
  }

  /** Queues that hold URIs, retired ones left out. */
  get busyQueues(): number {
    let n = 0;
    for (const queue of this.#queues.values()) if (queue.count > 0 && !queue.retired) n++;
    return n;
  }

  /** The next place in the inactive rotation. */
  nextRotation(): number {
    return ++this.#rotation;
  }

  /** URIs stored outside retired queues (those are never handed out). */
  get storedOutsideRetired(): number {
    let inRetired = 0;
    for (const queue of this.retired) inRetired += queue.count;
    return this.stored - inRetired;
  }

  /** URIs waiting in retired queues. */
  get queuedInRetired(): number {
    let n = 0;
    for (const queue of this.retired) n += queue.available;
    return n;
  }

  /** Every queue, in the order they were made. */
  values(): IterableIterator<WorkQueue> {
    return this.#queues.values();
  }

  /** The queue is now in `state`: count it there, and tell the listener if that is a change. */
  setState(queue: WorkQueue, state: QueueState): void {
    const from = queue.state;
    this.#byState[from]--;
    this.#byState[state]++;
    queue.state = state;
    if (from !== state) this.#onState?.(queue.key, from, state);
  }

  /** How many queues are in each state (a copy). */
  countByState(): Record<QueueState, number> {
    return { ...this.#byState };
  }

  /** Reports of the queues the query selects, in key order. */
  page(query: QueueQuery): QueueReport[] {
    const limit = query.limit ?? Infinity;
    const page: QueueReport[] = [];
    if (limit <= 0) return page;
    for (const key of this.#keys.after(query.after)) {
      const queue = this.#queues.get(key)!;
      if (query.state !== undefined && queue.state !== query.state) continue;
      page.push(queue.report());
      if (page.length >= limit) break;
    }
    return page;
  }
}
