/**
 * Heritrix's WorkQueueFrontier over a queue store (LevelDB in a crawl,
 * level-queue-store.ts): one work queue per queue key, each
 * in exactly one state (inactive, ready, in-process, snoozed, retired,
 * exhausted), with the transitions of WorkQueueFrontier:
 * - new queues start inactive; one is activated only when a worker finds no
 *   ready queue it may use, so active queues grow only as far as needed;
 * - a queue that spent its session budget (`balanceReplenishAmount`, 1 per
 *   URI handed out) goes to the end of the inactive list; one that reached
 *   `queueTotalBudget` is retired (still accepts URIs, never activated);
 * - after a fetch the queue and the host are snoozed for the outcome's delay;
 *   delay 0 sends the queue straight back to ready.
 * Politeness per host is the host gate's job (host-gate.ts), so it holds for
 * every assignment policy, and so are failure holds: where a queue holds
 * several hosts, a held host's URIs are set aside rather than stalling the
 * others (set-aside.ts). Which ready queue goes next is the precedence
 * policy's choice (precedence.ts). Queued URIs live in the store; the heap
 * holds per-queue metadata and small head buffers only.
 *
 * Resume: each queue's figures (finished, budgets spent, wake time, active,
 * rotation place) and each host's gate time are saved write-behind with the
 * deletes they go with (write-behind.ts, queue-meta.ts), so `open()` brings
 * back snoozed queues and hosts with their wake times, retired queues
 * retired, and counts that continue; URIs in process at the stop are simply
 * queued again. Where URIs are kept is the QueueStore's business
 * (queue-store.ts: LevelDB, or memory for tests).
 *
 * All state changes run one at a time (`#exclusive`): the store's writes and
 * the in-memory head buffers must change together.
 *
 * Shared (`init.shared`, the Redis backend): several processes crawl one
 * frontier, each holding some of its queues (a lease per queue, kept by the
 * store). This frontier then knows only its own queues: a URI scheduled
 * into another's queue goes to that one (SharedQueueStore.addShared), URIs
 * others schedule into its queues come in through `arrive()`, queues taken
 * over come in through `adopt()` and lost ones leave through `lose()`.
 * Having nothing to do here no longer ends the crawl: next() waits until
 * `finishShared()` says the whole crawl is over (the owner decides that).
 */
import { systemClock, type Clock } from '../core/clock.js';
import { Directive, type CrawlUri } from '../core/crawl-uri.js';
import { queueAssignmentFor, type QueueAssignmentPolicy } from './assignment.js';
import { ChangeSignal } from './change-signal.js';
import { DelayHeap } from './delay-heap.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import type { Claim, Frontier, FrontierStats, Outcome, QueueQuery, QueueReport, QueueState } from './frontier.js';
import type { WorkQueueFrontierInit, SharedFrontierHooks } from './frontier-init.js';
import { HostGate, hostPortOf } from './host-gate.js';
import { readyQueuesFor, type ReadyQueues } from './precedence.js';
import { QueueList } from './queue-list.js';
import type { QueueMeta } from './queue-meta.js';
import { queueOrderFor, type QueueOrder } from './queue-order.js';
import { refId, type QueueEntry, type QueueStore, type SharedAddResult, type StoredQueue } from './queue-store.js';
import { QueueTable } from './queue-table.js';
import { SetAside } from './set-aside.js';
import { WorkQueue, type HeadItem } from './work-queue.js';
import { WriteBehind, type MetaSnapshot } from './write-behind.js';

interface ClaimState {
  queue: WorkQueue;
  item: HeadItem;
  /** released() ran: the host's connection and the queue's fetch slot are already given back. */
  released: boolean;
}

interface Parked {
  queue: WorkQueue;
  seq: number;
}

