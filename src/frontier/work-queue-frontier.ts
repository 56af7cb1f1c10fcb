/**
 * Heritrix's WorkQueueFrontier on LevelDB: one work queue per queue key, each
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
 * every assignment policy. Queued URIs live in the store; the heap holds
 * per-queue metadata and small head buffers only.
 *
 * Resume: each queue's figures (finished, budgets spent, wake time, active,
 * rotation place) and each host's gate time are saved write-behind with the
 * deletes they go with (queue-store.ts, queue-meta.ts), so `open()` brings
 * back snoozed queues and hosts with their wake times, retired queues
 * retired, and counts that continue; URIs in process at the stop are simply
 * queued again.
 *
 * All state changes run one at a time (`#exclusive`): the store's writes and
 * the in-memory head buffers must change together.
 */
import type { FrontierOptions } from '../config/profile.js';
import type { Keyspace } from '../store/keyspace.js';
import { Directive, type CrawlUri } from '../core/crawl-uri.js';
import { queueAssignmentFor, type QueueAssignmentPolicy } from './assignment.js';
import { ChangeSignal } from './change-signal.js';
import { DelayHeap } from './delay-heap.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { QUEUE_STATES, type Claim, type Frontier, type FrontierStats, type Outcome, type QueueReport, type QueueState } from './frontier.js';
import { HostGate, hostPortOf } from './host-gate.js';
import { queueOrderFor, type QueueOrder } from './queue-order.js';
import { QueueList } from './queue-list.js';
import { metaOf, restoreMeta, type QueueMeta } from './queue-meta.js';
import { QueueStore, entryKey, queueKeyOf, type MetaSnapshot, type StoredEntry } from './queue-store.js';
import { WorkQueue, type HeadItem } from './work-queue.js';

