/**
 * The frontier's queue store on LevelDB (queue-store.ts): one entry per
 * queued URI, keyed `queueKey \0 sortKey` so each queue is a contiguous,
 * ordered range and its head is the first key of that range. The value is
 * JSON `{o, u}`: the discovery ordinal (so a reopened frontier continues
 * numbering) and the CrawlUri. After all URI entries come the hosts' gate
 * times (`0xFE host`) and per-queue figures (`0xFF queueKey`), see
 * queue-meta.ts. `load()` is the one place that reads everything: a scan of
 * the figures, the gate times and every URI entry (counting per queue).
 *
 * The range is a Keyspace of the crawl's root database (src/store/keyspace.ts):
 * every key above is stored behind the space's prefix, which is exactly what
 * the `frontier` sublevel of earlier versions wrote, so their state resumes.
 * All traffic goes to the root database with its default (buffer)
 * encodings and chained batches, the cheapest path in abstract-level for the
 * main thread; values are written as UTF-8 Buffers and read as strings.
 */
import type { Keyspace } from '../store/keyspace.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { HOSTS_START, META_START, hostKey, hostOfKey, metaKey, parseMeta, queueKeyOfMeta } from './queue-meta.js';
import type { EntryRef, QueueEntry, QueueStore, ReadEntry, StoreBatch, StoredQueue, StoredState } from './queue-store.js';
import type { StoredUri } from './stored-uri.js';

const SEPARATOR = 0x00;
/**
 * Reads ask LevelDB for values as strings: one option per iterator (not per
 * key), and classic-level then makes the strings natively, about 2-3 µs per
 * read key cheaper on the main thread than Buffers turned into strings in JS.
 */
const READ_UTF8 = Object.freeze({ valueEncoding: 'utf8' as const });
const READ_BATCH = 1000;
const EMPTY = Buffer.alloc(0);

function checkQueueKey(queueKey: string): void {
  if (queueKey.includes('\0')) throw new FrontierError(FrontierErrorCode.badUri, `queue key contains NUL: ${JSON.stringify(queueKey)}`);
}

/** `queueKey \0 sortKey` behind `prefix`, in one allocation. */
function prefixedEntryKey(prefix: Buffer, queueKey: string, sortKey: Buffer): Buffer {
  checkQueueKey(queueKey);
  const queueBytes = Buffer.byteLength(queueKey, 'utf8');
  const out = Buffer.allocUnsafe(prefix.length + queueBytes + 1 + sortKey.length);
  prefix.copy(out, 0);
  out.write(queueKey, prefix.length, 'utf8');
  out[prefix.length + queueBytes] = SEPARATOR;
  sortKey.copy(out, prefix.length + queueBytes + 1);
  return out;
}

/** A URI entry's key inside the frontier's range (without the keyspace prefix). */
export function entryKey(queueKey: string, sortKey: Buffer): Buffer {
  return prefixedEntryKey(EMPTY, queueKey, sortKey);
}

/** Queue key of a stored entry key (without the keyspace prefix). */
export function queueKeyOf(key: Buffer): string {
  const at = key.indexOf(SEPARATOR);
  return key.toString('utf8', 0, at < 0 ? key.length : at);
}

export class LevelQueueStore implements QueueStore {
  readonly #space: Keyspace;

  /** `space` must be over a database whose default encodings are buffers (the crawl's `state/` is). */
  constructor(space: Keyspace) {
    if (!space.hasBufferEncodings) throw new FrontierError(FrontierErrorCode.badOptions, 'the frontier needs a database with buffer encodings');
    this.#space = space;
  }

  async load(): Promise<StoredState> {
    const queues = new Map<string, StoredQueue>();
    for await (const [key, value] of this.#scan(META_START, null)) queues.set(queueKeyOfMeta(key), { count: 0, meta: parseMeta(value) });
    const hosts = new Map<string, number>();
    for await (const [key, value] of this.#scan(HOSTS_START, META_START)) hosts.set(hostOfKey(key), Number(value));
    let ordinal = 0;
    for await (const [key, value] of this.#scan(EMPTY, HOSTS_START)) {
      const queueKey = queueKeyOf(key);
      const queue = queues.get(queueKey);
      if (queue === undefined) queues.set(queueKey, { count: 1, meta: null });
      else queue.count++;
      const { o } = JSON.parse(value) as StoredUri;
      if (o > ordinal) ordinal = o;
    }
    return { queues, hosts, ordinal };
  }

  async add(entries: readonly QueueEntry[]): Promise<void> {
    const batch = this.#space.db.batch();
    for (const e of entries) batch.put(this.#key(e), Buffer.from(JSON.stringify(e.value), 'utf8'));
    await batch.write();
  }

  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadEntry[]> {
    const prefix = this.#space.prefix;
    const start = prefixedEntryKey(prefix, queueKey, after ?? EMPTY);
    // The queue's range ends where its separator byte would be one higher.
    const end = prefixedEntryKey(prefix, queueKey, EMPTY);
    end[end.length - 1] = SEPARATOR + 1;
    const range = after === null ? { gte: start, lt: end } : { gt: start, lt: end };
    const rows = await this.#space.db.iterator<Buffer, string>({ ...range, limit, ...READ_UTF8 }).all();
    const skip = start.length - (after?.length ?? 0);
    return rows.map(([key, value]) => ({ sortKey: key.subarray(skip), value: JSON.parse(value) as StoredUri }));
  }

  async commit(batch: StoreBatch): Promise<void> {
    const space = this.#space;
    const write = space.db.batch();
    for (const op of batch.ops) {
      if (op.type === 'del') write.del(this.#key(op.ref));
      else write.put(this.#key(op.entry), Buffer.from(JSON.stringify(op.entry.value), 'utf8'));
    }
    for (const [queueKey, meta] of batch.queues) write.put(space.key(metaKey(queueKey)), Buffer.from(JSON.stringify(meta), 'utf8'));
    for (const [host, openAt] of batch.hosts) write.put(space.key(hostKey(host)), Buffer.from(String(openAt), 'utf8'));
    await write.write();
  }

  #key(ref: EntryRef): Buffer {
    return prefixedEntryKey(this.#space.prefix, ref.queueKey, ref.sortKey);
  }

  /** Entries with keys in [`from`, `to`) (`to` null: to the end of the space), keys without the prefix. */
  async *#scan(from: Buffer, to: Buffer | null): AsyncGenerator<[key: Buffer, value: string]> {
    const space = this.#space;
    const end = to === null ? space.end : space.key(to);
    const range = end === null ? { gte: space.key(from) } : { gte: space.key(from), lt: end };
    const it = space.db.iterator<Buffer, string>({ ...range, ...READ_UTF8 });
    try {
      for (;;) {
        const rows = await it.nextv(READ_BATCH);
        if (rows.length === 0) return;
        for (const [key, value] of rows) yield [space.suffix(key), value];
      }
    } finally {
      await it.close();
    }
  }
}
