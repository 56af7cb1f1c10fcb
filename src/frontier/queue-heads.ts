/**
 * Which URI goes next, and what of a queue is read into memory for it.
 * `next()` wakes the queues whose snooze or holds ended, then walks the
 * ready list (and, when it runs dry, activates inactive queues in rotation)
 * to the first queue whose head may be fetched now by the host gate; a
 * queue whose host is full is parked on it, one whose host is inside a
 * delay snoozed until then. A head is read from the store (write-behind.ts)
 * only when the queue's buffer runs out, skipping URIs still arriving (their
 * put has not landed: see WorkQueueFrontier.schedule()) and setting aside
 * held hosts' URIs (set-aside.ts).
 */
import type { HostGate } from './host-gate.js';
import { hostPortOf } from '../url/hosts.js';
import { refId } from './queue-store.js';
import type { Parked, QueueStates } from './queue-states.js';
import type { QueueTable } from './queue-table.js';
import type { SetAside } from './set-aside.js';
import type { HeadItem, WorkQueue } from './work-queue.js';
import type { WriteBehind } from './write-behind.js';

export interface QueueHeadsDeps {
  store: WriteBehind;
  table: QueueTable;
  states: QueueStates;
  gate: HostGate<Parked>;
  /** Null when each queue is one host (a held host's queue snoozes instead). */
  aside: SetAside | null;
  /** URIs kept in memory at the head of each active queue. */
  headSize: number;
  /** The queue's saved figures are out of date. */
  touch(queue: WorkQueue): void;
}

export class QueueHeads {
  readonly #d: QueueHeadsDeps;
  /** Ids (refId) of scheduled URIs whose put has not landed yet: not counted, not claimable. */
  readonly #arriving = new Set<string>();

  constructor(deps: QueueHeadsDeps) {
    this.#d = deps;
  }

  /** These URIs are being stored: a refill that reads them skips them. */
  arriving(ids: readonly string[]): void {
    for (const id of ids) this.#arriving.add(id);
  }

  /** Their put landed (or failed): they join their queues, or are gone. */
  arrived(ids: readonly string[]): void {
    for (const id of ids) this.#arriving.delete(id);
  }

  get anyArriving(): boolean {
    return this.#arriving.size > 0;
  }

  /** The first queue that may hand out its head now, with that head (left in the buffer); null when none may. */
  async next(now: number): Promise<[WorkQueue, HeadItem] | null> {
    while (this.#d.states.snoozed.peekTime() <= now) {
      const entry = this.#d.states.snoozed.pop()!;
      if (entry.item.seq === entry.item.queue.seq) this.#d.states.settle(entry.item.queue, now);
    }
    if (this.#d.aside !== null && this.#d.aside.peekTime() <= now) {
      for (const queue of this.#d.aside.release(now, (host) => this.#d.gate.openAt(host), this.#d.headSize)) this.#d.states.settle(queue, now);
    }
    for (;;) {
      let queue = this.#d.states.ready.shift();
      if (queue !== undefined) queue.unlisted = true;
      else {
        queue = this.#d.states.inactive.shift();
        if (queue === undefined) return null;
        this.#d.states.activate(queue);
        this.#d.states.settle(queue, now);
        continue;
      }
      const head = await this.#claimableHead(queue);
      if (head === undefined) {
        if (queue.claimable > 0) {
          // Counts said there was work but the store had none: trust the store.
          this.#d.table.stored -= queue.claimable;
          queue.count -= queue.claimable;
        }
        this.#d.states.settle(queue, now);
        continue;
      }
      if (!this.#d.states.ready.inPlace(queue)) {
        // Listed before its head was known (or before it changed): back in line at its rank.
        queue.unlisted = false;
        this.#d.states.ready.rerank(queue);
        continue;
      }
      const gate = this.#d.gate.check(head.host, now);
      if (gate.kind === 'full') {
        this.#d.states.park(queue, head.host);
        continue;
      }
      if (gate.kind === 'later') {
        if (gate.at > queue.wakeAt) {
          queue.wakeAt = gate.at;
          this.#d.touch(queue);
        }
        this.#d.states.settle(queue, now);
        continue;
      }
      return [queue, head];
    }
  }

  /** The queue's first URI that may be handed out, refilling the head buffer and setting aside held hosts' URIs. */
  async #claimableHead(queue: WorkQueue): Promise<HeadItem | undefined> {
    for (;;) {
      // Entries of this queue rewritten by finished() are read back only once written.
      if (queue.needsRefill && queue.rewrites > 0) await this.#d.store.flush();
      while (queue.needsRefill) {
        const limit = this.#d.headSize + queue.inFlight + queue.asideKeys.size;
        const read = await this.#d.store.readAfter(queue.key, queue.cursor, limit);
        const entries = this.#arriving.size === 0 ? read.entries : read.entries.filter((e) => !this.#arriving.has(refId(queue.key, e.sortKey)));
        queue.loaded(entries.map((e) => ({ key: e.sortKey, stored: e.value, host: hostPortOf(new URL(e.value.u.url)) })), read.last, read.complete);
      }
      if (this.#d.aside === null || !this.#d.aside.setAsideHead(queue)) return queue.head[0];
    }
  }
}
