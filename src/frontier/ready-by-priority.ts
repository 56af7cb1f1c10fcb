/**
 * The `priority` queue precedence (precedence.ts): the ready queue whose
 * head URI has the highest `CrawlUri.priority` goes first; among equals,
 * the one that became ready first. A queue is ranked by its head when
 * listed. One listed without a head in memory (its head is reloaded from the
 * store only when it is taken) ranks first, so that it is taken at once,
 * reloaded and then listed again at its true rank, keeping its turn.
 */
import { priorityOf } from '../core/crawl-uri.js';
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

function rankOf(queue: WorkQueue): number {
  const head = queue.head[0];
  return head === undefined ? Infinity : priorityOf(head.stored.u);
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
    for (let entry = this.#heap.pop(); entry !== undefined; entry = this.#heap.pop()) {
      if (entry.seq === entry.queue.seq && this.#latest.get(entry.queue) === entry) return entry.queue;
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
