/**
 * The work-queue frontier shared by several processes (the Redis backend,
 * redis-frontier.ts): each holds some of the crawl's queues (a lease per
 * queue, kept by the store), and knows only its own. A URI scheduled into
 * another's queue goes to that one (SharedQueueStore.addShared), URIs
 * others schedule into its queues come in through `arrive()`, queues taken
 * over come in through `adopt()` and lost ones leave through `lose()`;
 * `detach()` hands queues on. Having nothing to do here no longer ends the
 * crawl: next() waits until `finishShared()` says the whole crawl is over
 * (the owner decides that).
 */
import { hostPortOf } from '../url/hosts.js';
import type { QueueState } from './frontier.js';
import type { SharedFrontierHooks, WorkQueueFrontierInit } from './frontier-init.js';
import type { QueueMeta } from './queue-meta.js';
import type { QueueEntry, StoredQueue } from './queue-store.js';
import type { WorkQueue } from './work-queue.js';
import { WorkQueueFrontier, type Landing } from './work-queue-frontier.js';

export type SharedFrontierInit = WorkQueueFrontierInit & { shared: SharedFrontierHooks };

/** Nothing of the queue is in hand here: no URI of it in flight, set aside or being rewritten. */
function untouched(queue: WorkQueue): boolean {
  return queue.inFlight === 0 && queue.asideKeys.size === 0 && queue.rewrites === 0;
}

export class SharedWorkQueueFrontier extends WorkQueueFrontier {
  readonly #hooks: SharedFrontierHooks;
  /** The crawl is over everywhere: next() resolves null once nothing is left here. */
  #finished = false;
  /**
   * Queues the store has granted this frontier, their adoption not applied
   * yet (adopting(), then adopt()). The count each was granted with is the
   * store's at the grant; a URI this process puts into one of them after
   * that (its own add, or a drain of its inbox) lands before the adoption
   * does, finds no queue here, and is counted into it instead. They are the
   * objects RedisQueueStore.adopt() returns: the count added here is the
   * one adopt() applies.
   */
  readonly #adopting = new Map<string, StoredQueue>();

  constructor(init: SharedFrontierInit) {
    super(init);
    this.#hooks = init.shared;
  }

  /** Resume from what the store keeps of this process's queues (frontier-resume.ts). */
  static override async open(init: SharedFrontierInit): Promise<SharedWorkQueueFrontier> {
    const frontier = new SharedWorkQueueFrontier(init);
    await frontier.resume();
    return frontier;
  }