export interface WorkQueueFrontierInit {
  /** The frontier's own range of the crawl's `state/` LevelDB (buffer encodings); opened by the caller. */
  db: Keyspace;
  options: FrontierOptions;
  /** Fetches in flight per host (`politeness.maxConnectionsPerHost`), also the per-queue limit. */
  maxConnectionsPerHost: number;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /** URIs kept in memory at the head of each active queue. Default 16. */
  headBufferSize?: number;
}

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
  readonly #store: QueueStore;
  readonly #assign: QueueAssignmentPolicy;
  readonly #order: QueueOrder;
  readonly #now: () => number;
  readonly #maxPerQueue: number;
  readonly #sessionBudget: number;
  readonly #totalBudget: number;
  readonly #headSize: number;
  readonly #gate: HostGate<Parked>;
  readonly #queues = new Map<string, WorkQueue>();
  readonly #ready = new QueueList();
  readonly #inactive = new QueueList();
  readonly #snoozed = new DelayHeap<Parked>();
  readonly #retired = new Set<WorkQueue>();
  readonly #byState: Record<QueueState, number> = Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Record<QueueState, number>;
  readonly #claims = new Map<Claim, ClaimState>();
  /** Keys (hex) of scheduled URIs whose put has not landed yet: not counted, not claimable (see schedule()). */
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

  /** A frontier over an empty store; use `open()` to resume from a non-empty one. */
  constructor(init: WorkQueueFrontierInit) {
    const max = init.maxConnectionsPerHost;
    if (!Number.isInteger(max) || max < 1) throw new FrontierError(FrontierErrorCode.badOptions, `maxConnectionsPerHost must be an integer ≥ 1, got ${max}`);
    this.#store = new QueueStore(init.db, () => this.#takeDirty());
    this.#assign = queueAssignmentFor(init.options);
    this.#order = queueOrderFor(init.options.order);
    this.#now = init.now ?? Date.now;
    this.#maxPerQueue = max;
    this.#sessionBudget = init.options.balanceReplenishAmount;
    this.#totalBudget = init.options.queueTotalBudget;
    this.#headSize = Math.max(1, init.headBufferSize ?? 16);
    this.#gate = new HostGate(max);
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
    const now = this.#now();
    for await (const [key, meta] of this.#store.scanMeta()) this.#restore(key, meta);
    for await (const [host, openAt] of this.#store.scanHosts()) if (openAt > now) this.#gate.holdUntil(host, openAt);
    for await (const [key, value] of this.#store.scanAll()) {
      const queue = this.#queue(queueKeyOf(key));
      queue.count++;
      queue.allLoaded = false;
      this.#stored++;
      if (value.o > this.#ordinal) this.#ordinal = value.o;
    }
    // Settling in saved rotation order lists queues as they were listed before.
    const queues = [...this.#queues.values()].sort((a, b) => a.rotation - b.rotation);
    for (const queue of queues) this.#settle(queue, now);
    // Settling renumbers the rotation in the same order and re-derives what
    // the saved figures imply; nothing new to save.
    this.#dirty.clear();
    this.#dirtyHosts.clear();
  }

  #restore(key: string, meta: QueueMeta): void {
    const queue = this.#queue(key);
    restoreMeta(queue, meta);
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
      const made = uris.map((uri) => this.#item(uri, undefined));
      const hex = made.map(([, item]) => item.key.toString('hex'));
      for (const key of hex) this.#arriving.add(key);
      return { items: made, keys: hex };
    });
    let stored = false;
    try {
      await this.#store.putMany(items.map(([, item]) => [item.key, item.stored] as StoredEntry));
      stored = true;
    } finally {
      await this.#exclusive(async () => {
        for (const key of keys) this.#arriving.delete(key);
        if (!stored) return;
        const touched = new Set<WorkQueue>();
        for (const [queue, item] of items) {
          // A refill may have read it meanwhile and skipped it: it is in no head, and never in flight.
          this.#add(queue, item);
          touched.add(queue);
        }
        const now = this.#now();
        for (const queue of touched) this.#settle(queue, now);
        this.#changes.notifyOne();
      });
    }
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
      await this.#changes.wait(seen, this.#snoozed.peekTime() - this.#now(), signal);
    }
  }

  released(claim: Claim, delayMs: number): Promise<void> {
    return this.#exclusive(async () => {
      if (this.#closed) return;
      const state = this.#outstanding(claim);
      if (state.released) return;
      state.released = true;
      this.#releaseFetch(state, this.#now(), Math.max(0, delayMs));
    });
  }

  async finished(claim: Claim, outcome: Outcome): Promise<void> {
    const rewritten = await this.#exclusive(async (): Promise<{ landed: Promise<void> } | null> => {
      // After close the URI simply stays stored, as after a crash: resume refetches it.
      if (this.#closed) return null;
      const state = this.#outstanding(claim);
      const { queue, item } = state;
      const now = this.#now();
      // After released(), a 'done' URI's delay already runs from the end of its fetch.
      const delayMs = state.released && outcome.kind === 'done' ? 0 : Math.max(0, outcome.delayMs);
      // Memory first, then the store: the queue's new figures are saved in
      // the same batch as the delete or rewrite they go with.
      this.#claims.delete(claim);
      queue.land(item.key);
      if (outcome.kind === 'done') {
        this.#store.delLater(item.key);
        queue.count--;
        this.#stored--;
        queue.finished++;
        this.#finished++;
      } else {
        if (outcome.kind === 'retry') {
          item.stored = { o: item.stored.o, u: { ...item.stored.u, retries: item.stored.u.retries + 1 } };
          this.#store.putLater([[item.key, item.stored]]);
        } else if (outcome.prerequisite !== undefined) {
          // Same queue as the URI that needs it, whatever the policy would say.
          const [, pre] = this.#item({ ...outcome.prerequisite, directive: Directive.prerequisite }, queue);
          this.#store.putLater([[pre.key, pre.stored]]);
          this.#add(queue, pre);
        }
        // A URI costs its queue 1 once, however many attempts it takes.
        queue.sessionSpent = Math.max(0, queue.sessionSpent - 1);
        queue.totalSpent = Math.max(0, queue.totalSpent - 1);
        queue.offer(item, this.#headSize);
      }
      if (!state.released) this.#releaseFetch(state, now, delayMs);
      else {
        // A retry or a Retry-After decided after the fetch still holds the queue and the host.
        if (delayMs > 0) {
          queue.wakeAt = Math.max(queue.wakeAt, now + delayMs);
          this.#gate.holdUntil(item.host, now + delayMs);
          this.#dirtyHosts.add(item.host);
        }
        this.#touch(queue);
        this.#settle(queue, now);
        this.#changes.notifyOne();
      }
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

  /** Give back the claim's host connection and queue fetch slot; both wait `delayMs` from `now`. */
  #releaseFetch(state: ClaimState, now: number, delayMs: number): void {
    const { queue, item } = state;
    queue.fetching--;
    queue.wakeAt = Math.max(queue.wakeAt, now + delayMs);
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
    return { queued: this.#stored, inProcess: this.#claims.size, finished: this.#finished, queuedInRetired, queuesByState: { ...this.#byState } };
  }

  queues(): QueueReport[] {
    return [...this.#queues.values()].map((q) => ({
      key: q.key,
      state: q.state,
      queued: q.available,
      inProcess: q.inFlight,
      finished: q.finished,
      budgetSpent: q.totalSpent,
      sessionSpent: q.sessionSpent,
      wakeAt: q.state === 'snoozed' && q.parkedOn === null ? q.wakeAt : null,
    }));
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
    const now = this.#now();
    while (this.#snoozed.peekTime() <= now) {
      const entry = this.#snoozed.pop()!;
      if (entry.item.seq === entry.item.queue.seq) this.#settle(entry.item.queue, now);
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
      // Entries of this queue rewritten by finished() are read back only once written.
      if (queue.needsRefill && queue.rewrites > 0) await this.#store.flush();
      while (queue.needsRefill) {
        const limit = this.#headSize + queue.inFlight;
        const read = await this.#store.readAfter(queue.key, queue.cursor, limit);
        const entries = this.#arriving.size === 0 ? read.entries : read.entries.filter(([key]) => !this.#arriving.has(key.toString('hex')));
        queue.loaded(entries.map(([key, stored]) => ({ key, stored, host: hostPortOf(new URL(stored.u.url)) })), read.last, read.complete);
      }
      const head = queue.head[0];
      if (head === undefined) {
        // Counts said there was work but the store had none: trust the store.
        this.#stored -= queue.available;
        queue.count = queue.inFlight;
        this.#settle(queue, now);
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
    if (queue.wakeAt > now) return this.#setState(queue, 'snoozed');
    if (queue.fetching >= this.#maxPerQueue) return this.#setState(queue, 'in-process');
    this.#setState(queue, 'ready');
  }

  #setState(queue: WorkQueue, state: QueueState): void {
    // Unchanged unless it left its list (shifted off, parked) or needs a new wake time.
    const relist = queue.parkedOn !== null || queue.unlisted || (state === 'snoozed' && queue.listedWakeAt !== queue.wakeAt);
    queue.parkedOn = null;
    queue.unlisted = false;
    if (queue.state === state && !relist) return;
    this.#byState[queue.state]--;
    this.#byState[state]++;
    queue.state = state;
    queue.seq++;
    queue.listedWakeAt = Number.NaN;
    if (state === 'ready') this.#ready.push(queue);
    else if (state === 'inactive') {
      queue.rotation = ++this.#rotation;
      this.#touch(queue);
      this.#inactive.push(queue);
    } else if (state === 'snoozed') {
      queue.listedWakeAt = queue.wakeAt;
      this.#snoozed.push(queue.wakeAt, { queue, seq: queue.seq });
    }
    if (state === 'retired') this.#retired.add(queue);
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
    const queues = [...this.#dirty].map((q) => [q.key, metaOf(q)] as const);
    const hosts = [...this.#dirtyHosts].map((h) => [h, this.#gate.openAt(h)] as const);
    this.#dirty.clear();
    this.#dirtyHosts.clear();
    return { queues, hosts };
  }

  /** Snoozed until its host frees a connection: no wake time, the host gate hands it back. */
  #park(queue: WorkQueue, host: string): void {
    this.#byState[queue.state]--;
    this.#byState.snoozed++;
    queue.state = 'snoozed';
    queue.seq++;
    queue.listedWakeAt = Number.NaN;
    queue.parkedOn = host;
    this.#gate.park(host, { queue, seq: queue.seq });
  }

  #queue(key: string): WorkQueue {
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = new WorkQueue(key);
      this.#queues.set(key, queue);
      this.#byState[queue.state]++;
    }
    return queue;
  }

  #item(uri: CrawlUri, into: WorkQueue | undefined): [WorkQueue, HeadItem] {
    let url: URL;
    try {
      url = new URL(uri.url);
    } catch (cause) {
      throw new FrontierError(FrontierErrorCode.badUri, `cannot queue unparsable URL ${JSON.stringify(uri.url)}`, { cause });
    }
    const queue = into ?? this.#queue(this.#assign.keyFor(url));
    const ordinal = ++this.#ordinal;
    const key = entryKey(queue.key, this.#order.sortKey(uri, ordinal));
    return [queue, { key, stored: { o: ordinal, u: uri }, host: hostPortOf(url) }];
  }

  #add(queue: WorkQueue, item: HeadItem): void {
    queue.count++;
    this.#stored++;
    queue.offer(item, this.#headSize);
  }

  /** Crawl over: nothing in process and nothing queued outside retired queues. */
  #done(): boolean {
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
