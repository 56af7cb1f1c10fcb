/**
 * A queue store in memory (queue-store.ts): for tests, and to show that the
 * frontier needs nothing of LevelDB. It lives as long as the object does, so
 * a frontier reopened over the same object resumes like one over LevelDB
 * after a clean close. Values are kept as JSON text, as a real store would
 * keep them, so nothing the frontier hands in is shared with what it reads
 * back. Per queue, a sorted array searched by bisection: fine for tests, not
 * for millions of URIs.
 */
import { parseMeta } from './queue-meta.js';
import type { QueueEntry, QueueStore, ReadEntry, StoreBatch, StoredQueue, StoredState } from './queue-store.js';
import type { StoredUri } from './stored-uri.js';

interface Row {
  sortKey: Buffer;
  json: string;
}

/** Index of the first row whose key is greater than `key` (or ≥ with `inclusive`). */
function bisect(rows: readonly Row[], key: Buffer, inclusive: boolean): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const cmp = Buffer.compare(rows[mid]!.sortKey, key);
    if (cmp < 0 || (cmp === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MemoryQueueStore implements QueueStore {
  readonly #queues = new Map<string, Row[]>();
  readonly #meta = new Map<string, string>();
  readonly #hosts = new Map<string, number>();

  async load(): Promise<StoredState> {
    const queues = new Map<string, StoredQueue>();
    for (const [key, json] of this.#meta) queues.set(key, { count: 0, meta: parseMeta(json) });
    let ordinal = 0;
    for (const [key, rows] of this.#queues) {
      if (rows.length === 0) continue;
      const queue = queues.get(key);
      if (queue === undefined) queues.set(key, { count: rows.length, meta: null });
      else queue.count = rows.length;
      for (const row of rows) ordinal = Math.max(ordinal, (JSON.parse(row.json) as StoredUri).o);
    }
    return { queues, hosts: new Map(this.#hosts), ordinal };
  }

  async add(entries: readonly QueueEntry[]): Promise<void> {
    for (const entry of entries) this.#put(entry);
  }

  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadEntry[]> {
    const rows = this.#queues.get(queueKey) ?? [];
    const from = after === null ? 0 : bisect(rows, after, false);
    return rows.slice(from, from + limit).map((row) => ({ sortKey: row.sortKey, value: JSON.parse(row.json) as StoredUri }));
  }

  async commit(batch: StoreBatch): Promise<void> {
    for (const op of batch.ops) {
      if (op.type === 'put') this.#put(op.entry);
      else {
        const rows = this.#queues.get(op.ref.queueKey);
        if (rows === undefined) continue;
        const at = bisect(rows, op.ref.sortKey, true);
        if (at < rows.length && rows[at]!.sortKey.equals(op.ref.sortKey)) rows.splice(at, 1);
      }
    }
    for (const [key, meta] of batch.queues) this.#meta.set(key, JSON.stringify(meta));
    for (const [host, openAt] of batch.hosts) this.#hosts.set(host, openAt);
  }

  #put(entry: QueueEntry): void {
    let rows = this.#queues.get(entry.queueKey);
    if (rows === undefined) this.#queues.set(entry.queueKey, (rows = []));
    const at = bisect(rows, entry.sortKey, true);
    const row = { sortKey: Buffer.from(entry.sortKey), json: JSON.stringify(entry.value) };
    if (at < rows.length && rows[at]!.sortKey.equals(entry.sortKey)) rows[at] = row;
    else rows.splice(at, 0, row);
  }
}
