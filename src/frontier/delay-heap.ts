/**
 * The snoozed queues ordered by wake time: (time, item) pairs on a binary
 * heap (binary-heap.ts). Entries are never updated in place; the frontier
 * pushes a fresh entry when a wake time changes and ignores stale ones when
 * popped.
 */
import { BinaryHeap } from './binary-heap.js';

interface Entry<T> {
  at: number;
  item: T;
}

export class DelayHeap<T> {
  readonly #heap = new BinaryHeap<Entry<T>>((a, b) => a.at < b.at);

  get size(): number {
    return this.#heap.size;
  }

  push(at: number, item: T): void {
    this.#heap.push({ at, item });
  }

  /** Earliest time in the heap, or Infinity when empty. */
  peekTime(): number {
    return this.#heap.peek()?.at ?? Infinity;
  }

  /** Remove and return the earliest entry. */
  pop(): Entry<T> | undefined {
    return this.#heap.pop();
  }
}
