/**
 * The lists a work queue stands on by its state: ready and inactive (in the
 * precedence policy's order), snoozed (by wake time), parked
 * on a host's free connection. `settle()` puts a queue where its counters
 * say it belongs (queue-placement.ts) and keeps the table's counts, the
 * rotation and the queue's saved figures in step.
 */
import type { QueueState } from './frontier.js';
import { DelayHeap } from './delay-heap.js';
import type { HostGate } from './host-gate.js';
import { placementOf, type PlacementLimits } from './queue-placement.js';
import type { QueueTable } from './queue-table.js';
import type { QueuePrecedence } from './precedence.js';
import type { ReadyQueues } from './ready-queues.js';
import type { WorkQueue } from './work-queue.js';

/** A list entry: stale once the queue's seq moved on. */
export interface Parked {
  queue: WorkQueue;
  seq: number;
}

export interface QueueStatesDeps {
  table: QueueTable;
  gate: HostGate<Parked>;
  precedence: QueuePrecedence;
  limits: PlacementLimits;
  /** The queue's saved figures are out of date. */
  touch(queue: WorkQueue): void;
  /** A queue reached its total budget. */
  retired(queueKey: string): void;
}

export class QueueStates {
  /** Ready queues, in the order the precedence policy hands them out. */
  readonly ready: ReadyQueues;
  /** Inactive queues, in the order the precedence policy activates them (the rotation, under `fifo`). */
  readonly inactive: ReadyQueues;
  readonly snoozed = new DelayHeap<Parked>();
  readonly #d: QueueStatesDeps;

  constructor(deps: QueueStatesDeps) {
    this.#d = deps;
    this.ready = deps.precedence.ready;
    this.inactive = deps.precedence.inactive;
  }

  /** Queues are listed that may have work (ready, waiting their turn, or snoozed with a wake time). */
  get listed(): boolean {
    return this.ready.listed || this.inactive.listed || this.snoozed.size > 0;
  }

  /** Put a queue where its counters say it belongs (the transition table). */
  settle(queue: WorkQueue, now: number): void {
    const placement = placementOf(queue, now, this.#d.limits);
    if (placement.retire) queue.retired = true;
    if (placement.deactivate) this.#deactivate(queue);
    if (placement.state === 'parked') this.park(queue, null);
    else this.#setState(queue, placement.state);
  }

  /** Take the next inactive queue into a session (it is settled afterwards). */
  activate(queue: WorkQueue): void {
    queue.unlisted = true;
    queue.active = true;
    queue.sessionSpent = 0;
    this.#d.touch(queue);
  }

  /**
   * End an active queue's session before its budget is spent: an inactive
   * queue that goes before it takes its place (queue-heads.ts), as Heritrix
   * deactivates a ready queue when one of higher precedence waits.
   */
  yieldSession(queue: WorkQueue, now: number): void {
    this.#deactivate(queue);
    this.settle(queue, now);
  }

  /**
   * Snoozed without a wake time: until `host` frees a connection (the host
   * gate hands it back), or with `host` null until holds end and give it
   * back URIs it may hand out (set-aside.ts).
   */
  park(queue: WorkQueue, host: string | null): void {
    this.#enter(queue, 'snoozed');
    queue.parked = true;
    queue.unlisted = false;
    if (host !== null) this.#d.gate.park(host, { queue, seq: queue.seq });
  }

  #setState(queue: WorkQueue, state: QueueState): void {
    // Unchanged unless it left its list (shifted off, parked) or needs a new wake time.
    const relist = queue.parked || queue.unlisted || (state === 'snoozed' && queue.listedWakeAt !== queue.wakeAt);
    queue.parked = false;
    queue.unlisted = false;
    if (queue.state === state && !relist) {
      // Still listed, but a precedence that ranks queues by their next URI must see a new one.
      if (state === 'ready' && !this.ready.inPlace(queue)) this.ready.rerank(queue);
      else if (state === 'inactive' && !this.inactive.inPlace(queue)) this.inactive.rerank(queue);
      return;
    }
    this.#enter(queue, state);
    if (state === 'ready') this.ready.push(queue);
    else if (state === 'inactive') {
      queue.rotation = this.#d.table.nextRotation();
      this.#d.touch(queue);
      this.inactive.push(queue);
    } else if (state === 'snoozed') {
      queue.listedWakeAt = queue.wakeAt;
      this.snoozed.push(queue.wakeAt, { queue, seq: queue.seq });
    }
    if (state === 'retired') {
      this.#d.table.retired.add(queue);
      this.#d.retired(queue.key);
    }
    // Idle queues keep no URIs in memory; active ones reload their head on demand.
    if (state === 'inactive' || state === 'retired' || state === 'exhausted') queue.dropHead();
  }

  #deactivate(queue: WorkQueue): void {
    if (!queue.active) return;
    queue.active = false;
    this.#d.touch(queue);
  }

  /** The queue is in `state` now; whatever list it was on no longer holds it (seq). */
  #enter(queue: WorkQueue, state: QueueState): void {
    this.#d.table.setState(queue, state);
    queue.seq++;
    queue.listedWakeAt = Number.NaN;
  }
}
