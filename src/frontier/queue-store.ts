/**
 * LevelDB layout of the frontier: one entry per queued URI, keyed
 * `queueKey \0 sortKey` so each queue is a contiguous, ordered range and its
 * head is the first key of that range. The value is JSON `{o, u}`: the
 * discovery ordinal (so a reopened frontier continues numbering) and the
 * CrawlUri. An entry is deleted only when its URI is finished, so after a
 * crash in-process URIs are still here. Deletes are written behind, in
 * batches: one LevelDB round trip per finished URI would cap the crawl at a
 * few thousand URIs/s. A crash before a batch lands refetches those few URIs
 * (at-least-once, as for a crash mid-fetch); keys are never reused, so a late
 * delete cannot remove anything else.
 *
 * Works on a ClassicLevel or a sublevel of one; encodings are given per call
 * so the caller's defaults do not matter.
 */
import type { AbstractLevel } from 'abstract-level';
import type { CrawlUri } from '../core/crawl-uri.js';
import { FrontierError, FrontierErrorCode } from './errors.js';

// The frontier only needs untyped access: it passes its own encodings.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type FrontierDb = AbstractLevel<any, any, any>;

export interface StoredUri {
  /** Frontier-wide discovery ordinal. */
  o: number;
  u: CrawlUri;
}

export type StoredEntry = readonly [key: Buffer, value: StoredUri];

const ENCODINGS = Object.freeze({ keyEncoding: 'buffer', valueEncoding: 'utf8' });
const SEPARATOR = 0x00;
const READ_BATCH = 1000;
const DELETE_BATCH = 512;

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
  /** Hex keys finished but not yet deleted; reads must not resurrect them. */
  readonly #deleting = new Set<string>();
  #pendingDeletes: Buffer[] = [];
  #flushing: Promise<void> = Promise.resolve();
  #flushScheduled = false;
  #failure: unknown = undefined;

  constructor(db: FrontierDb) {
    this.#db = db;
  }

  /** Delete a finished URI's entry soon (see the file comment). */
  delLater(key: Buffer): void {
    this.#throwIfFailed();
    this.#deleting.add(key.toString('hex'));
    this.#pendingDeletes.push(key);
    if (this.#pendingDeletes.length >= DELETE_BATCH) void this.flush();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** True while `key`'s delete has not reached LevelDB. */
  isDeleting(hexKey: string): boolean {
    return this.#deleting.has(hexKey);
  }

  /** Write all pending deletes; resolves once they are in LevelDB. */
  flush(): Promise<void> {
    this.#flushScheduled = false;
    const keys = this.#pendingDeletes;
    this.#pendingDeletes = [];
    if (keys.length > 0) {
      this.#flushing = this.#flushing.then(async () => {
        try {
          await this.#db.batch(keys.map((key) => ({ type: 'del' as const, key })), ENCODINGS);
        } catch (err) {
          this.#failure ??= err;
        }
        for (const key of keys) this.#deleting.delete(key.toString('hex'));
      });
    }
    return this.#flushing.then(() => this.#throwIfFailed());
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

  /** Up to `limit` entries of one queue with keys after `after` (or from its start). */
  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<StoredEntry[]> {
    const q = queueBytes(queueKey);
    const start = Buffer.concat([q, Buffer.of(SEPARATOR)]);
    const end = Buffer.concat([q, Buffer.of(SEPARATOR + 1)]);
    const range = after === null ? { gte: start, lt: end } : { gt: after, lt: end };
    const rows: [Buffer, string][] = await this.#db.iterator({ ...range, limit, ...ENCODINGS }).all();
    return rows.map(([key, value]) => [key, JSON.parse(value) as StoredUri] as const);
  }

  /** Every stored entry in key order, read in batches (for rebuilding queues on open). */
  async *scanAll(): AsyncGenerator<StoredEntry> {
    const it = this.#db.iterator({ ...ENCODINGS });
    try {
      for (;;) {
        const rows: [Buffer, string][] = await it.nextv(READ_BATCH);
        if (rows.length === 0) return;
        for (const [key, value] of rows) yield [key, JSON.parse(value) as StoredUri] as const;
      }
    } finally {
      await it.close();
    }
  }
}
