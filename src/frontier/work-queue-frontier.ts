/**
 * Heritrix's WorkQueueFrontier over a queue store (queue-store.ts): one work
 * queue per queue key (work-queue.ts), each in exactly one state (inactive,
 * ready, in-process, snoozed, retired, exhausted). This class is the
 * Frontier API over its pieces:
 * - queue-items.ts: which queue a URI goes to, and where in it;
 * - queue-table.ts: the queues by key, and their counts;
 * - queue-placement.ts, queue-states.ts: the transition table, and the lists
 *   a queue stands on (ready ones in the precedence policy's order);
 * - queue-heads.ts: which URI goes next, its queue's head read from the store;
 * - host-gate.ts, set-aside.ts: politeness per host and failure holds, for
 *   every assignment policy (a held host's URIs set aside where a queue
 *   holds several hosts, rather than stalling the others);
 * - write-behind.ts, changed-figures.ts, frontier-resume.ts: the writes to
 *   the store, the queues' and hosts' figures saved with them, and `open()`
 *   from what they saved (URIs in process at a stop are queued again).
 * Queued URIs live in the store; memory holds per-queue figures and small
 * head buffers only.
 *
 * All state changes run one at a time (`exclusive`): the store's writes and
 * the in-memory head buffers must change together. This frontier serves one
 * process; SharedWorkQueueFrontier (shared-work-queue-frontier.ts) shares
 * its queues with other processes through the protected members below.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { Directive, type CrawlUri } from '../core/crawl-uri.js';
import { queueAssignmentFor } from './assignment.js';
import { ChangedFigures } from './changed-figures.js';
import { ChangeSignal } from './change-signal.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import type { Claim, Frontier, FrontierStats, Outcome, QueueQuery, QueueReport } from './frontier.js';
import type { WorkQueueFrontierInit } from './frontier-init.js';
import { resumeQueues } from './frontier-resume.js';
import { HostGate } from './host-gate.js';
import { precedenceFor } from './precedence.js';
import { QueueItems } from './queue-items.js';
import { queueOrderFor } from './queue-order.js';
import { QueueStates, type Parked } from './queue-states.js';
import { QueueHeads } from './queue-heads.js';
import { refId, type QueueEntry, type QueueStore } from './queue-store.js';
import { QueueTable } from './queue-table.js';
import { SetAside } from './set-aside.js';
import { WorkQueue, type HeadItem } from './work-queue.js';
import { WriteBehind } from './write-behind.js';

interface ClaimState {
  queue: WorkQueue;
  item: HeadItem;
  /** released() ran: the host's connection and the queue's fetch slot are already given back. */
  released: boolean;
}

/** How scheduled URIs that reached the store join their queues (see schedule()). */
export interface Landing {
  /** Inside the lock, before any URI joins its queue. */
  begin(now: number): void;
  /** Whether the URIs of this queue join it here. */
  joins(queueKey: string): boolean;
}

const ALL_HERE: Landing = { begin: () => undefined, joins: () => true };

export class WorkQueueFrontier implements Frontier {
  readonly #backing: QueueStore;
  /** All writes to `#backing`, and reads of queue heads. */
  readonly #store: WriteBehind;
  readonly #items: QueueItems;
  protected readonly clock: Clock;
  readonly #headSize: number;
  readonly #gate: HostGate<Parked>;
  protected readonly table: QueueTable;
  protected readonly states: QueueStates;
  /** Held hosts' URIs out of shared queues' way; null when each queue is one host (it snoozes instead). */
  readonly #aside: SetAside | null;
  readonly #claims = new Map<Claim, ClaimState>();
  readonly #heads: QueueHeads;
  protected readonly changes = new ChangeSignal();
  /** Figures to save with the next store flush. */
  readonly #changed: ChangedFigures;
  #closed = false;
  #lock: Promise<unknown> = Promise.resolve();

