/**
 * The already-seen filter on LevelDB (classic-level), as Heritrix's
 * BdbUriUniqFilter: one 8-byte big-endian Heritrix key per canonical URL,
 * empty values, so a host's keys sit together and forgetHost is one range.
 *
 * LevelDB is the store of record; in front of it sits an exact in-memory
 * table of the stored keys (KeyTable, 8-11 bytes per key). While the table
 * holds every stored key ("complete"), a batch is answered from memory and
 * only its new keys go to the store, as one write. A LevelDB lookup costs
 * 5-10 µs per key on a small machine, the table well under one. When the
 * table reaches `memoryKeys`, or after a reopen until the table has been
 * refilled from the store in the background, keys the table does not know
 * are looked up in LevelDB (one getMany per batch), so the answer is exact
 * either way.
 *
 * Writes are behind: a batch's new keys enter the table (or stay claimed)
 * at once and reach LevelDB in the next group write, after the caller's
 * beforeCommit has queued their URIs, so a crash can at worst repeat a URL,
 * never lose one. All writes go through SeenStoreWrites, one batch at a
 * time, in order, with the exact count. Past HANDOFF_KEYS waiting keys a
 * batch waits for the write in flight, so the waiting ones go to the store
 * as soon as it is free; past MAX_UNWRITTEN_KEYS it waits for its own write
 * (backpressure). A failed write is reported by every later call and by
 * close(). count() and the forgets wait for every earlier write.
 *
 * Concurrency: batches from many workers overlap; a key being checked or
 * written by one batch answers false to every other batch at once (the
 * in-flight table), which is what makes "concurrent calls never both get
 * true" hold. forget/forgetHost run alone (batch-gate.ts).
 */
import { levelDatabase } from '../store/level-database.js';
import { canonicalizeForSeen } from '../url/canonicalize.js';
import { Keyspace, type RootLevel } from '../store/keyspace.js';
import type { Fp64 } from '../fingerprint/rabin.js';
import { KEY_BYTES, hostPrefixBytes, keyInto, storedKeysInto, type KeyHalves } from './heritrix-key.js';
import { BatchGate } from './batch-gate.js';
import { KeyTable } from '../fingerprint/key-table.js';
import { SeenStoreWrites } from './seen-store-writes.js';
import { BatchedUriUniqFilter, BeforeCommitFailure, runBeforeCommit, UniqFilterClosedError, UniqStoreError, type BeforeCommit } from './uniq-filter.js';

/**
 * Where the count is kept. Shorter than a key, so it sorts outside every
 * host's key range and forgetHost can never delete it.
 */
export const COUNT_KEY = Buffer.from('#n', 'latin1');

const EMPTY = Buffer.alloc(0);
/** forgetHost deletes in chunks so a huge host never sits wholly in memory. */
const FORGET_CHUNK_KEYS = 10_000;
/** Keys read per step when refilling the table after a reopen. */
const WARM_CHUNK_KEYS = 10_000;
/** Keys that may wait for their write before a batch has to wait too. */
const MAX_UNWRITTEN_KEYS = 50_000;
/**
 * Keys waiting for the next write beyond which a batch waits for the write in
 * flight, so the next one starts as soon as it lands (see SeenStoreWrites).
 */
export const HANDOFF_KEYS = 8192;
/** 12M keys fit a 2^24-slot table: 128 MiB. */
const DEFAULT_MEMORY_KEYS = 12_000_000;

/** Tuning; the LevelDB sizes apply only to a database the filter opens itself. */
export interface LevelUriUniqFilterOpts {
  /** LevelDB block cache. Default 64 MiB: lookups of seen keys hit it. */
  cacheSizeBytes?: number;
  /** LevelDB memtable size. Default 16 MiB: fewer level-0 files, fewer write stalls. */
  writeBufferSizeBytes?: number;
  /**
   * Most keys kept in memory (8 bytes each at 3/4 load, so 10.7 bytes per
   * key). Beyond it, keys not in memory are confirmed in LevelDB. Default
   * 12,000,000 (128 MiB).
   */
  memoryKeys?: number;
}

/** A stored key's place in the batch being written, as its key bytes and its halves. */
interface PendingKey extends KeyHalves {
  /** Still claimed in #inFlight after the batch returns (until written). */
  claimHeld?: boolean;
}

