/**
 * The frontier's work queues by key: made on first use and never dropped
 * (a queue's figures outlive its URIs) unless handed to another process, how many are in each state, a
 * listener told of every change of state, and pages of them in key order
 * for a console or the crawl handle.
 */
import { QUEUE_STATES, type QueueQuery, type QueueReport, type QueueState } from './frontier.js';
import { SortedKeys } from './sorted-keys.js';
import { WorkQueue } from './work-queue.js';

export type QueueStateListener = (key: string, from: QueueState, to: QueueState) => void;

export class QueueTable {
  readonly #queues = new Map<string, WorkQueue>();
  readonly #keys = new SortedKeys();
  readonly #byState = Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>;
  readonly #onState: QueueStateListener | undefined;

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

  /** Forget a queue (handed to another process: see WorkQueueFrontier.lose()). */
  drop(queue: WorkQueue): void {
    if (this.#queues.get(queue.key) !== queue) return;
    this.#queues.delete(queue.key);
    this.#keys.delete(queue.key);
    this.#byState[queue.state]--;
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
