/**
 * LevelDB layout of the frontier: one entry per queued URI, keyed
 * `queueKey \0 sortKey` so each queue is a contiguous, ordered range and its
 * head is the first key of that range. The value is JSON `{o, u}`: the
 * discovery ordinal (so a reopened frontier continues numbering) and the
 * CrawlUri. An entry is deleted only when its URI is finished, so after a
 * crash in-process URIs are still here. After all URI entries come the
 * hosts' gate times (`0xFE host`) and per-queue metadata (`0xFF queueKey`),
 * see queue-meta.ts.
 *
 * Writes other than new URIs go through one ordered write-behind channel:
 * each flush is a single atomic batch holding the pending deletes of
 * finished URIs, pending rewrites (retries, prerequisites) and the metadata
 * of every queue and host changed since the last flush, snapshotted then.
 * One LevelDB round trip per finished URI would cap the crawl at a few
 * thousand URIs/s. Because a queue's metadata lands in the same batch as the
 * deletes it reflects, a crash that loses the last batch loses both: the
 * URIs are fetched again (at-least-once, as for a crash mid-fetch) and are
 * counted, charged and followed by their delay then, never twice. Keys are
 * never reused, so a late delete cannot remove anything else.
 *
 * The range is a Keyspace of the crawl's root database (src/store/keyspace.ts):
 * every key above is stored behind the space's prefix, which is exactly what
 * the `frontier` sublevel of earlier versions wrote, so their state resumes.
 * Callers and the in-memory head buffers only ever see keys without the
 * prefix. All traffic goes to the root database with its default (buffer)
 * encodings and chained batches, the cheapest path in abstract-level for the
 * main thread; values are written as UTF-8 Buffers and read as strings.
 */
import type { Keyspace } from '../store/keyspace.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { HOSTS_START, META_START, hostKey, hostOfKey, metaKey, parseMeta, queueKeyOfMeta, type QueueMeta } from './queue-meta.js';
import type { ReadResult, StoredEntry, StoredUri } from './stored-uri.js';

const SEPARATOR = 0x00;
/**
 * Reads ask LevelDB for values as strings: one option per iterator (not per
 * key), and classic-level then makes the strings natively, about 2-3 µs per
 * read key cheaper on the main thread than Buffers turned into strings in JS.
 */
const READ_UTF8 = Object.freeze({ valueEncoding: 'utf8' as const });
const READ_BATCH = 1000;
const EMPTY = Buffer.alloc(0);
const WRITE_BATCH = 512;

type Op = { type: 'del'; key: Buffer } | { type: 'put'; key: Buffer; value: string };

/** What changed since the last call, as it stands now: queues' metadata and hosts' gate times. */
export interface MetaSnapshot {
  queues: Iterable<readonly [queueKey: string, meta: QueueMeta]>;
  /** `host:port` → epoch ms before which it is not fetched again. */
  hosts: Iterable<readonly [host: string, openAt: number]>;
}

function queueBytes(queueKey: string): Buffer {
  if (queueKey.includes('\0')) throw new FrontierError(FrontierErrorCode.badUri, `queue key contains NUL: ${JSON.stringify(queueKey)}`);
  return Buffer.from(queueKey, 'utf8');
}

export function entryKey(queueKey: string, sortKey: Buffer): Buffer {
  const q = queueBytes(queueKey);
  return Buffer.concat([q, Buffer.of(SEPARATOR), sortKey]);
}

/** Queue key of a stored entry key. */
export function queueKeyOf(key: Buffer): string {
  const at = key.indexOf(SEPARATOR);
  return key.toString('utf8', 0, at < 0 ? key.length : at);
}

export class QueueStore {
  readonly #space: Keyspace;
  readonly #snapshot: () => MetaSnapshot;
  /**
   * Hex keys finished and not yet deleted, or deleted while a read that may
   * have seen them was in flight (LevelDB iterators read a snapshot): reads
   * must not resurrect them.
   */
  readonly #deleting = new Set<string>();
  /** Deleted keys still in `#deleting` because reads were in flight when their batch landed. */
  #landed: string[] = [];
  #reads = 0;
  #pending: Op[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #flushScheduled = false;
  #failure: unknown = undefined;

  /** `space` must be over a database whose default encodings are buffers (the crawl's `state/` is). */
  constructor(space: Keyspace, snapshot: () => MetaSnapshot = () => ({ queues: [], hosts: [] })) {
    if (!space.hasBufferEncodings) throw new FrontierError(FrontierErrorCode.badOptions, 'the frontier needs a database with buffer encodings');
    this.#space = space;
    this.#snapshot = snapshot;
  }

  /** Delete a finished URI's entry soon (see the file comment). */
  delLater(key: Buffer): void {
    this.#throwIfFailed();
    this.#deleting.add(key.toString('hex'));
    this.#pending.push({ type: 'del', key });
    this.writeSoon();
  }

