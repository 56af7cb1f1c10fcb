/**
 * One work queue's in-memory side: counters, budgets, state, and a small
 * head buffer — the first few stored URIs not being fetched — so that
 * handing out the next URI rarely touches the store. Everything else of the
 * queue lives in the store (queue-store.ts); this class never does I/O.
 *
 * Head-buffer invariant: every stored key ≤ `cursor` neither in flight nor
 * set aside (set-aside.ts) is in `head` (sorted), and no key > `cursor` is. `allLoaded` means the cursor is
 * past the end of the queue. A refill therefore reads only keys after the
 * cursor, which also skips LevelDB's tombstones of already-finished URIs.
 * Keys are sort keys, unique within the queue.
 */
import { priorityOf } from '../core/crawl-uri.js';
import type { QueueReport, QueueState } from './frontier.js';
import type { QueueMeta } from './queue-meta.js';
import type { StoredUri } from './stored-uri.js';

export interface HeadItem {
  /** Its sort key inside the queue (queue-order.ts). */
  readonly key: Buffer;
  stored: StoredUri;
  /** `host:port` of the URI, for the host gate. */
  readonly host: string;
}

export class WorkQueue {
  readonly key: string;
  state: QueueState = 'exhausted';
  /** Bumped on every state change; list and heap entries carrying an older seq are stale. */
  seq = 0;
  /** Wake time the current heap entry was pushed with (NaN when none). */
  listedWakeAt = Number.NaN;
  /** Taken off the ready/inactive list it was on; must be listed again even if its state stays. */
  unlisted = false;
  /**
   * Snoozed without a wake time: parked on its head's host until a
   * connection frees, or waiting for holds to end (all it has is set aside).
   */
  parked = false;

  /** Stored URIs, in-flight and set-aside ones included. */
  count = 0;
  finished = 0;
  totalSpent = 0;
  sessionSpent = 0;
  /** Epoch ms before which the queue hands out nothing. */
  wakeAt = 0;
  /** In a session (ready, in-process or snoozed) rather than waiting its turn. */
  active = false;
  retired = false;
  /** Frontier-wide counter value when last listed inactive: restores the rotation order on resume. */
  rotation = 0;

  head: HeadItem[] = [];
  cursor: Buffer | null = null;
  allLoaded = true; // a new queue's range is empty
  /**
   * While the head buffer is dropped (an idle queue): the sort key and
   * priority of the queue's next URI, kept as URIs join, so that a
   * precedence ranking idle queues needs no read of the store. Null when
   * not known (dropped with an empty buffer, or resumed without it).
   */
  idleKey: Buffer | null = null;
  idleRank = 0;
  /** Keys (hex) of URIs handed out and not finished. */
  readonly inFlightKeys = new Set<string>();
  /** Of those, the ones still fetching (not yet released): what the per-queue connection limit counts. */
  fetching = 0;
  /** Keys (hex) of URIs set aside while their host is held (set-aside.ts): stored, counted, not claimable. */
  readonly asideKeys = new Set<string>();
  /** Entries rewritten (retries, prerequisites) whose write has not landed: a head reload waits for them. */
  rewrites = 0;
  /** Handed to another process (a shared frontier lost its lease): no longer this frontier's. */
  lost = false;

  constructor(key: string) {
    this.key = key;
  }

  get inFlight(): number {
    return this.inFlightKeys.size;
  }

  /** URIs waiting (stored and not in flight), set-aside ones included. */
  get available(): number {
    return this.count - this.inFlightKeys.size;
  }

  /** URIs that could be handed out now: waiting and not set aside. */
  get claimable(): number {
    return this.count - this.inFlightKeys.size - this.asideKeys.size;
  }

  /** Whether the head buffer holds what the invariant says (false once dropped, until a refill). */
  get headInMemory(): boolean {
    return this.allLoaded || this.cursor !== null;
  }

  /**
   * The priority of the URI this queue hands out next: its head's, or while
   * the buffer is dropped the one kept for it; NaN when not known without a
   * read (the queue ranks by it in the `priority` precedence).
   */
  get nextRank(): number {
    const head = this.head[0];
    if (head !== undefined) return priorityOf(head.stored.u);
    if (this.headInMemory) return Number.NaN;
    return this.idleKey === null ? Number.NaN : this.idleRank;
  }