  /** A frontier over an empty store; use `open()` to resume from a non-empty one. */
  constructor(init: WorkQueueFrontierInit) {
    const max = init.maxConnectionsPerHost;
    if (!Number.isInteger(max) || max < 1) throw new FrontierError(FrontierErrorCode.badOptions, `maxConnectionsPerHost must be an integer ≥ 1, got ${max}`);
    this.#backing = init.store;
    this.#changed = new ChangedFigures((host) => this.#gate.openAt(host));
    this.#store = new WriteBehind(this.#backing, () => this.#changed.take());
    const assign = queueAssignmentFor(init.options);
    this.#items = new QueueItems(assign, queueOrderFor(init.options.order), (n) => this.ordinalOf(n));
    this.clock = init.clock ?? systemClock;
    this.#headSize = Math.max(1, init.headBufferSize ?? 16);
    this.#gate = new HostGate(init.maxConnectionsOf ?? max);
    this.#aside = assign.oneHostPerQueue ? null : new SetAside();
    this.table = new QueueTable(init.onQueueState);
    const precedence = precedenceFor(init.options.precedence);
    this.states = new QueueStates({
      table: this.table,
      gate: this.#gate,
      precedence,
      limits: { totalBudget: init.options.queueTotalBudget, sessionBudget: init.options.balanceReplenishAmount, maxPerQueue: max },
      touch: (queue) => this.#touch(queue),
      retired: (key) => this.queueRetired(key),
    });
    this.#heads = new QueueHeads({ store: this.#store, table: this.table, states: this.states, gate: this.#gate, aside: this.#aside, headSize: this.#headSize, preempts: precedence.preempts, touch: (queue) => this.#touch(queue) });
  }

  /** Rebuild a frontier from a store left by an earlier run (frontier-resume.ts). */
  static async open(init: WorkQueueFrontierInit): Promise<WorkQueueFrontier> {
    const frontier = new WorkQueueFrontier(init);
    await frontier.resume();
    return frontier;
  }