export class LevelUriUniqFilter extends BatchedUriUniqFilter {
  readonly #space: Keyspace;
  /** Only a database opened from a path is ours to close. */
  readonly #ownsDb: boolean;
  /** Opening and reading the count; every operation awaits it. */
  readonly #ready: Promise<void>;
  #closed = false;
  /** Stored keys known in memory. */
  #known: KeyTable;
  /** True while #known holds every stored key: a miss there is a new key. */
  #complete = false;
  /** Bumped whenever #known stops being a faithful copy; a running refill that sees it change stops. */
  #epoch = 0;
  #warming: Promise<void> = Promise.resolve();
  /** Keys some running batch is checking or writing. */
  readonly #inFlight = new KeyTable();
  /** Batches run side by side, forgets alone. */
  readonly #batches = new BatchGate();
  /** Every store write goes through here, in order; set once the count is read. */
  #writes!: SeenStoreWrites;
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  /** A batch's keys as (hi, lo) pairs, reused by every batch (filled and read before any await). */
  #halves = new Uint32Array(128);
  readonly #countKey: Buffer;

  /**
   * `location`: a directory to open a LevelDB in, or a keyspace of an open
   * database (whose default encodings must be buffers).
   */
  constructor(location: string | Keyspace, opts: LevelUriUniqFilterOpts = {}) {
    super();
    if (typeof location === 'string') {
      const db: RootLevel = levelDatabase(location, {
        cacheSizeBytes: opts.cacheSizeBytes ?? 64 * 2 ** 20,
        writeBufferSizeBytes: opts.writeBufferSizeBytes ?? 16 * 2 ** 20,
      });
      this.#space = new Keyspace(db, '');
      this.#ownsDb = true;
    } else {
      if (!location.hasBufferEncodings) throw new TypeError('the already-seen filter needs a database with buffer encodings');
      this.#space = location;
      this.#ownsDb = false;
    }
    this.#known = new KeyTable({ maxKeys: opts.memoryKeys ?? DEFAULT_MEMORY_KEYS });
    this.#countKey = this.#space.key(COUNT_KEY);
    this.#ready = this.#init();
    // A failed open is reported by every operation that awaits it.
    this.#ready.catch(() => undefined);
  }

  /** Keys held in memory, and whether that is all of them (for benchmarks and reports). */
  get memory(): { keys: number; bytes: number; complete: boolean } {
    return { keys: this.#known.size, bytes: this.#known.bytes, complete: this.#complete };
  }

  addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    return this.#shared(() => this.#insert(urls, beforeCommit));
  }

  hasMany(urls: readonly string[]): Promise<boolean[]> {
    return this.#shared(() => this.#lookup(urls));
  }