  /** URIs another process scheduled into queues this frontier holds, already in the store: queue them here. */
  arrive(entries: readonly QueueEntry[]): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) return;
      const now = this.clock.now();
      const touched = new Set<WorkQueue>();
      for (const e of entries) {
        const queue = this.table.peek(e.queueKey);
        if (queue === undefined || queue.lost) {
          this.#countAdopting(e.queueKey);
          continue;
        }
        this.add(queue, { key: e.sortKey, stored: e.value, host: hostPortOf(new URL(e.value.u.url)) });
        touched.add(queue);
      }
      for (const queue of touched) this.states.settle(queue, now);
      if (touched.size > 0) {
        this.#finished = false;
        this.changes.notify();
      }
    });
  }

  /** Queues the store has just granted this frontier, ahead of adopt(): see #adopting. */
  adopting(queues: ReadonlyMap<string, StoredQueue>): void {
    for (const [key, queue] of queues) this.#adopting.set(key, queue);
  }

  /** Queues taken over from the store (unheld, or a dead process's): as on resume, with their figures. */
  adopt(queues: ReadonlyMap<string, StoredQueue>): Promise<void> {
    return this.exclusive(async () => {
      for (const key of queues.keys()) this.#adopting.delete(key);
      if (this.closed) return;
      const now = this.clock.now();
      for (const [key, queue] of queues) this.#adopt(key, queue, now);
      if (queues.size > 0) {
        this.#finished = false;
        this.changes.notify();
      }
    });
  }

  /**
   * Queues no longer this frontier's (their lease went to another
   * process): forgotten; URIs of theirs in process finish without touching
   * the store.
   */
  lose(queueKeys: Iterable<string>): Promise<void> {
    return this.exclusive(async () => {
      for (const key of queueKeys) {
        const queue = this.table.peek(key);
        if (queue !== undefined) this.#drop(queue);
      }
      this.changes.notify();
    });
  }

  /**
   * Give up to `max` queues that hold URIs, none of them in process, set
   * aside or being rewritten, to other processes: dropped here at once (no
   * URI of theirs is handed out any more), with their figures as of now for
   * the store to keep. Inactive queues go first, then snoozed, then ready
   * ones. Flush before the store releases them, so their finished URIs'
   * deletes land first.
   */
  detach(max: number): Promise<Map<string, QueueMeta>> {
    return this.exclusive(async () => {
      const out = new Map<string, QueueMeta>();
      if (this.closed || max <= 0) return out;
      const rank: Partial<Record<QueueState, number>> = { inactive: 0, snoozed: 1, ready: 2 };
      const candidates = [...this.table.values()]
        .filter((q) => q.count > 0 && !q.retired && untouched(q) && rank[q.state] !== undefined && !q.parked)
        .sort((a, b) => rank[a.state]! - rank[b.state]!)
        .slice(0, max);
      return this.#handOn(candidates);
    });
  }

  /**
   * Of `queueKeys` (queues the store has this frontier hold, with URIs in
   * the store), those it counts no URI of, dropped as detach() drops
   * queues, with their figures for the store to keep: only while nothing
   * is queued, in process or arriving here, so none of their URIs can be
   * on its way in. The store is the truth; handed on, such a queue is taken
   * up by its next holder (this frontier, maybe) with the store's count,
   * and its head read from the start. Empty when the frontier is not idle.
   */
  handOnUncounted(queueKeys: readonly string[]): Promise<Map<string, QueueMeta>> {
    return this.exclusive(async () => {
      if (this.closed || !this.localDone()) return new Map<string, QueueMeta>();
      const uncounted = queueKeys.map((key) => this.table.peek(key)).filter((q): q is WorkQueue => q !== undefined && !q.lost && !q.retired && q.count === 0 && untouched(q));
      return this.#handOn(uncounted);
    });
  }

  /** The queues dropped here, with their figures as of now for the store to keep. */
  #handOn(queues: readonly WorkQueue[]): Map<string, QueueMeta> {
    const out = new Map<string, QueueMeta>();
    for (const queue of queues) {
      out.set(queue.key, queue.meta());
      this.#drop(queue);
    }
    return out;
  }

  /** The whole crawl is over: waiting next() calls resolve null once nothing is in process here. */
  finishShared(): void {
    this.#finished = true;
    this.changes.notify();
  }

  /** Nothing queued here outside retired queues, nothing in process, nothing arriving. */
  get idle(): boolean {
    return this.localDone();
  }

  protected override async storeNew(entries: readonly QueueEntry[]): Promise<Landing> {
    const shared = await this.#hooks.store.addShared(entries);
    return {
      begin: (now) => {
        for (const [key, queue] of shared.adopted) this.#adopt(key, queue, now);
      },
      joins: (queueKey) => {
        if (shared.foreign.has(queueKey)) return false;
        // Still held in the store but being handed on (detach() dropped it here): its next holder counts it.
        const held = this.table.peek(queueKey);
        if ((held !== undefined && !held.lost) || shared.adopted.has(queueKey)) return true;
        this.#countAdopting(queueKey);
        return false;
      },
    };
  }

  protected override workCame(): void {
    this.#finished = false;
  }

  protected override queueRetired(queueKey: string): void {
    this.#hooks.onRetired(queueKey);
  }

  /** Discovery ordinals of different processes never collide within a queue (see SharedFrontierHooks). */
  protected override ordinalOf(n: number): number {
    return n * this.#hooks.ordinalStride + this.#hooks.ordinalTag;
  }

  /** Over here only when the whole crawl is: until then, an idle frontier asks whether it is. */
  protected override done(): boolean {
    if (!this.localDone()) return false;
    if (this.#finished) return true;
    this.#hooks.onLocalIdle();
    return false;
  }

  #adopt(key: string, stored: StoredQueue, now: number): void {
    const existing = this.table.peek(key);
    if (existing !== undefined && !existing.lost) return;
    this.states.settle(this.table.restore(key, stored, this.#hooks.clockMarginMs), now);
  }

  /** A URI reached the store for a queue granted here whose adoption is not applied yet: it counts there. */
  #countAdopting(queueKey: string): void {
    const granted = this.#adopting.get(queueKey);
    if (granted !== undefined) granted.count++;
  }

  /** The queue is no longer this frontier's: off every list, out of the counts and the table. */
  #drop(queue: WorkQueue): void {
    queue.lost = true;
    this.untrack(queue);
    queue.seq++;
    this.table.drop(queue);
  }
}
