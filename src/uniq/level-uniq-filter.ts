/**
 * The already-seen filter on LevelDB (classic-level), as Heritrix's
 * BdbUriUniqFilter: one 8-byte big-endian Heritrix key per canonical URL,
 * empty values, so a host's keys sit together and forgetHost is one range.
 *
 * A batch of URLs costs two store round trips whatever its size: one
 * hasMany for all keys, then one atomic batch that puts the absent ones and
 * the new count.
 *
 * Concurrency: batches from many workers overlap (their hasMany reads run in
 * parallel on libuv's pool); a key being checked or written by one batch
 * answers false to every other batch at once, which is what makes
 * "concurrent calls never both get true" hold. Writes go out one at a time so
 * the stored count is always exact. forget/forgetHost wait until no batch is
 * running and hold new ones back while they work.
 */
import { ClassicLevel } from 'classic-level';
import { canonicalizeForSeen } from '../url/canonicalize.js';
import type { Fp64 } from './rabin.js';
import { HOST_PREFIX_BYTES, KEY_BYTES, hostPrefixBytes, writeKey } from './heritrix-key.js';
import { BatchedUriUniqFilter, BeforeCommitFailure, UniqFilterClosedError, UniqStoreError, type BeforeCommit } from './uniq-filter.js';

/**
 * Where the count is kept. Shorter than the 3-byte host prefix, so it sorts
 * outside every host's key range and forgetHost can never delete it.
 */
export const COUNT_KEY = Buffer.from('#n', 'latin1');

const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
const EMPTY = Buffer.alloc(0);
/** Keys per generation of the recently-seen cache (two generations: ~2 × 100k × ~60 B). */
const RECENT_KEYS = 100_000;
/** forgetHost deletes in chunks so a huge host never sits wholly in memory. */
const FORGET_CHUNK_KEYS = 10_000;

type PutOrDel = { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer };

/**
 * The part of an abstract-level database this filter uses: a ClassicLevel or
 * one of its sublevels, whatever its default encodings (every call here
 * passes buffer encodings explicitly).
 */
export interface SeenLevel {
  readonly status: string;
  open(): Promise<void>;
  close(): Promise<void>;
  hasMany(keys: Buffer[], options: { keyEncoding: 'buffer' }): Promise<boolean[]>;
  get(key: Buffer, options: typeof BUF): Promise<Buffer | undefined>;
  batch(ops: PutOrDel[], options: typeof BUF): Promise<void>;
  keys(options: { keyEncoding: 'buffer'; gte: Buffer; lte: Buffer; limit: number }): { all(): Promise<Buffer[]> };
}

/** Tuning for a database the filter opens itself (ignored for a passed-in one). */
export interface LevelUriUniqFilterOpts {
  /** LevelDB block cache. Default 64 MiB: lookups of seen keys hit it. */
  cacheSizeBytes?: number;
  /** LevelDB memtable size. Default 16 MiB: fewer level-0 files, fewer write stalls. */
  writeBufferSizeBytes?: number;
}

export class LevelUriUniqFilter extends BatchedUriUniqFilter {
  readonly #db: SeenLevel;
  /** Only a database opened from a path is ours to close. */
  readonly #ownsDb: boolean;
  /** Opening and reading the count; every operation awaits it. */
  readonly #ready: Promise<void>;
  #count = 0;
  #closed = false;
  /** Keys (latin1 strings of the 8 bytes) some running batch is checking or writing. */
  readonly #inFlight = new Set<string>();
  /** Running batches, so an exclusive operation can wait for them. */
  readonly #running = new Set<Promise<unknown>>();
  /** Resolves when no exclusive operation is queued or running. */
  #gate: Promise<void> = Promise.resolve();
  /**
   * Group commit: puts of batches that finish their check while a write is
   * under way wait here and go out together in the next write, one store
   * call for many pages' links. Writes still go out one at a time, so the
   * stored count is always exact.
   */
  #waiting: { puts: PutOrDel[]; done: () => void; failed: (err: unknown) => void }[] = [];
  #writing = false;
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  /**
   * Keys known to be stored, most recent first: a page's navigation links are
   * mostly already seen, and answering them from memory saves the store
   * round trip. Bounded (two generations of RECENT_KEYS), so the heap stays
   * flat however big the crawl.
   */
  readonly #recent = new RecentKeys(RECENT_KEYS);