  /** Rewrite URI entries in order with the pending deletes; await `flush()` before reading them. */
  putLater(entries: readonly StoredEntry[]): void {
    this.#throwIfFailed();
    for (const [key, value] of entries) this.#pending.push({ type: 'put', key, value: JSON.stringify(value) });
    this.writeSoon();
  }

  /** Something is pending (or metadata changed): flush on the next turn, or now if the batch is full. */
  writeSoon(): void {
    if (this.#pending.length >= WRITE_BATCH) this.#flushInBackground();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flushInBackground());
    }
  }

  /** Write everything pending plus the metadata snapshot in one batch; resolves once it is in LevelDB. */
  flush(): Promise<void> {
    this.#flushScheduled = false;
    const ops = this.#pending;
    this.#pending = [];
    const changed = this.#snapshot();
    for (const [queueKey, meta] of changed.queues) ops.push({ type: 'put', key: metaKey(queueKey), value: JSON.stringify(meta) });
    for (const [host, openAt] of changed.hosts) ops.push({ type: 'put', key: hostKey(host), value: String(openAt) });
    if (ops.length > 0) {
      this.#flushing = this.#flushing.then(async () => {
        try {
          // Built only now, after the previous batch landed: creating a batch
          // on a database closed under us (a crash) fails here, not in the caller.
          const batch = this.#space.db.batch();
          for (const op of ops) {
            if (op.type === 'del') batch.del(this.#space.key(op.key));
            else batch.put(this.#space.key(op.key), Buffer.from(op.value, 'utf8'));
          }
          await batch.write();
        } catch (err) {
          this.#failure ??= err;
        }
        for (const op of ops) if (op.type === 'del') this.#landed.push(op.key.toString('hex'));
        this.#forgetLanded();
      });
    }
    return this.#flushing.then(() => this.#throwIfFailed());
  }

  #forgetLanded(): void {
    if (this.#reads > 0) return;
    for (const hex of this.#landed) this.#deleting.delete(hex);
    this.#landed = [];
  }

  /** A failed background write is kept and thrown by the next call, not left unhandled. */
  #flushInBackground(): void {
    this.flush().catch(() => undefined);
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw new FrontierError(FrontierErrorCode.storeFailed, 'frontier store write failed', { cause: this.#failure });
  }

  async putMany(entries: readonly StoredEntry[]): Promise<void> {
    this.#throwIfFailed();
    if (entries.length === 0) return;
    const batch = this.#space.db.batch();
    for (const [key, value] of entries) batch.put(this.#space.key(key), Buffer.from(JSON.stringify(value), 'utf8'));
    await batch.write();
  }

  /**
   * Up to `limit` stored keys of one queue after `after` (or from its start),
   * and the entries among them not finished: `last` is the last key read
   * (where the next read starts), `complete` that the queue's range ended.
   */
  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadResult> {
    const space = this.#space;
    const q = queueBytes(queueKey);
    const end = space.key(Buffer.concat([q, Buffer.of(SEPARATOR + 1)]));
    const range = after === null ? { gte: space.key(Buffer.concat([q, Buffer.of(SEPARATOR)])), lt: end } : { gt: space.key(after), lt: end };
    this.#reads++;
    try {
      const rows = await space.db.iterator<Buffer, string>({ ...range, limit, ...READ_UTF8 }).all();
      // Filtered before `#reads` drops, so no delete landing meanwhile is forgotten first.
      const entries: StoredEntry[] = [];
      for (const [stored, value] of rows) {
        const key = space.suffix(stored);
        if (!this.#deleting.has(key.toString('hex'))) entries.push([key, JSON.parse(value) as StoredUri]);
      }
      const last = rows.at(-1);
      return { entries, last: last === undefined ? null : space.suffix(last[0]), complete: rows.length < limit };
    } finally {
      this.#reads--;
      this.#forgetLanded();
    }
  }

  /** Every stored URI entry in key order, read in batches (for rebuilding queues on open). */
  async *scanAll(): AsyncGenerator<StoredEntry> {
    for await (const [key, value] of this.#scan(EMPTY, HOSTS_START)) yield [key, JSON.parse(value) as StoredUri] as const;
  }

  /** Every queue's saved metadata (for rebuilding queues on open). */
  async *scanMeta(): AsyncGenerator<readonly [queueKey: string, meta: QueueMeta]> {
    for await (const [key, value] of this.#scan(META_START, null)) yield [queueKeyOfMeta(key), parseMeta(value)] as const;
  }

  /** Every host's saved gate time. */
  async *scanHosts(): AsyncGenerator<readonly [host: string, openAt: number]> {
    for await (const [key, value] of this.#scan(HOSTS_START, META_START)) yield [hostOfKey(key), Number(value)] as const;
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
