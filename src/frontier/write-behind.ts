/**
 * The frontier's writes to its store (queue-store.ts). New URIs are written
 * at once (`add()`, awaited by schedule()); everything else goes through
 * one ordered write-behind channel: each flush is a single atomic commit
 * holding the pending deletes of finished URIs, pending rewrites (retries,
 * prerequisites) and the figures of every queue and host changed since the
 * last flush, snapshotted then. One store round trip per finished URI would
 * cap the crawl at a few thousand URIs/s. A flush waits GROUP_COMMIT_MS for
 * more to gather (a group commit): on one host fetched back to back, a flush
 * on the next turn of the event loop held one URI's delete and the same
 * queue's and host's figures each time, ~1.5 commits per URI.
 *
 * Crash safety: because a queue's figures land in the same commit as the
 * deletes they reflect, a crash that loses the last commit loses both: the
 * URIs are fetched again (at-least-once, as for a crash mid-fetch) and are
 * counted, charged and followed by their delay then, never twice. Sort keys
 * are never reused, so a late delete cannot remove anything else. An entry is
 * deleted only when its URI is finished, so after a crash in-process URIs
 * are still stored.
 *
 * Reads must not bring back what is being deleted: a finished URI's delete
 * may still be pending, or may land while a read that saw it is in flight
 * (a LevelDB iterator reads a snapshot; a networked read may cross the
 * write). Such keys stay in `#deleting` until no read that began before
 * their commit landed is still running.
 */
import { FrontierError, FrontierErrorCode } from './errors.js';
import { refId, type QueueEntry, type QueueStore, type ReadEntry, type StoreBatch, type StoreOp } from './queue-store.js';

const WRITE_BATCH = 512;
/**
 * How long pending writes gather before they are committed. A crash loses
 * at most this much more: the URIs finished in it are fetched again on
 * resume (at-least-once, as for a crash mid-fetch). On the PostgreSQL docs
 * (1,176 URIs, one host) 10 ms took ~0.35 s off the main thread's ~3.5 s
 * (six alternated runs each, notes/performance-history.md).
 */
export const GROUP_COMMIT_MS = 10;

/** What changed since the last call, as it stands now: queues' figures and hosts' gate times. */
export type MetaSnapshot = Pick<StoreBatch, 'queues' | 'hosts'>;

export interface ReadResult {
  /** The URIs read that are not being deleted. */
  entries: ReadEntry[];
  /** The last sort key read (where the next read starts), null if none. */
  last: Buffer | null;
  /** The queue's range ended. */
  complete: boolean;
}

const NOTHING_CHANGED = (): MetaSnapshot => ({ queues: [], hosts: [] });

export class WriteBehind {
  readonly #store: QueueStore;
  readonly #snapshot: () => MetaSnapshot;
  /** Ids (refId) of URIs finished and not yet deleted, or deleted while a read that may have seen them was in flight. */
  readonly #deleting = new Set<string>();
  /** Deleted ids still in `#deleting` because reads were in flight when their commit landed. */
  #landed: string[] = [];
  #reads = 0;
  #pending: StoreOp[] = [];
  /** Ids of the deletes in `#pending`. */
  #pendingDeletes: string[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #flushTimer: ReturnType<typeof setTimeout> | null = null;
  #failure: unknown = undefined;

  /** `snapshot` is called as each commit is made: the figures changed since its last call. */
  constructor(store: QueueStore, snapshot: () => MetaSnapshot = NOTHING_CHANGED) {
    this.#store = store;
    this.#snapshot = snapshot;
  }

  /** Delete a finished URI's entry soon. */
  delLater(queueKey: string, sortKey: Buffer): void {
    this.#throwIfFailed();
    const id = refId(queueKey, sortKey);
    this.#deleting.add(id);
    this.#pendingDeletes.push(id);
    this.#pending.push({ type: 'del', ref: { queueKey, sortKey } });
    this.writeSoon();
  }

  /** Rewrite URI entries in order with the pending deletes; await `flush()` before reading them. */
  putLater(entries: readonly QueueEntry[]): void {
    this.#throwIfFailed();
    for (const entry of entries) this.#pending.push({ type: 'put', entry });
    this.writeSoon();
  }

  /** Something is pending (or figures changed): flush within GROUP_COMMIT_MS, or now if the batch is full. */
  writeSoon(): void {
    if (this.#pending.length >= WRITE_BATCH) this.#flushInBackground();
    else this.#flushTimer ??= setTimeout(() => this.#flushInBackground(), GROUP_COMMIT_MS);
  }

  /** Commit everything pending plus the figures' snapshot; resolves once it is in the store. */
  flush(): Promise<void> {
    if (this.#flushTimer !== null) {
      clearTimeout(this.#flushTimer);
      this.#flushTimer = null;
    }
    const ops = this.#pending;
    const deletes = this.#pendingDeletes;
    this.#pending = [];
    this.#pendingDeletes = [];
    const { queues, hosts } = this.#snapshot();
    if (ops.length > 0 || queues.length > 0 || hosts.length > 0) {
      this.#flushing = this.#flushing.then(async () => {
        try {
          // Only now, after the previous commit landed: a store closed under
          // us (a crash) fails here, not in the caller.
          await this.#store.commit({ ops, queues, hosts });
        } catch (err) {
          this.#failure ??= err;
        }
        for (const id of deletes) this.#landed.push(id);
        this.#forgetLanded();
      });
    }
    return this.#flushing.then(() => this.#throwIfFailed());
  }

  /** Store new URIs now. */
  async add(entries: readonly QueueEntry[]): Promise<void> {
    this.#throwIfFailed();
    if (entries.length > 0) await this.#store.add(entries);
  }

  /** Up to `limit` URIs of a queue after `after`, less those being deleted. */
  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadResult> {
    this.#reads++;
    try {
      const read = await this.#store.readAfter(queueKey, after, limit);
      // Filtered before `#reads` drops, so no delete landing meanwhile is forgotten first.
      const entries = this.#deleting.size === 0 ? read : read.filter((e) => !this.#deleting.has(refId(queueKey, e.sortKey)));
      return { entries, last: read.at(-1)?.sortKey ?? null, complete: read.length < limit };
    } finally {
      this.#reads--;
      this.#forgetLanded();
    }
  }

  #forgetLanded(): void {
    if (this.#reads > 0) return;
    for (const id of this.#landed) this.#deleting.delete(id);
    this.#landed = [];
  }

  /** A failed background write is kept and thrown by the next call, not left unhandled. */
  #flushInBackground(): void {
    this.flush().catch(() => undefined);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw new FrontierError(FrontierErrorCode.storeFailed, 'frontier store write failed', { cause: this.#failure });
  }
}
