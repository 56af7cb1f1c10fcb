/**
 * Where queued URIs are kept, apart from the queue state machine that hands
 * them out (work-queue-frontier.ts). The store knows queues only as ordered
 * sets of URI records: a queue key, and inside it a byte-comparable sort key
 * per URI (queue-order.ts), unique within its queue and never reused. It
 * also keeps two small records the frontier saves write-behind — each
 * queue's figures (queue-meta.ts) and each host's gate time — and gives
 * everything back in one `load()` on resume.
 *
 * Every operation names one queue or is a batch; none walks all the URIs of
 * all queues, so a networked store can implement it: on Redis, `q:<queueKey>`
 * sorted sets read after a cursor, a hash of queue figures and one of host
 * gate times, counters kept as they change (redis-queue-store.ts; the one
 * scan `load()` needs is LevelQueueStore's own business). The
 * implementations: LevelDB (level-queue-store.ts), Redis
 * (redis-queue-store.ts), and memory (memory-queue-store.ts, for the tests:
 * a third that keeps this seam honest).
 *
 * A store serves one frontier at a time. The frontier batches what it
 * writes after the new URIs themselves (write-behind.ts): the store only has
 * to make each `commit()` atomic and apply commits in call order.
 */
import type { QueueMeta } from './queue-meta.js';
import type { StoredUri } from './stored-uri.js';

/** A queued URI's place: its queue and its key inside the queue. */
export interface EntryRef {
  readonly queueKey: string;
  readonly sortKey: Buffer;
}

export interface QueueEntry extends EntryRef {
  readonly value: StoredUri;
}

/** One URI read back from a queue, in sort-key order. */
export interface ReadEntry {
  readonly sortKey: Buffer;
  readonly value: StoredUri;
}

export type StoreOp = { readonly type: 'del'; readonly ref: EntryRef } | { readonly type: 'put'; readonly entry: QueueEntry };

/** What one atomic commit writes: URI deletes and rewrites in order, then changed figures. */
export interface StoreBatch {
  readonly ops: readonly StoreOp[];
  readonly queues: readonly (readonly [queueKey: string, meta: QueueMeta])[];
  /** `host:port` → epoch ms before which it is not fetched again. */
  readonly hosts: readonly (readonly [host: string, openAt: number])[];
}

/** A queue as the store left it. */
export interface StoredQueue {
  /** URIs stored (those in process when the last run stopped included). */
  count: number;
  /** Its saved figures, or null when none were ever saved. */
  meta: QueueMeta | null;
}

/** Everything a frontier rebuilds its in-memory state from. */
export interface StoredState {
  /** Every queue holding URIs or saved figures. */
  queues: Map<string, StoredQueue>;
  /** Saved host gate times. */
  hosts: Map<string, number>;
  /** At least the highest discovery ordinal of any stored URI (0 for an empty store). */
  ordinal: number;
}

export interface QueueStore {
  /** What the store holds, summed up (for resume); an empty store gives empty maps. */
  load(): Promise<StoredState>;
  /** Store new URIs; durable once resolved. */
  add(entries: readonly QueueEntry[]): Promise<void>;
  /**
   * Up to `limit` URIs of one queue with sort keys after `after` (or from
   * its start when null), in sort-key order; fewer than `limit` means the
   * queue ended.
   */
  readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadEntry[]>;
  /** Apply one batch atomically, after every earlier commit. */
  commit(batch: StoreBatch): Promise<void>;
}

/** In-memory identity of a stored URI (frontier-wide; sort keys are unique per queue only). */
export function refId(queueKey: string, sortKey: Buffer): string {
  return `${queueKey}\0${sortKey.toString('hex')}`;
}

/**
 * A store shared by the frontiers of several processes (Redis): each queue
 * belongs to one frontier at a time (a lease), and URIs scheduled into a
 * queue another frontier holds are handed to that one (`arrive()` there).
 */
export interface SharedQueueStore extends QueueStore {
  /** Store new URIs as add() does, and say which of their queues are this frontier's. */
  addShared(entries: readonly QueueEntry[]): Promise<SharedAddResult>;
}

export interface SharedAddResult {
  /** Queues whose URIs went to another frontier (or wait for one): none of this frontier's business. */
  foreign: ReadonlySet<string>;
  /** Queues this frontier took on with this add, as stored before it (URIs and figures). */
  adopted: ReadonlyMap<string, StoredQueue>;
}