  get needsRefill(): boolean {
    return this.head.length === 0 && !this.allLoaded && this.claimable > 0;
  }

  /**
   * A stored, not-in-flight item appeared (new, retried or deferred); keep
   * the invariant. True when it became the next URI of an idle queue.
   */
  offer(item: HeadItem, capacity: number): boolean {
    if (!this.headInMemory) {
      if (this.idleKey === null || Buffer.compare(item.key, this.idleKey) >= 0) return false;
      this.#idle(item);
      return true;
    }
    if (!this.allLoaded && Buffer.compare(item.key, this.cursor!) > 0) return false;
    let i = this.head.length;
    while (i > 0 && Buffer.compare(this.head[i - 1]!.key, item.key) > 0) i--;
    this.head.splice(i, 0, item);
    if (this.head.length > capacity) {
      this.head.pop();
      this.allLoaded = false;
      this.cursor = this.head[this.head.length - 1]!.key;
    }
    return false;
  }

  /**
   * Result of a read after the cursor: the unfinished `items` among the keys
   * read, the `last` key read (null if none) and whether the range ended.
   */
  loaded(items: readonly HeadItem[], last: Buffer | null, complete: boolean): void {
    const check = this.inFlightKeys.size > 0 || this.asideKeys.size > 0;
    for (const item of items) {
      if (!check) this.head.push(item);
      else {
        const hex = item.key.toString('hex');
        if (!this.inFlightKeys.has(hex) && !this.asideKeys.has(hex)) this.head.push(item);
      }
    }
    if (last !== null) this.cursor = last;
    if (complete) this.allLoaded = true;
  }

  takeHead(): HeadItem | undefined {
    const item = this.head.shift();
    if (item !== undefined) this.inFlightKeys.add(item.key.toString('hex'));
    return item;
  }

  /** Take the head URI out of the head buffer, set aside (its host is held). */
  setHeadAside(): HeadItem {
    const item = this.head.shift()!;
    this.asideKeys.add(item.key.toString('hex'));
    return item;
  }

  /** A set-aside URI is claimable again. */
  takeBack(item: HeadItem, capacity: number): void {
    this.asideKeys.delete(item.key.toString('hex'));
    this.offer(item, capacity);
  }

  /** A handed-out URI is no longer in flight (it is either deleted or offered back). */
  land(key: Buffer): void {
    this.inFlightKeys.delete(key.toString('hex'));
  }

  /** Forget the head buffer (queue going idle) so idle queues cost no URI memory. */
  dropHead(): void {
    if (this.headInMemory) {
      const next = this.head[0];
      if (next !== undefined) this.#idle(next);
      else this.idleKey = null;
    }
    this.head = [];
    this.cursor = null;
    this.allLoaded = this.count === 0;
  }

  #idle(item: HeadItem): void {
    this.idleKey = item.key;
    this.idleRank = priorityOf(item.stored.u);
  }

  /**
   * The durable figures of the queue as they stand now (queue-meta.ts): spent
   * budgets count only URIs no longer in flight.
   */
  meta(): QueueMeta {
    const inFlight = this.inFlight;
    return {
      f: this.finished,
      t: Math.max(0, this.totalSpent - inFlight),
      s: Math.max(0, this.sessionSpent - inFlight),
      w: this.wakeAt,
      a: this.active,
      n: this.rotation,
      ...(this.headInMemory || this.idleKey === null ? {} : { k: this.idleKey.toString('hex'), p: this.idleRank }),
    };
  }

  report(): QueueReport {
    return {
      key: this.key,
      state: this.state,
      queued: this.available,
      inProcess: this.inFlight,
      setAside: this.asideKeys.size,
      finished: this.finished,
      budgetSpent: this.totalSpent,
      sessionSpent: this.sessionSpent,
      wakeAt: this.state === 'snoozed' && !this.parked ? this.wakeAt : null,
    };
  }

  /** Take back the figures saved before a restart (a queue rebuilt on resume has nothing in flight yet). */
  restore(meta: QueueMeta): void {
    this.finished = meta.f;
    this.totalSpent = meta.t;
    this.sessionSpent = meta.s;
    this.wakeAt = meta.w;
    this.active = meta.a;
    this.rotation = meta.n;
    this.idleKey = meta.k === undefined ? null : Buffer.from(meta.k, 'hex');
    this.idleRank = meta.p ?? 0;
  }
}