export class WorkQueueFrontier implements Frontier {
  readonly #backing: QueueStore;
  /** All writes to `#backing`, and reads of queue heads. */
  readonly #store: WriteBehind;
  readonly #assign: QueueAssignmentPolicy;
  readonly #order: QueueOrder;
  readonly #clock: Clock;
  readonly #maxPerQueue: number;
  readonly #sessionBudget: number;
  readonly #totalBudget: number;
  readonly #headSize: number;
  readonly #gate: HostGate<Parked>;
  readonly #queues: QueueTable;
  /** Ready queues, in the order the precedence policy hands them out. */
  readonly #ready: ReadyQueues;
  readonly #inactive = new QueueList();
  readonly #snoozed = new DelayHeap<Parked>();
  readonly #retired = new Set<WorkQueue>();
  /** Held hosts' URIs out of shared queues' way; null when each queue is one host (it snoozes instead). */
  readonly #aside: SetAside | null;
  readonly #claims = new Map<Claim, ClaimState>();
  /** Ids (refId) of scheduled URIs whose put has not landed yet: not counted, not claimable (see schedule()). */
  readonly #arriving = new Set<string>();
  readonly #changes = new ChangeSignal();
  /** Queues whose saved metadata is out of date; written with the next store flush. */
  readonly #dirty = new Set<WorkQueue>();
  /** Hosts whose gate time changed since the last flush. */
  readonly #dirtyHosts = new Set<string>();
  #ordinal = 0;
  /** Counter giving each queue listed inactive its place in the rotation. */
  #rotation = 0;
  #stored = 0;
  #finished = 0;
  #closed = false;
  #lock: Promise<unknown> = Promise.resolve();
  readonly #shared: SharedFrontierHooks | undefined;
  /** (shared) The crawl is over everywhere: next() resolves null once nothing is left here. */
  #sharedFinished = false;

  /** A frontier over an empty store; use `open()` to resume from a non-empty one. */
  constructor(init: WorkQueueFrontierInit) {
    const max = init.maxConnectionsPerHost;
    if (!Number.isInteger(max) || max < 1) throw new FrontierError(FrontierErrorCode.badOptions, `maxConnectionsPerHost must be an integer ≥ 1, got ${max}`);
    this.#backing = init.store;
    this.#store = new WriteBehind(this.#backing, () => this.#takeDirty());
    this.#assign = queueAssignmentFor(init.options);
    this.#order = queueOrderFor(init.options.order);
    this.#ready = readyQueuesFor(init.options.precedence);
    this.#clock = init.clock ?? systemClock;
    this.#maxPerQueue = max;
    this.#sessionBudget = init.options.balanceReplenishAmount;
    this.#totalBudget = init.options.queueTotalBudget;
    this.#headSize = Math.max(1, init.headBufferSize ?? 16);
    this.#gate = new HostGate(init.maxConnectionsOf ?? max);
    this.#aside = this.#assign.oneHostPerQueue ? null : new SetAside();
    this.#queues = new QueueTable(init.onQueueState);
    this.#shared = init.shared;
  }

  /**
   * Rebuild a frontier from a store left by an earlier run (crash or stop):
   * every stored URI — including those in process when it stopped — is
   * queued again, and each queue gets back its saved figures: wake time,
   * active or not, finished count, budgets spent (by URIs no longer in
   * flight), place in the rotation; one at its total budget is retired again.
   * Hosts still inside a delay stay closed until it ends.
   * A crash can lose the last write-behind batch (a few ms of work): those
   * finished URIs are then handed out again, and their counts and delays
   * are lost with them, so they are counted and delayed once, on refetch.
   */
  static async open(init: WorkQueueFrontierInit): Promise<WorkQueueFrontier> {
    const frontier = new WorkQueueFrontier(init);
    await frontier.#rebuild();
    return frontier;
  }