  forget(url: string): Promise<void> {
    return this.#exclusive(async () => {
      await this.#writes.allWritten();
      const { hi, lo } = keyInto(canonicalizeForSeen(url), this.#scratch);
      const key = this.#keyOf(hi, lo);
      const [stored] = await this.#space.db.getMany([key]);
      if (stored === undefined) return;
      await this.#writes.del([key]);
      this.#known.delete(hi, lo);
      this.#afterForget();
    });
  }

  forgetHost(url: string): Promise<number> {
    return this.#exclusive(async () => {
      await this.#writes.allWritten();
      const host = hostPrefixBytes(canonicalizeForSeen(url));
      const p = this.#space.prefix;
      const gte = Buffer.concat([p, host, Buffer.alloc(KEY_BYTES - host.length, 0x00)]);
      const lte = Buffer.concat([p, host, Buffer.alloc(KEY_BYTES - host.length, 0xff)]);
      let forgotten = 0;
      for (;;) {
        const keys = await this.#space.db.keys({ gte, lte, limit: FORGET_CHUNK_KEYS }).all();
        if (keys.length === 0) break;
        await this.#writes.del(keys);
        forgotten += keys.length;
        for (const key of keys) this.#known.delete(key.readUInt32BE(p.length), key.readUInt32BE(p.length + 4));
      }
      this.#afterForget();
      return forgotten;
    });
  }

  count(): Promise<number> {
    return this.#shared(async () => {
      await this.#writes.allWritten();
      return this.#writes.count;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#epoch++;
    // Let queued operations finish; their failures belong to their callers.
    await this.#batches.settled();
    await this.#warming;
    // Undefined when the store never opened: nothing was written.
    const writes = this.#writes as SeenStoreWrites | undefined;
    const failure = writes === undefined ? undefined : await writes.allWritten().then(
      () => undefined,
      (err: unknown) => err,
    );
    if (this.#ownsDb && this.#space.db.status !== 'closed') await this.#space.db.close();
    if (failure !== undefined) throw failure instanceof UniqStoreError ? failure : new UniqStoreError('already-seen store write failed', { cause: failure });
  }

  async #init(): Promise<void> {
    try {
      await this.#space.open();
      const [stored] = await this.#space.db.getMany([this.#countKey]);
      this.#writes = new SeenStoreWrites(this.#space, this.#countKey, stored === undefined ? 0 : Number(stored.toString('latin1')));
    } catch (err) {
      throw new UniqStoreError('cannot open the already-seen store', { cause: err });
    }
    if (this.#writes.count === 0) this.#complete = true;
    else this.#startWarming();
  }

  /**
   * Refill the table from the store in the background. Meanwhile batches
   * confirm misses in LevelDB; new keys are added to the table as they are
   * written, and the iterator's snapshot supplies every key stored before,
   * so at the end the table is complete, unless it filled up or was reset.
   */
  #startWarming(): void {
    const epoch = ++this.#epoch;
    this.#complete = false;
    const warm = async (): Promise<void> => {
      const p = this.#space.prefix;
      const it = this.#space.db.keys(this.#space.range);
      try {
        for (;;) {
          const keys = await it.nextv(WARM_CHUNK_KEYS);
          if (epoch !== this.#epoch) return;
          if (keys.length === 0) break;
          for (const key of keys) {
            if (key.length !== p.length + KEY_BYTES) continue;
            if (this.#known.full) return;
            this.#known.add(key.readUInt32BE(p.length), key.readUInt32BE(p.length + 4));
          }
        }
        if (epoch === this.#epoch) this.#complete = true;
      } finally {
        await it.close();
      }
    };
    // A failed refill only leaves the table incomplete: answers stay exact.
    this.#warming = warm().catch(() => undefined);
  }

  /** After a forget: a complete table stays complete (the keys were deleted from it too); a refill starts over. */
  #afterForget(): void {
    if (this.#complete) return;
    this.#known.clear();
    this.#startWarming();
  }

  async #insert(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    const n = urls.length;
    const result = new Array<boolean>(n).fill(false);
    if (n === 0) return result;

    // Up to the first await this runs without interleaving, so claiming keys
    // in #inFlight is atomic with respect to every other batch.
    const known = this.#known;
    const inFlight = this.#inFlight;
    const scratch = this.#scratch;
    // Every key first, then every lookup: the lookups are cache misses in a
    // big table, and a loop of nothing but lookups lets the processor wait
    // for several of them at once.
    if (this.#halves.length < 2 * n) this.#halves = new Uint32Array(2 * n);
    const halves = this.#halves;
    for (let i = 0; i < n; i++) {
      keyInto(canonicalizeForSeen(urls[i] as string), scratch);
      halves[2 * i] = scratch.hi;
      halves[2 * i + 1] = scratch.lo;
    }
    const claimed: PendingKey[] = [];
    const claimedIndex: number[] = [];
    for (let i = 0; i < n; i++) {
      const hi = halves[2 * i] as number;
      const lo = halves[2 * i + 1] as number;
      // Stored, or claimed by this batch (a repeat) or a running one: not new.
      if (known.has(hi, lo) || !inFlight.add(hi, lo)) continue;
      claimed.push({ key: EMPTY, hi, lo });
      claimedIndex.push(i);
    }
    if (claimed.length === 0) {
      if (beforeCommit) await runBeforeCommit(beforeCommit, result);
      return result;
    }

    try {
      storedKeysInto(this.#space.prefix, claimed);
      let stored: (Buffer | undefined)[] | null = null;
      if (!this.#complete) {
        stored = await this.#space.db.getMany(claimed.map((c) => c.key));
        for (let j = 0; j < claimed.length; j++) {
          const c = claimed[j] as PendingKey;
          if (stored[j] !== undefined && !known.full) known.add(c.hi, c.lo);
        }
      }
      const fresh: PendingKey[] = [];
      for (let j = 0; j < claimed.length; j++) {
        if (stored !== null && stored[j] !== undefined) continue;
        fresh.push(claimed[j] as PendingKey);
        result[claimedIndex[j] as number] = true;
      }
      // Keys stay claimed in #inFlight while the caller queues the new URIs.
      if (beforeCommit) await runBeforeCommit(beforeCommit, result);
      if (fresh.length > 0) {
        // Recorded now in memory, in the store with the next group write.
        const stillClaimed: PendingKey[] = [];
        for (const c of fresh) {
          if (!known.full) known.add(c.hi, c.lo);
          else {
            if (this.#complete) this.#dropCompleteness();
            stillClaimed.push(c);
          }
        }
        const written = this.#writes.put(fresh.map((c) => c.key));
        if (stillClaimed.length > 0) {
          // Not in the table: claimed until the store has them, so nobody else takes them meanwhile.
          for (const c of stillClaimed) c.claimHeld = true;
          const release = (): void => {
            for (const c of stillClaimed) inFlight.delete(c.hi, c.lo);
          };
          written.then(release, release);
        }
        if (this.#writes.pendingKeys > MAX_UNWRITTEN_KEYS) await written;
        else {
          written.catch(() => undefined); // reported by the next operation
          // Hand the waiting keys to the store as soon as its current write lands.
          if (this.#writes.waitingKeys > HANDOFF_KEYS) await this.#writes.inFlightLanded();
        }
      }
      return result;
    } finally {
      for (const c of claimed) if (!c.claimHeld) inFlight.delete(c.hi, c.lo);
    }
  }

  /** In the table, claimed by a running batch, or (table incomplete) in the store; records nothing. */
  async #lookup(urls: readonly string[]): Promise<boolean[]> {
    const scratch: Fp64 = { hi: 0, lo: 0 };
    const result = new Array<boolean>(urls.length).fill(false);
    const unknown: PendingKey[] = [];
    const unknownIndex: number[] = [];
    urls.forEach((url, i) => {
      keyInto(canonicalizeForSeen(url), scratch);
      if (this.#known.has(scratch.hi, scratch.lo) || this.#inFlight.has(scratch.hi, scratch.lo)) result[i] = true;
      else if (!this.#complete) {
        unknown.push({ key: EMPTY, hi: scratch.hi, lo: scratch.lo });
        unknownIndex.push(i);
      }
    });
    if (unknown.length > 0) {
      storedKeysInto(this.#space.prefix, unknown);
      const stored = await this.#space.db.getMany(unknown.map((c) => c.key));
      stored.forEach((value, j) => {
        if (value !== undefined) result[unknownIndex[j] as number] = true;
      });
    }
    return result;
  }

  /** The table could not take a stored key: from now on misses are confirmed in the store. */
  #dropCompleteness(): void {
    this.#complete = false;
    this.#epoch++;
  }

  #keyOf(hi: number, lo: number): Buffer {
    const c: KeyHalves = { key: EMPTY, hi, lo };
    storedKeysInto(this.#space.prefix, [c]);
    return c.key;
  }

  /** Run `op` alongside other batches, after any queued forget. */
  #shared<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new UniqFilterClosedError());
    return this.#batches.shared(() => this.#guard(op));
  }

  /** Run `op` alone: after running batches finish, before queued ones start. */
  #exclusive<T>(op: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new UniqFilterClosedError());
    return this.#batches.exclusive(() => this.#guard(op));
  }

  /** Wait for the store to be open; report store failures (a failed earlier write included) as UniqStoreError. */
  async #guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      await this.#ready;
      if (this.#writes.failure !== undefined) throw this.#writes.failure;
      return await op();
    } catch (err) {
      if (err instanceof BeforeCommitFailure) throw err.cause;
      if (err instanceof UniqStoreError) throw err;
      throw new UniqStoreError('already-seen store operation failed', { cause: err });
    }
  }
}
