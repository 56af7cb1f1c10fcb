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
 * Works on a ClassicLevel or a sublevel of one; encodings are given per call
 * so the caller's defaults do not matter.
 */
import type { AbstractLevel } from 'abstract-level';
import type { CrawlUri } from '../core/crawl-uri.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { HOSTS_START, META_START, hostKey, hostOfKey, metaKey, parseMeta, queueKeyOfMeta, type QueueMeta } from './queue-meta.js';

// The frontier only needs untyped access: it passes its own encodings.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FrontierDb = AbstractLevel<any, any, any>;

export interface StoredUri {
  /** Frontier-wide discovery ordinal. */
  o: number;
  u: CrawlUri;
}

export type StoredEntry = readonly [key: Buffer, value: StoredUri];

export interface ReadResult {
  entries: StoredEntry[];
  last: Buffer | null;
  complete: boolean;
}

const ENCODINGS = Object.freeze({ keyEncoding: 'buffer', valueEncoding: 'utf8' });
const SEPARATOR = 0x00;
const READ_BATCH = 1000;
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
  readonly #db: FrontierDb;
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

  constructor(db: FrontierDb, snapshot: () => MetaSnapshot = () => ({ queues: [], hosts: [] })) {
    this.#db = db;
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
          await this.#db.batch(ops, ENCODINGS);
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
    await this.#db.batch(
      entries.map(([key, value]) => ({ type: 'put' as const, key, value: JSON.stringify(value) })),
      ENCODINGS,
    );
  }

  /**
   * Up to `limit` stored keys of one queue after `after` (or from its start),
   * and the entries among them not finished: `last` is the last key read
   * (where the next read starts), `complete` that the queue's range ended.
   */
  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadResult> {
    const q = queueBytes(queueKey);
    const start = Buffer.concat([q, Buffer.of(SEPARATOR)]);
    const end = Buffer.concat([q, Buffer.of(SEPARATOR + 1)]);
    const range = after === null ? { gte: start, lt: end } : { gt: after, lt: end };
    this.#reads++;
    try {
      const rows: [Buffer, string][] = await this.#db.iterator({ ...range, limit, ...ENCODINGS }).all();
      // Filtered before `#reads` drops, so no delete landing meanwhile is forgotten first.
      const entries = rows.filter(([key]) => !this.#deleting.has(key.toString('hex'))).map(([key, value]) => [key, JSON.parse(value) as StoredUri] as const);
      return { entries, last: rows.at(-1)?.[0] ?? null, complete: rows.length < limit };
    } finally {
      this.#reads--;
      this.#forgetLanded();
    }
  }

  /** Every stored URI entry in key order, read in batches (for rebuilding queues on open). */
  async *scanAll(): AsyncGenerator<StoredEntry> {
    for await (const [key, value] of this.#scan({ lt: HOSTS_START })) yield [key, JSON.parse(value) as StoredUri] as const;
  }

  /** Every queue's saved metadata (for rebuilding queues on open). */
  async *scanMeta(): AsyncGenerator<readonly [queueKey: string, meta: QueueMeta]> {
    for await (const [key, value] of this.#scan({ gte: META_START })) yield [queueKeyOfMeta(key), parseMeta(value)] as const;
  }

  /** Every host's saved gate time. */
  async *scanHosts(): AsyncGenerator<readonly [host: string, openAt: number]> {
    for await (const [key, value] of this.#scan({ gte: HOSTS_START, lt: META_START })) yield [hostOfKey(key), Number(value)] as const;
  }

  async *#scan(range: { lt: Buffer } | { gte: Buffer } | { gte: Buffer; lt: Buffer }): AsyncGenerator<[Buffer, string]> {
    const it = this.#db.iterator({ ...range, ...ENCODINGS });
    try {
      for (;;) {
        const rows: [Buffer, string][] = await it.nextv(READ_BATCH);
        if (rows.length === 0) return;
        yield* rows;
      }
    } finally {
      await it.close();
    }
  }
}