  async #rebuild(): Promise<void> {
    const saved = await this.#backing.load();
    const now = this.#clock.now();
    for (const [key, { count, meta }] of saved.queues) {
      const queue = this.#queues.get(key);
      if (meta !== null) this.#restore(queue, meta);
      queue.count = count;
      queue.allLoaded = count === 0;
      this.#stored += count;
    }
    for (const [host, openAt] of saved.hosts) if (openAt > now) this.#gate.holdUntil(host, openAt);
    this.#ordinal = saved.ordinal;
    // Settling in saved rotation order lists queues as they were listed before.
    const queues = [...this.#queues.values()].sort((a, b) => a.rotation - b.rotation);
    for (const queue of queues) this.#settle(queue, now);
    // Settling renumbers the rotation in the same order and re-derives what
    // the saved figures imply; nothing new to save.
    this.#dirty.clear();
    this.#dirtyHosts.clear();
  }

  #restore(queue: WorkQueue, meta: QueueMeta): void {
    queue.restore(meta);
    this.#finished += meta.f;
    this.#rotation = Math.max(this.#rotation, meta.n);
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
    const { items, keys } = await this.#exclusive(async () => {
      this.#checkOpen();
      const made = uris.map((uri) => this.#itemFor(uri));
      const ids = made.map(([queueKey, item]) => refId(queueKey, item.key));
      for (const id of ids) this.#arriving.add(id);
      return { items: made, keys: ids };
    });
    let stored = false;
    let shared: SharedAddResult | null = null;
    try {
      const entries = items.map(([queueKey, item]) => ({ queueKey, sortKey: item.key, value: item.stored }));
      if (this.#shared === undefined) await this.#store.add(entries);
      else shared = await this.#shared.store.addShared(entries);
      stored = true;
    } finally {
      await this.#exclusive(async () => {
        for (const key of keys) this.#arriving.delete(key);
        if (!stored) return;
        const now = this.#clock.now();
        if (shared !== null) for (const [key, queue] of shared.adopted) this.#adoptQueue(key, queue, now);
        const touched = new Set<WorkQueue>();
        for (const [queueKey, item] of items) {
          if (shared !== null) {
            if (shared.foreign.has(queueKey)) continue;
            // Still held in the store but being handed on (detach() dropped it here): its next holder counts it.
            const held = this.#queues.peek(queueKey);
            if ((held === undefined || held.lost) && !shared.adopted.has(queueKey)) continue;
          }
          const queue = this.#queues.get(queueKey);
          // A refill may have read it meanwhile and skipped it: it is in no head, and never in flight.
          this.#add(queue, item);
          touched.add(queue);
        }
        for (const queue of touched) this.#settle(queue, now);
        if (touched.size > 0) this.#sharedFinished = false;
        this.#changes.notifyOne();
      });
    }
  }

  /**
   * (shared) URIs another process scheduled into queues this frontier
   * holds, already in the store: queue them here.
   */
  arrive(entries: readonly QueueEntry[]): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      const now = this.#clock.now();
      const touched = new Set<WorkQueue>();
      for (const e of entries) {
        const queue = this.#queues.peek(e.queueKey);
        if (queue === undefined || queue.lost) continue;
        this.#add(queue, { key: e.sortKey, stored: e.value, host: hostPortOf(new URL(e.value.u.url)) });
        touched.add(queue);
      }
      for (const queue of touched) this.#settle(queue, now);
      if (touched.size > 0) {
        this.#sharedFinished = false;
        this.#changes.notify();
      }
    });
  }

  /** (shared) Queues taken over from the store (unheld, or a dead process's): as on resume, with their figures. */
  adopt(queues: ReadonlyMap<string, StoredQueue>): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      const now = this.#clock.now();
      for (const [key, queue] of queues) this.#adoptQueue(key, queue, now);
      if (queues.size > 0) {
        this.#sharedFinished = false;
        this.#changes.notify();
      }
    });
  }

  /**
   * (shared) Queues no longer this frontier's (their lease went to another
   * process): forgotten; URIs of theirs in process finish without touching
   * the store.
   */
  lose(queueKeys: Iterable<string>): Promise<void> {
    return this.#exclusive(async () => {
      for (const key of queueKeys) {
        const queue = this.#queues.peek(key);
        if (queue !== undefined) this.#drop(queue);
      }
      this.#changes.notify();
    });
  }

  /** The queue is no longer this frontier's: off every list, out of the counts and the table. */
  #drop(queue: WorkQueue): void {
    queue.lost = true;
    this.#stored -= queue.count;
    this.#finished -= queue.finished;
    this.#retired.delete(queue);
    this.#dirty.delete(queue);
    queue.seq++;
    this.#queues.drop(queue);
  }

  /**
   * (shared) Give up to `max` queues that hold URIs, none of them in
   * process, set aside or being rewritten, to other processes: dropped
   * here at once (no URI of theirs is handed out any more), with their
   * figures as of now for the store to keep. Inactive queues go first,
   * then snoozed, then ready ones. Flush before the store releases them, so
   * their finished URIs' deletes land first.
   */
  detach(max: number): Promise<Map<string, QueueMeta>> {
    return this.#exclusive(async () => {
      const out = new Map<string, QueueMeta>();
      if (this.#closed || max <= 0) return out;
      const rank: Partial<Record<QueueState, number>> = { inactive: 0, snoozed: 1, ready: 2 };
      const candidates = [...this.#queues.values()]
        .filter((q) => q.count > 0 && !q.retired && q.inFlight === 0 && q.asideKeys.size === 0 && q.rewrites === 0 && rank[q.state] !== undefined && !q.parked)
        .sort((a, b) => rank[a.state]! - rank[b.state]!)
        .slice(0, max);
      for (const queue of candidates) {
        out.set(queue.key, queue.meta());
        this.#drop(queue);
      }
      return out;
    });
  }

  /** (shared) The whole crawl is over: waiting next() calls resolve null once nothing is in process here. */
  finishShared(): void {
    this.#sharedFinished = true;
    this.#changes.notify();
  }

  /** Nothing queued here outside retired queues, nothing in process, nothing arriving. */
  get idle(): boolean {
    return this.#localDone();
  }

  /** Queues held here that hold URIs (retired ones left out). */
  get busyQueues(): number {
    let n = 0;
    for (const queue of this.#queues.values()) if (queue.count > 0 && !queue.retired) n++;
    return n;
  }

  #adoptQueue(key: string, stored: StoredQueue, now: number): void {
    const existing = this.#queues.peek(key);
    if (existing !== undefined && !existing.lost) return;
    const queue = this.#queues.get(key);
    if (stored.meta !== null) this.#restore(queue, { ...stored.meta, w: stored.meta.w > 0 ? stored.meta.w + (this.#shared?.clockMarginMs ?? 0) : 0 });
    queue.count = stored.count;
    queue.allLoaded = stored.count === 0;
    this.#stored += stored.count;
    this.#settle(queue, now);
  }

  async next(signal?: AbortSignal): Promise<Claim | null> {
    for (;;) {
      if (this.#closed) return null;
      if (signal?.aborted) {
        // It may have been the one woken for a change: pass that on.
        this.#changes.notifyOne();
        return null;
      }
      const [claim, seen] = await this.#exclusive(async () => {
        const got = await this.#tryClaim();
        // Changes wake one waiter (change-signal.ts). One that got a URI passes the turn on while
        // queues may be ready, or snoozed: the next waiter then sets its timer to their wake time.
        if (got !== null && (this.#ready.listed || this.#inactive.listed || this.#snoozed.size > 0)) this.#changes.notifyOne();
        return [got, this.#changes.version] as const;
      });
      if (claim !== null) return claim;
      if (this.#done()) {
        this.#changes.notify();
        return null;
      }
      const wake = Math.min(this.#snoozed.peekTime(), this.#aside?.peekTime() ?? Infinity);
      await this.#changes.wait(seen, wake - this.#clock.now(), signal);
    }
  }

  released(claim: Claim, delayMs: number): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      const state = this.#outstanding(claim);
      if (state.released || state.queue.lost) return;
      state.released = true;
      this.#releaseFetch(state, this.#clock.now(), Math.max(0, delayMs));
    });
  }

  async finished(claim: Claim, outcome: Outcome): Promise<void> {
    const rewritten = await this.#exclusive(async (): Promise<{ landed: Promise<void> } | null> => {
      // After close the URI simply stays stored, as after a crash: resume refetches it.
      if (this.#closed) return null;
      const state = this.#outstanding(claim);
      const { queue, item } = state;
      const now = this.#clock.now();
      if (queue.lost) {
        // Its queue went to another process meanwhile: that one decides what becomes of the URI.
        this.#claims.delete(claim);
        if (!state.released) this.#gate.release(item.host, now, 0);
        this.#changes.notifyOne();
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
        queue.count--;
        this.#stored--;
        queue.finished++;
        this.#finished++;
      } else {
        if (outcome.kind === 'retry') {
          item.stored = { o: item.stored.o, u: { ...item.stored.u, retries: item.stored.u.retries + 1 } };
          this.#store.putLater([entryOf(queue, item)]);
        } else if (outcome.prerequisite !== undefined) {
          // Same queue as the URI that needs it, whatever the policy would say.
          const [, pre] = this.#item({ ...outcome.prerequisite, directive: Directive.prerequisite }, queue);
          this.#store.putLater([entryOf(queue, pre)]);
          this.#add(queue, pre);
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
          this.#dirtyHosts.add(item.host);
        }
        this.#touch(queue);
        this.#settle(queue, now);
        this.#changes.notifyOne();
      }
      if (held && delayMs > 0) this.#aside?.hold(item.host, this.#gate.openAt(item.host));
      if (outcome.kind === 'done') return null;
      // A retry's or prerequisite's entry is written now. The caller waits for
      // it, so a crash keeps it, but outside the lock: held across the write,
      // a host whose robots.txt answered 500 (every URI of it retried) stalled
      // every claim and release of the crawl. A reload of this queue's head
      // waits for it instead (#tryClaim), so that it reads it back.
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
      if (parked.seq === parked.queue.seq) this.#settle(parked.queue, now);
    }
    if (delayMs > 0) this.#dirtyHosts.add(item.host);
    this.#touch(queue);
    this.#settle(queue, now);
    this.#changes.notifyOne();
  }

  stats(): FrontierStats {
    let queuedInRetired = 0;
    for (const queue of this.#retired) queuedInRetired += queue.available;
    return {
      queued: this.#stored,
      inProcess: this.#claims.size,
      finished: this.#finished,
      queuedInRetired,
      setAside: this.#aside?.count ?? 0,
      queuesByState: this.#queues.countByState(),
    };
  }

  queues(query: QueueQuery = {}): QueueReport[] {
    return this.#queues.page(query);
  }

  /** Resolve once every finished URI's delete and every queue's figures have reached the store (for checkpoints). */
  flush(): Promise<void> {
    return this.#store.flush();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#changes.notify();
    await this.#lock;
    await this.#store.flush();
  }

  /** Hand out the head of the first usable ready queue, activating inactive ones on demand. */
  async #tryClaim(): Promise<Claim | null> {
    if (this.#closed) return null;
    const now = this.#clock.now();
    while (this.#snoozed.peekTime() <= now) {
      const entry = this.#snoozed.pop()!;
      if (entry.item.seq === entry.item.queue.seq) this.#settle(entry.item.queue, now);
    }
    if (this.#aside !== null && this.#aside.peekTime() <= now) {
      for (const queue of this.#aside.release(now, (host) => this.#gate.openAt(host), this.#headSize)) this.#settle(queue, now);
    }
    for (;;) {
      let queue = this.#ready.shift();
      if (queue !== undefined) queue.unlisted = true;
      else {
        queue = this.#inactive.shift();
        if (queue === undefined) return null;
        queue.unlisted = true;
        queue.active = true;
        queue.sessionSpent = 0;
        this.#touch(queue);
        this.#settle(queue, now);
        continue;
      }
      const head = await this.#claimableHead(queue);
      if (head === undefined) {
        if (queue.claimable > 0) {
          // Counts said there was work but the store had none: trust the store.
          this.#stored -= queue.claimable;
          queue.count -= queue.claimable;
        }
        this.#settle(queue, now);
        continue;
      }
      if (!this.#ready.inPlace(queue)) {
        // Listed before its head was known (or before it changed): back in line at its rank.
        queue.unlisted = false;
        this.#ready.rerank(queue);
        continue;
      }
      const gate = this.#gate.check(head.host, now);
      if (gate.kind === 'full') {
        this.#park(queue, head.host);
        continue;
      }
      if (gate.kind === 'later') {
        if (gate.at > queue.wakeAt) {
          queue.wakeAt = gate.at;
          this.#touch(queue);
        }
        this.#settle(queue, now);
        continue;
      }
      queue.takeHead();
      this.#gate.acquire(head.host);
      queue.sessionSpent++;
      queue.totalSpent++;
      const claim: Claim = Object.freeze({ uri: head.stored.u, queueKey: queue.key, host: head.host });
      this.#claims.set(claim, { queue, item: head, released: false });
      queue.fetching++;
      this.#settle(queue, now);
      return claim;
    }
  }

  /** The queue's first URI that may be handed out, refilling the head buffer and setting aside held hosts' URIs. */
  async #claimableHead(queue: WorkQueue): Promise<HeadItem | undefined> {
    for (;;) {
      // Entries of this queue rewritten by finished() are read back only once written.
      if (queue.needsRefill && queue.rewrites > 0) await this.#store.flush();
      while (queue.needsRefill) {
        const limit = this.#headSize + queue.inFlight + queue.asideKeys.size;
        const read = await this.#store.readAfter(queue.key, queue.cursor, limit);
        const entries = this.#arriving.size === 0 ? read.entries : read.entries.filter((e) => !this.#arriving.has(refId(queue.key, e.sortKey)));
        queue.loaded(entries.map((e) => ({ key: e.sortKey, stored: e.value, host: hostPortOf(new URL(e.value.u.url)) })), read.last, read.complete);
      }
      if (this.#aside === null || !this.#aside.setAsideHead(queue)) return queue.head[0];
    }
  }

  /** Put a queue where its counters say it belongs (the transition table). */
  #settle(queue: WorkQueue, now: number): void {
    const overTotal = this.#totalBudget >= 0 && queue.totalSpent >= this.#totalBudget;
    const overSession = this.#sessionBudget > 0 && queue.sessionSpent >= this.#sessionBudget;
    if (queue.retired) return this.#setState(queue, 'retired');
    if (queue.count === 0) {
      this.#deactivate(queue);
      return this.#setState(queue, 'exhausted');
    }
    if (overTotal && queue.inFlight === 0) {
      queue.retired = true;
      return this.#setState(queue, 'retired');
    }
    if (queue.available === 0 || overTotal) return this.#setState(queue, 'in-process');
    if (!queue.active) return this.#setState(queue, 'inactive');
    if (overSession) {
      if (queue.inFlight > 0) return this.#setState(queue, 'in-process');
      this.#deactivate(queue);
      return this.#setState(queue, 'inactive');
    }
    // All it has waits for held hosts: nothing to wake it but a hold's end.
    if (queue.claimable === 0) return this.#park(queue, null);
    if (queue.wakeAt > now) return this.#setState(queue, 'snoozed');
    if (queue.fetching >= this.#maxPerQueue) return this.#setState(queue, 'in-process');
    this.#setState(queue, 'ready');
  }

  #setState(queue: WorkQueue, state: QueueState): void {
    // Unchanged unless it left its list (shifted off, parked) or needs a new wake time.
    const relist = queue.parked || queue.unlisted || (state === 'snoozed' && queue.listedWakeAt !== queue.wakeAt);
    queue.parked = false;
    queue.unlisted = false;
    if (queue.state === state && !relist) {
      // Still listed ready, but a precedence that ranks queues by their head must see a new head.
      if (state === 'ready' && !this.#ready.inPlace(queue)) this.#ready.rerank(queue);
      return;
    }
    this.#enter(queue, state);
    if (state === 'ready') this.#ready.push(queue);
    else if (state === 'inactive') {
      queue.rotation = ++this.#rotation;
      this.#touch(queue);
      this.#inactive.push(queue);
    } else if (state === 'snoozed') {
      queue.listedWakeAt = queue.wakeAt;
      this.#snoozed.push(queue.wakeAt, { queue, seq: queue.seq });
    }
    if (state === 'retired') {
      this.#retired.add(queue);
      this.#shared?.onRetired(queue.key);
    }
    // Idle queues keep no URIs in memory; active ones reload their head on demand.
    if (state === 'inactive' || state === 'retired' || state === 'exhausted') queue.dropHead();
  }

  #deactivate(queue: WorkQueue): void {
    if (!queue.active) return;
    queue.active = false;
    this.#touch(queue);
  }

  /** The queue's saved figures are out of date: save them with the next batch. */
  #touch(queue: WorkQueue): void {
    this.#dirty.add(queue);
    this.#store.writeSoon();
  }

  /** Called by the store as it writes a batch: what changed, as of now. */
  #takeDirty(): MetaSnapshot {
    const queues = [...this.#dirty].map((q) => [q.key, q.meta()] as const);
    const hosts = [...this.#dirtyHosts].map((h) => [h, this.#gate.openAt(h)] as const);
    this.#dirty.clear();
    this.#dirtyHosts.clear();
    return { queues, hosts };
  }

  /**
   * Snoozed without a wake time: until `host` frees a connection (the host
   * gate hands it back), or with `host` null until holds end and give it
   * back URIs it may hand out (set-aside.ts).
   */
  #park(queue: WorkQueue, host: string | null): void {
    this.#enter(queue, 'snoozed');
    queue.parked = true;
    queue.unlisted = false;
    if (host !== null) this.#gate.park(host, { queue, seq: queue.seq });
  }

  /** The queue is in `state` now; whatever list it was on no longer holds it (seq). */
  #enter(queue: WorkQueue, state: QueueState): void {
    this.#queues.setState(queue, state);
    queue.seq++;
    queue.listedWakeAt = Number.NaN;
  }

  /** A prerequisite's item, in the queue of the URI that needs it. */
  #item(uri: CrawlUri, into: WorkQueue): [WorkQueue, HeadItem] {
    return [into, this.#itemFor(uri)[1]];
  }

  /** The queue key a URI belongs in, and its item (the queue itself is made only when the URI joins it). */
  #itemFor(uri: CrawlUri): [string, HeadItem] {
    let url: URL;
    try {
      url = new URL(uri.url);
    } catch (cause) {
      throw new FrontierError(FrontierErrorCode.badUri, `cannot queue unparsable URL ${JSON.stringify(uri.url)}`, { cause });
    }
    const n = ++this.#ordinal;
    const ordinal = this.#shared === undefined ? n : n * this.#shared.ordinalStride + this.#shared.ordinalTag;
    const key = this.#order.sortKey(uri, ordinal);
    return [this.#assign.keyFor(url), { key, stored: { o: ordinal, u: uri }, host: hostPortOf(url) }];
  }

  #add(queue: WorkQueue, item: HeadItem): void {
    queue.count++;
    this.#stored++;
    queue.offer(item, this.#headSize);
  }

  /** Crawl over: nothing in process and nothing queued outside retired queues (shared: anywhere). */
  #done(): boolean {
    if (!this.#localDone()) return false;
    if (this.#shared === undefined || this.#sharedFinished) return true;
    this.#shared.onLocalIdle();
    return false;
  }

  #localDone(): boolean {
    if (this.#claims.size > 0 || this.#arriving.size > 0) return false;
    let inRetired = 0;
    for (const queue of this.#retired) inRetired += queue.count;
    return this.#stored - inRetired === 0;
  }

  #checkOpen(): void {
    if (this.#closed) throw new FrontierError(FrontierErrorCode.closed, 'frontier is closed');
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

function entryOf(queue: WorkQueue, item: HeadItem): QueueEntry {
  return { queueKey: queue.key, sortKey: item.key, value: item.stored };
}
