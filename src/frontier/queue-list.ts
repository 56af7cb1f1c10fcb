/**
 * A FIFO of work queues (the ready and inactive lists) that tolerates
 * stale entries: each entry remembers the queue's state sequence number when
 * it was listed, and `shift()` skips entries whose queue has moved on since.
 * That avoids O(n) removals from the middle when a queue changes state.
 */
import type { WorkQueue } from './work-queue.js';

interface Listed {
  queue: WorkQueue;
  seq: number;
}

export class QueueList {
  #items: Listed[] = [];
  #head = 0;

  push(queue: WorkQueue): void {
    this.#items.push({ queue, seq: queue.seq });
  }

  /** Entries are listed (some may be stale). */
  get listed(): boolean {
    return this.#head < this.#items.length;
  }

  /** The oldest queue still listed, left listed; undefined when none. */
  peek(): WorkQueue | undefined {
    while (this.#head < this.#items.length) {
      const entry = this.#items[this.#head]!;
      if (entry.seq === entry.queue.seq) return entry.queue;
      this.#head++;
      this.#compact();
    }
    return undefined;
  }

  /** The oldest queue still listed, or undefined. */
  shift(): WorkQueue | undefined {
    while (this.#head < this.#items.length) {
      const entry = this.#items[this.#head]!;
      this.#head++;
      this.#compact();
      if (entry.seq === entry.queue.seq) return entry.queue;
    }
    return undefined;
  }

  #compact(): void {
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