  protected async resume(): Promise<void> {
    const { ordinal, queues, now } = await resumeQueues(this.#backing, this.table, this.#gate, this.clock);
    this.#items.count = ordinal;
    for (const queue of queues) this.states.settle(queue, now);
    // Settling renumbers the rotation in the same order and re-derives what
    // the saved figures imply; nothing new to save.
    this.#changed.clear();
  }

  /**
   * Resolves once the URIs are stored and claimable; the seen filter records
   * them only then, so a crash never leaves a link seen but unqueued. The
   * lock is not held while LevelDB writes: held across the write, it
   * stalled every claim and release of the crawl (~2.4 ms per page with new
   * links, under load). Meanwhile the URIs are "arriving": not yet counted
   * or claimable (a URI handed out before its put landed could be finished,
   * and its delete written, first), and a head refill that reads one of
   * them from the store skips it; it joins its queue once its put landed.
   */
  async schedule(uris: readonly CrawlUri[]): Promise<void> {
    const { items, keys } = await this.exclusive(async () => {
      if (this.#closed) throw new FrontierError(FrontierErrorCode.closed, 'frontier is closed');
      const made = uris.map((uri) => this.#items.itemFor(uri));
      const ids = made.map(([queueKey, item]) => refId(queueKey, item.key));
      this.#heads.arriving(ids);
      return { items: made, keys: ids };
    });
    let landing: Landing | null = null;
    try {
      landing = await this.storeNew(items.map(([queueKey, item]) => ({ queueKey, sortKey: item.key, value: item.stored })));
    } finally {
      await this.exclusive(async () => {
        this.#heads.arrived(keys);
        if (landing === null) return;
        const now = this.clock.now();
        landing.begin(now);
        const touched = new Set<WorkQueue>();
        for (const [queueKey, item] of items) {
          if (!landing.joins(queueKey)) continue;
          const queue = this.table.get(queueKey);
          // A refill may have read it meanwhile and skipped it: it is in no head, and never in flight.
          this.add(queue, item);
          touched.add(queue);
        }
        for (const queue of touched) this.states.settle(queue, now);
        if (touched.size > 0) this.workCame();
        this.changes.notifyOne();
      });
    }
  }

  /** Write scheduled URIs to the store (outside the lock): how they then join their queues. */
  protected async storeNew(entries: readonly QueueEntry[]): Promise<Landing> {
    await this.#store.add(entries);
    return ALL_HERE;
  }

  /** Hook: URIs joined queues here. */
  protected workCame(): void {}

  /** Hook: a queue reached its total budget. */
  protected queueRetired(_queueKey: string): void {}

  /** Queues held here that hold URIs (retired ones left out). */
  get busyQueues(): number {
    return this.table.busyQueues;
  }

  async next(signal?: AbortSignal): Promise<Claim | null> {
    for (;;) {
      if (this.#closed) return null;
      if (signal?.aborted) {
        // It may have been the one woken for a change: pass that on.
        this.changes.notifyOne();
        return null;
      }
      const [claim, seen] = await this.exclusive(async () => {
        const got = await this.#tryClaim();
        // Changes wake one waiter (change-signal.ts). One that got a URI passes the turn on while
        // queues may be ready, or snoozed: the next waiter then sets its timer to their wake time.
        if (got !== null && this.states.listed) this.changes.notifyOne();
        return [got, this.changes.version] as const;
      });
      if (claim !== null) return claim;
      if (this.done()) {
        this.changes.notify();
        return null;
      }
      const wake = Math.min(this.states.snoozed.peekTime(), this.#aside?.peekTime() ?? Infinity);
      await this.changes.wait(seen, wake - this.clock.now(), signal);
    }
  }

  released(claim: Claim, delayMs: number): Promise<void> {
    return this.exclusive(async () => {
      if (this.#closed) return;
      const state = this.#outstanding(claim);
      if (state.released || state.queue.lost) return;
      state.released = true;
      this.#releaseFetch(state, this.clock.now(), Math.max(0, delayMs));
    });
  }

  async finished(claim: Claim, outcome: Outcome): Promise<void> {
    const rewritten = await this.exclusive(async (): Promise<{ landed: Promise<void> } | null> => {
      // After close the URI simply stays stored, as after a crash: resume refetches it.
      if (this.#closed) return null;
      const state = this.#outstanding(claim);
      const { queue, item } = state;
      const now = this.clock.now();
      if (queue.lost) {
        // Its queue went to another process meanwhile: that one decides what becomes of the URI.
        this.#claims.delete(claim);
        if (!state.released) this.#gate.release(item.host, now, 0);
        this.changes.notifyOne();
        return null;
      }
      const held = outcome.hostHeld === true;
      // After released(), a 'done' URI's politeness delay already runs from the end of its fetch.
      const delayMs = state.released && outcome.kind === 'done' && !held ? 0 : Math.max(0, outcome.delayMs);
      // Memory first, then the store: the queue's new figures are saved in
      // the same batch as the delete or rewrite they go with.
      this.#claims.delete(claim);
      queue.land(item.key);
      if (outcome.kind === 'done') {
        this.#store.delLater(queue.key, item.key);
        this.table.finish(queue);
      } else {
        if (outcome.kind === 'retry') {
          item.stored = { o: item.stored.o, u: { ...item.stored.u, retries: item.stored.u.retries + 1 } };
          this.#store.putLater([entryOf(queue, item)]);
        } else if (outcome.prerequisite !== undefined) {
          // Same queue as the URI that needs it, whatever the policy would say.
          const [, pre] = this.#items.itemFor({ ...outcome.prerequisite, directive: Directive.prerequisite });
          this.#store.putLater([entryOf(queue, pre)]);
          this.add(queue, pre);
        }
        // A URI costs its queue 1 once, however many attempts it takes.
        queue.sessionSpent = Math.max(0, queue.sessionSpent - 1);
        queue.totalSpent = Math.max(0, queue.totalSpent - 1);
        queue.offer(item, this.#headSize);
      }
      // A held host's shared queue goes on with its other hosts.
      const queueDelayMs = held && this.#aside !== null ? 0 : delayMs;
      if (!state.released) this.#releaseFetch(state, now, delayMs, queueDelayMs);
      else {
        // A retry or a Retry-After decided after the fetch still holds the queue and the host.
        if (delayMs > 0) {
          queue.wakeAt = Math.max(queue.wakeAt, now + queueDelayMs);
          this.#gate.holdUntil(item.host, now + delayMs);
          this.#changed.host(item.host);
        }
        this.#touch(queue);
        this.states.settle(queue, now);
        if (delayMs > 0 || outcome.kind !== 'done' || !this.#heads.nothingDue(now) || this.localDone()) this.changes.notifyOne(); // its release woke one already
      }
      if (held && delayMs > 0) this.#aside?.hold(item.host, this.#gate.openAt(item.host));
      if (outcome.kind === 'done') return null;
      // A retry's or prerequisite's entry is written now. The caller waits for
      // it, so a crash keeps it, but outside the lock: held across the write,
      // a host whose robots.txt answered 500 (every URI of it retried) stalled
      // every claim and release of the crawl. A reload of this queue's head
      // waits for it instead (queue-heads.ts), so that it reads it back.
      queue.rewrites++;
      const landed = this.#store.flush();
      const landedOrNot = (): void => {
        queue.rewrites--;
      };
      landed.then(landedOrNot, landedOrNot);
      return { landed };
    });
    if (rewritten !== null) await rewritten.landed;
  }

  #outstanding(claim: Claim): ClaimState {
    const state = this.#claims.get(claim);
    if (state === undefined) throw new FrontierError(FrontierErrorCode.unknownClaim, `not an outstanding claim: ${claim.uri.url}`);
    return state;
  }

  /** Give back the claim's host connection and queue fetch slot; the host waits `delayMs` from `now`, the queue `queueDelayMs`. */
  #releaseFetch(state: ClaimState, now: number, delayMs: number, queueDelayMs = delayMs): void {
    const { queue, item } = state;
    queue.fetching--;
    queue.wakeAt = Math.max(queue.wakeAt, now + queueDelayMs);
    for (const parked of this.#gate.release(item.host, now, delayMs)) {
      if (parked.seq === parked.queue.seq) this.states.settle(parked.queue, now);
    }
    if (delayMs > 0) this.#changed.host(item.host);
    this.#touch(queue);
    this.states.settle(queue, now);
    this.changes.notifyOne();
  }

  stats(): FrontierStats {
    return {
      queued: this.table.stored,
      inProcess: this.#claims.size,
      finished: this.table.finished,
      queuedInRetired: this.table.queuedInRetired,
      setAside: this.#aside?.count ?? 0,
      queuesByState: this.table.countByState(),
    };
  }

  queues(query: QueueQuery = {}): QueueReport[] {
    return this.table.page(query);
  }

  /** Resolve once every finished URI's delete and every queue's figures have reached the store (for checkpoints). */
  flush(): Promise<void> {
    return this.#store.flush();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.changes.notify();
    await this.#lock;
    await this.#store.flush();
  }

  /** Hand out the head of the first usable ready queue, activating inactive ones on demand. */
  async #tryClaim(): Promise<Claim | null> {
    if (this.#closed) return null;
    const now = this.clock.now();
    const next = await this.#heads.next(now);
    if (next === null) return null;
    const [queue, head] = next;
    queue.takeHead();
    this.#gate.acquire(head.host);
    queue.sessionSpent++;
    queue.totalSpent++;
    const claim: Claim = Object.freeze({ uri: head.stored.u, queueKey: queue.key, host: head.host });
    this.#claims.set(claim, { queue, item: head, released: false });
    queue.fetching++;
    this.states.settle(queue, now);
    return claim;
  }

  /** The queue's saved figures are out of date: save them with the next batch. */
  #touch(queue: WorkQueue): void {
    this.#changed.queue(queue);
    this.#store.writeSoon();
  }

  /** The queue's figures are no longer this frontier's to save (it left for another process). */
  protected untrack(queue: WorkQueue): void {
    this.#changed.forget(queue);
  }

  /** Hook: the discovery ordinal of the `n`th URI scheduled here. */
  protected ordinalOf(n: number): number {
    return n;
  }

  /** A stored URI joins its queue here. */
  protected add(queue: WorkQueue, item: HeadItem): void {
    this.table.add(queue);
    if (queue.offer(item, this.#headSize)) this.#touch(queue);
  }

  /** Crawl over: nothing in process and nothing queued outside retired queues. */
  protected done(): boolean {
    return this.localDone();
  }

  /** Nothing queued here outside retired queues, nothing in process, nothing arriving. */
  protected localDone(): boolean {
    return this.#claims.size === 0 && !this.#heads.anyArriving && this.table.storedOutsideRetired === 0;
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  protected exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

function entryOf(queue: WorkQueue, item: HeadItem): QueueEntry {
  return { queueKey: queue.key, sortKey: item.key, value: item.stored };
}
