/**
 * The lists of the `priority` queue precedence (precedence.ts), ready and
 * inactive alike: the queue whose next URI has the highest
 * `CrawlUri.priority` goes first; among equals, the one listed first. A
 * queue is ranked when listed by its next URI (WorkQueue.nextRank: its head,
 * or for an idle queue the rank kept for it). One whose next URI is not
 * known without a read of the store ranks first, so that it is taken at
 * once, read and then listed again at its true rank, keeping its turn.
 */
import { BinaryHeap } from './binary-heap.js';
import type { ReadyQueues } from './ready-queues.js';
import type { WorkQueue } from './work-queue.js';

interface Entry {
  queue: WorkQueue;
  /** The queue's seq when listed: a later state change makes the entry stale. */
  seq: number;
  rank: number;
  /** When it became ready: first-in first-out among equal ranks. */
  turn: number;
}

/** The queue's rank in a priority list: its next URI's priority, Infinity when not known. */
export function rankOf(queue: WorkQueue): number {
  const rank = queue.nextRank;
  return Number.isNaN(rank) ? Infinity : rank;
}

export class ReadyByPriority implements ReadyQueues {
  readonly #heap = new BinaryHeap<Entry>((a, b) => a.rank > b.rank || (a.rank === b.rank && a.turn < b.turn));
  /** Each queue's latest entry: its rank as listed, and its turn. */
  readonly #latest = new Map<WorkQueue, Entry>();
  #turns = 0;

  get listed(): boolean {
    return this.#heap.size > 0;
  }

  push(queue: WorkQueue): void {
    this.#list(queue, ++this.#turns);
  }

  shift(): WorkQueue | undefined {
    const queue = this.peek();
    if (queue !== undefined) this.#heap.pop();
    return queue;
  }

  peek(): WorkQueue | undefined {
    for (let entry = this.#heap.peek(); entry !== undefined; entry = this.#heap.peek()) {
      if (entry.seq === entry.queue.seq && this.#latest.get(entry.queue) === entry) return entry.queue;
      this.#heap.pop();
    }
    return undefined;
  }

  inPlace(queue: WorkQueue): boolean {
    return this.#latest.get(queue)?.rank === rankOf(queue);
  }

  rerank(queue: WorkQueue): void {
    this.#list(queue, this.#latest.get(queue)?.turn ?? ++this.#turns);
  }

  #list(queue: WorkQueue, turn: number): void {
    const entry = { queue, seq: queue.seq, rank: rankOf(queue), turn };
    this.#latest.set(queue, entry);
    this.#heap.push(entry);
  }
}
