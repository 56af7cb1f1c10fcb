/**
 * Which URI goes next, and what of a queue is read into memory for it.
 * `next()` wakes the queues whose snooze or holds ended, then walks the
 * ready list (and, when it runs dry, activates inactive queues in the
 * precedence's order) to the first queue whose head may be fetched now by
 * the host gate; an inactive queue that the precedence puts before that
 * ready queue takes the ready one's session instead (precedence.ts); a
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
  /** Whether an inactive queue goes before a ready one (QueuePrecedence.preempts); null: never, nor are they ranked. */
  preempts: ((waiting: WorkQueue, queue: WorkQueue) => boolean) | null;
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

  /**
   * No queue is listed to hand out a URI now: none ready or inactive
   * (entries listed, stale ones included), no snooze or hold ended. next()
   * would then return null and change nothing. Read inside a section under
   * the frontier's lock: outside one, the lists may be half-changed.
   */
  nothingDue(now: number): boolean {
    const states = this.#d.states;
    return !states.ready.listed && !states.inactive.listed && states.snoozed.peekTime() > now && (this.#d.aside?.peekTime() ?? Infinity) > now;
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
        const waiting = await this.#nextWaiting(null, now);
        if (waiting === null) return null;
        this.#d.states.activate(waiting);
        this.#d.states.settle(waiting, now);
        continue;
      }
      const head = await this.#claimableHead(queue);
      if (head === undefined) {
        this.#storeHadNone(queue);
        this.#d.states.settle(queue, now);
        continue;
      }
      if (!this.#d.states.ready.inPlace(queue)) {
        // Listed before its head was known (or before it changed): back in line at its rank.
        queue.unlisted = false;
        this.#d.states.ready.rerank(queue);
        continue;
      }
      const waiting = await this.#nextWaiting(queue, now);
      if (waiting !== null) {
        // It takes this queue's session (Heritrix deactivates a ready queue when one of higher
        // precedence waits), unless URIs of this one are in flight: then both stay active.
        if (queue.inFlight === 0) this.#d.states.yieldSession(queue, now);
        else {
          queue.unlisted = false;
          this.#d.states.ready.rerank(queue);
        }
        this.#d.states.activate(waiting);
        this.#d.states.settle(waiting, now);
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

  /**
   * The inactive queue to activate next, taken off its list: the first
   * listed (null when none), or with `before` a ready queue, the first only
   * if it goes before that one. A queue whose rank is not known without a
   * read (dropped with an empty head buffer, or saved without it) has its
   * head read and is listed again at its rank, keeping its turn; its buffer
   * is dropped again, the rank kept (WorkQueue.idleKey).
   */
  async #nextWaiting(before: WorkQueue | null, now: number): Promise<WorkQueue | null> {
    const inactive = this.#d.states.inactive;
    const preempts = this.#d.preempts;
    if (preempts === null) return before === null ? (inactive.shift() ?? null) : null;
    for (;;) {
      const waiting = inactive.peek();
      if (waiting === undefined || (before !== null && !preempts(waiting, before))) return null;
      if (!Number.isNaN(waiting.nextRank) || waiting.claimable <= 0) return inactive.shift()!;
      // Listed first for want of a rank: read its head, then list it at its rank.
      await this.#refill(waiting);
      if (waiting.head.length === 0) {
        this.#storeHadNone(waiting);
        this.#d.states.settle(waiting, now);
        continue;
      }
      waiting.dropHead();
      this.#d.touch(waiting);
      inactive.rerank(waiting);
    }
  }

  /** Counts said the queue had work but the store had none: trust the store. */
  #storeHadNone(queue: WorkQueue): void {
    if (queue.claimable <= 0) return;
    this.#d.table.stored -= queue.claimable;
    queue.count -= queue.claimable;
  }

  /** Read the queue's head from the store while its buffer is empty and URIs remain. */
  async #refill(queue: WorkQueue): Promise<void> {
    // Entries of this queue rewritten by finished() are read back only once written.
    if (queue.needsRefill && queue.rewrites > 0) await this.#d.store.flush();
    while (queue.needsRefill) {
      const limit = this.#d.headSize + queue.inFlight + queue.asideKeys.size;
      const read = await this.#d.store.readAfter(queue.key, queue.cursor, limit);
      const entries = this.#arriving.size === 0 ? read.entries : read.entries.filter((e) => !this.#arriving.has(refId(queue.key, e.sortKey)));
      queue.loaded(entries.map((e) => ({ key: e.sortKey, stored: e.value, host: hostPortOf(new URL(e.value.u.url)) })), read.last, read.complete);
    }
  }

  /** The queue's first URI that may be handed out, refilling the head buffer and setting aside held hosts' URIs. */
  async #claimableHead(queue: WorkQueue): Promise<HeadItem | undefined> {
    for (;;) {
      await this.#refill(queue);
      if (this.#d.aside === null || !this.#d.aside.setAsideHead(queue)) return queue.head[0];
    }
  }
}