  /** `location`: a directory to open a LevelDB in, or an open database/sublevel to use. */
  constructor(location: string | SeenLevel, opts: LevelUriUniqFilterOpts = {}) {
    super();
    if (typeof location === 'string') {
      this.#db = new ClassicLevel<Buffer, Buffer>(location, {
        ...BUF,
        cacheSize: opts.cacheSizeBytes ?? 64 * 2 ** 20,
        writeBufferSize: opts.writeBufferSizeBytes ?? 16 * 2 ** 20,
      }) as unknown as SeenLevel;
      this.#ownsDb = true;
    } else {
      this.#db = location;
      this.#ownsDb = false;
    }
    this.#ready = this.#init();
    // A failed open is reported by every operation that awaits it.
    this.#ready.catch(() => undefined);
  }

  addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    return this.#shared(() => this.#insert(urls, beforeCommit));
  }

  forget(url: string): Promise<void> {
    return this.#exclusive(async () => {
      const key = Buffer.allocUnsafe(KEY_BYTES);
      writeKey(canonicalizeForSeen(url), key, 0, this.#scratch);
      this.#recent.clear();
      const [present] = await this.#db.hasMany([key], BUF);
      if (present !== true) return;
      await this.#db.batch([{ type: 'del', key }, countPut(this.#count - 1)], BUF);
      this.#count--;
    });
  }

  forgetHost(url: string): Promise<number> {
    return this.#exclusive(async () => {
      const prefix = hostPrefixBytes(canonicalizeForSeen(url));
      const tail = KEY_BYTES - HOST_PREFIX_BYTES;
      const gte = Buffer.concat([prefix, Buffer.alloc(tail, 0x00)]);
      const lte = Buffer.concat([prefix, Buffer.alloc(tail, 0xff)]);
      let forgotten = 0;
      this.#recent.clear();
      for (;;) {
        const keys = await this.#db.keys({ keyEncoding: 'buffer', gte, lte, limit: FORGET_CHUNK_KEYS }).all();
        if (keys.length === 0) break;
        const ops: PutOrDel[] = keys.map((key) => ({ type: 'del', key }));
        ops.push(countPut(this.#count - keys.length));
        await this.#db.batch(ops, BUF);
        this.#count -= keys.length;
        forgotten += keys.length;
      }
      return forgotten;
    });
  }

  count(): Promise<number> {
    return this.#shared(async () => this.#count);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Let queued operations finish; their failures belong to their callers.
    await this.#gate;
    await Promise.allSettled([...this.#running]);
    if (this.#ownsDb && this.#db.status !== 'closed') await this.#db.close();
  }

  async #init(): Promise<void> {
    try {
      if (this.#db.status === 'opening' || this.#db.status === 'closed') await this.#db.open();
      const stored = await this.#db.get(COUNT_KEY, BUF);
      this.#count = stored === undefined ? 0 : Number(stored.toString('latin1'));
    } catch (err) {
      throw new UniqStoreError('cannot open the already-seen store', { cause: err });
    }
  }

  async #insert(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    const n = urls.length;
    const result = new Array<boolean>(n).fill(false);
    if (n === 0) return result;

    // Up to the first await this runs without interleaving, so claiming keys
    // in #inFlight is atomic with respect to every other batch.
    const all = Buffer.allocUnsafe(n * KEY_BYTES); // one allocation, keys are views
    const claimed: string[] = [];
    const claimedKeys: Buffer[] = [];
    const claimedIndex: number[] = [];
    for (let i = 0; i < n; i++) {
      writeKey(canonicalizeForSeen(urls[i] as string), all, i * KEY_BYTES, this.#scratch);
      const key = all.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
      const id = key.toString('latin1');
      // Already claimed, by this batch (a repeat) or by a running one, or
      // recently confirmed stored: not new, and no store round trip.
      if (this.#inFlight.has(id) || this.#recent.has(id)) continue;
      this.#inFlight.add(id);
      claimed.push(id);
      claimedKeys.push(key);
      claimedIndex.push(i);
    }
    if (claimed.length === 0) {
      if (beforeCommit) await runBeforeCommit(beforeCommit, result);
      return result;
    }

    try {
      const present = await this.#db.hasMany(claimedKeys, BUF);
      const puts: PutOrDel[] = [];
      for (let j = 0; j < claimedKeys.length; j++) {
        if (present[j] === true) {
          this.#recent.add(claimed[j] as string);
          continue;
        }
        puts.push({ type: 'put', key: claimedKeys[j] as Buffer, value: EMPTY });
        result[claimedIndex[j] as number] = true;
      }
      // Keys stay claimed in #inFlight while the caller queues the new URIs.
      if (beforeCommit) await runBeforeCommit(beforeCommit, result);
      if (puts.length > 0) {
        await this.#write(puts);
        for (let j = 0; j < claimed.length; j++) if (result[claimedIndex[j] as number]) this.#recent.add(claimed[j] as string);
      }
      return result;
    } finally {
      for (const id of claimed) this.#inFlight.delete(id);
    }
  }

  /** Put `puts` (with the new count) after every earlier write, grouped with others that are waiting. */
  #write(puts: PutOrDel[]): Promise<void> {
    const written = new Promise<void>((done, failed) => this.#waiting.push({ puts, done, failed }));
    if (!this.#writing) void this.#drainWrites();
    return written;
  }

  async #drainWrites(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const group = this.#waiting;
      this.#waiting = [];
      const ops: PutOrDel[] = [];
      for (const g of group) for (const op of g.puts) ops.push(op);
      const newCount = this.#count + ops.length;
      ops.push(countPut(newCount));
      try {
        await this.#db.batch(ops, BUF);
        this.#count = newCount;
        for (const g of group) g.done();
      } catch (err) {
        for (const g of group) g.failed(err);
      }
    }
    this.#writing = false;
  }

  /** Run `op` alongside other shared operations, after any queued exclusive one. */
  #shared<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new UniqFilterClosedError());
    return this.#gate.then(() => {
      // Registered synchronously as the gate opens, so an exclusive operation
      // queued after this one is sure to see it in #running.
      const run = this.#guard(op);
      this.#running.add(run);
      const done = (): void => void this.#running.delete(run);
      run.then(done, done);
      return run;
    });
  }

  /** Run `op` alone: after running shared operations finish, before queued ones start. */
  #exclusive<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new UniqFilterClosedError());
    const previous = this.#gate;
    let release!: () => void;
    this.#gate = new Promise<void>((resolve) => (release = resolve));
    return previous.then(async () => {
      try {
        await Promise.allSettled([...this.#running]);
        return await this.#guard(op);
      } finally {
        release();
      }
    });
  }

  /** Wait for the store to be open; report store failures as UniqStoreError. */
  async #guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      await this.#ready;
      return await op();
    } catch (err) {
      if (err instanceof BeforeCommitFailure) throw err.cause;
      if (err instanceof UniqStoreError) throw err;
      throw new UniqStoreError('already-seen store operation failed', { cause: err });
    }
  }
}

/** A bounded set: when the young generation fills, it becomes the old one and the old one is dropped. */
class RecentKeys {
  #young = new Set<string>();
  #old = new Set<string>();
  constructor(readonly generationSize: number) {}

  has(id: string): boolean {
    return this.#young.has(id) || this.#old.has(id);
  }

  add(id: string): void {
    if (this.#young.size >= this.generationSize) {
      this.#old = this.#young;
      this.#young = new Set();
    }
    this.#young.add(id);
  }

  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }
}

async function runBeforeCommit(hook: BeforeCommit, fresh: readonly boolean[]): Promise<void> {
  try {
    await hook(fresh);
  } catch (err) {
    throw new BeforeCommitFailure(err);
  }
}

function countPut(count: number): PutOrDel {
  return { type: 'put', key: COUNT_KEY, value: Buffer.from(String(count), 'latin1') };
}
