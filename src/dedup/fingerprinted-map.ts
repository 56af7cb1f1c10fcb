/**
 * A map from strings to JSON values kept in a store's ByteMap (a LevelDB
 * keyspace, a Redis hash), with the 64-bit fingerprints of its keys in memory: the shape of both dedup lookups (this
 * crawl's payload digests, and earlier crawls' ones), where most questions
 * are about keys that are not there.
 *
 * - A key whose fingerprint is not in the table is absent: answered without
 *   touching the disk. The table (KeyTable, off the JS heap) costs 10.7-21
 *   bytes a key as it doubles, where a Map of whole entries costs hundreds.
 * - A fingerprint hit is confirmed by reading the key itself, so a
 *   collision reads nothing and the answer stays exact.
 * - Values set and not yet written are answered from a pending map; writes
 *   go behind, `writeBatchEntries` at a time, one batch in flight (a caller
 *   that would start a second waits for the first: back-pressure).
 * - Past `memoryKeys` the table no longer holds every key, and misses are
 *   confirmed in the store for good: slower, still exact.
 * - Over a store that may hold keys already (a resumed crawl), the table is
 *   filled from the store's keys in the background; until then misses are
 *   confirmed in the store, so nobody waits for the fill.
 *
 * The first store failure is kept: it rejects that call and every later one,
 * as the error the owner's `fail` makes of it.
 */
import { ArchiverError, type FatalCrawlError } from '../core/errors.js';
import { KeyTable } from '../fingerprint/key-table.js';
import { std64, type Fp64 } from '../fingerprint/rabin.js';
import { KEYS_ONLY, type ByteMap } from '../store/byte-map.js';
import { BUFFER_ENCODINGS } from '../store/keyspace.js';

type PutOp = { type: 'put'; key: Buffer; value: Buffer };

/** A key's 64-bit fingerprint written into `out`. */
export type KeyFingerprint = (key: string, out: Fp64) => Fp64;

export interface FingerprintedMapOpts<V> {
  /** Checks a stored value read back (parsed JSON) and returns it typed; throws when it is not one. */
  decode: (stored: unknown) => V;
  /** The error a store failure becomes ("read" or "write"), with its stable code. */
  fail: (what: 'read' | 'write', cause: unknown) => FatalCrawlError;
  /** Values are written in batches of this many. Default 256. */
  writeBatchEntries?: number;
  /** Most keys whose fingerprints are kept in memory. Default 12,000,000 (a 128 MiB table). */
  memoryKeys?: number;
  /** True when the store holds nothing yet (no fill needed). Default false. */
  storeEmpty?: boolean;
  /** For tests only: replaces the Rabin fingerprint, so a test can make keys collide. */
  fingerprint?: KeyFingerprint;
  /** Store keys that are not map keys (a marker the owner keeps beside them), left out of the table. */
  isOwnKey?: (key: Buffer) => boolean;
}

/** 12M fingerprints fit a 2^24-slot table: 128 MiB. */
const DEFAULT_MEMORY_KEYS = 12_000_000;
/** Keys read per step when filling the table. */
const FILL_CHUNK_KEYS = 4096;

interface Unwritten<V> {
  key: string;
  value: V;
}

export class FingerprintedMap<V> {
  readonly #db: ByteMap;
  readonly #decode: (stored: unknown) => V;
  readonly #failAs: (what: 'read' | 'write', cause: unknown) => FatalCrawlError;
  readonly #batchEntries: number;
  readonly #fingerprint: KeyFingerprint;
  readonly #isOwnKey: (key: Buffer) => boolean;
  readonly #known: KeyTable;
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  /** The table holds every key the store held when the map was made (the fill is over, or none was needed). */
  #filled: boolean;
  /** A key did not fit in the table: misses are confirmed in the store for good. */
  #capped = false;
  #filling: Promise<void> | null = null;
  /** Set but not yet in the store (unwritten, or in the batch being written), by key. */
  readonly #pending = new Map<string, Unwritten<V>>();
  #unwritten: Unwritten<V>[] = [];
  /** The batch being written, if any. */
  #writing: Promise<void> | null = null;
  #failure: FatalCrawlError | null = null;

  constructor(db: ByteMap, opts: FingerprintedMapOpts<V>) {
    const batch = opts.writeBatchEntries ?? 256;
    if (!Number.isInteger(batch) || batch < 1) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'writeBatchEntries must be an integer >= 1');
    const memory = opts.memoryKeys ?? DEFAULT_MEMORY_KEYS;
    if (!Number.isInteger(memory) || memory < 0) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'the memory cap must be an integer >= 0');
    this.#db = db;
    this.#decode = opts.decode;
    this.#failAs = opts.fail;
    this.#batchEntries = batch;
    this.#fingerprint = opts.fingerprint ?? ((key, out) => std64.fpInto(key, out));
    this.#isOwnKey = opts.isOwnKey ?? (() => false);
    this.#known = new KeyTable({ maxKeys: memory });
    this.#filled = opts.storeEmpty ?? false;
    // A table that may hold nothing never rules a key out: every miss is asked of the store
    // (a store other processes write too, as a crawl of several nodes on Redis shares its digests).
    if (memory === 0) this.#capped = true;
  }

  /** Fingerprints held, the table's bytes, and whether it holds every key (for benchmarks and reports). */
  get memory(): { keys: number; bytes: number; complete: boolean } {
    return { keys: this.#known.size, bytes: this.#known.bytes, complete: this.#complete };
  }

  /** Resolves when the table has been filled from the store (or could not be); for tests and benchmarks. */
  async loaded(): Promise<void> {
    this.#startFill();
    await this.#filling;
  }

  /** Reject with the first store failure, if there was one. */
  throwIfFailed(): void {
    this.#startFill();
    if (this.#failure) throw this.#failure;
  }

  /** The value of `key`, or null; a read of the store only when the table cannot rule the key out. */
  async get(key: string): Promise<V | null> {
    this.throwIfFailed();
    const pending = this.#pending.get(key);
    if (pending) return pending.value;
    const { hi, lo } = this.#fingerprint(key, this.#scratch);
    if (this.#complete && !this.#known.has(hi, lo)) return null;
    let raw: Buffer | undefined;
    try {
      raw = await this.#db.get(Buffer.from(key, 'utf8'), BUFFER_ENCODINGS);
    } catch (err) {
      throw this.#fail('read', err);
    }
    if (raw === undefined) return null;
    try {
      return this.#decode(JSON.parse(raw.toString('utf8')));
    } catch (err) {
      throw this.#fail('read', err);
    }
  }

  /** Set `key` to `value`: answered from memory at once, in the store with a later batch. */
  async set(key: string, value: V): Promise<void> {
    this.throwIfFailed();
    const { hi, lo } = this.#fingerprint(key, this.#scratch);
    this.#note(hi, lo);
    const entry: Unwritten<V> = { key, value };
    this.#pending.set(key, entry);
    this.#unwritten.push(entry);
    if (this.#unwritten.length < this.#batchEntries) return;
    // One batch at a time: wait for the one in flight before starting the next.
    if (this.#writing) await this.#writing;
    if (this.#unwritten.length >= this.#batchEntries && !this.#writing) this.#writing = this.#writeBatch();
  }

  /** Everything set is in the store once this resolves, and the fill has stopped reading (call before closing the database). */
  async flush(): Promise<void> {
    await this.loaded();
    this.throwIfFailed();
    while (this.#writing || this.#unwritten.length > 0) {
      if (this.#writing) await this.#writing;
      else this.#writing = this.#writeBatch();
    }
    this.throwIfFailed();
  }

  get #complete(): boolean {
    return this.#filled && !this.#capped;
  }

  #note(hi: number, lo: number): void {
    if (this.#known.has(hi, lo)) return;
    if (this.#known.full) this.#capped = true;
    else this.#known.add(hi, lo);
  }

  #startFill(): void {
    this.#filling ??= this.#filled ? Promise.resolve() : this.#fill();
  }

  /**
   * The table learns the stored keys' fingerprints (keys only, values are
   * not read). The iterator's snapshot holds every key stored before; set()
   * notes every later one.
   */
  async #fill(): Promise<void> {
    try {
      const it = this.#db.keys(KEYS_ONLY);
      try {
        for (;;) {
          const keys = await it.nextv(FILL_CHUNK_KEYS);
          if (keys.length === 0) break;
          for (const key of keys) {
            if (this.#isOwnKey(key)) continue;
            const { hi, lo } = this.#fingerprint(key.toString('utf8'), this.#scratch);
            this.#note(hi, lo);
          }
          // Full: the rest would only be confirmed in the store anyway.
          if (this.#capped) return;
        }
        this.#filled = true;
      } finally {
        await it.close();
      }
    } catch (err) {
      this.#fail('read', err);
    }
  }

  /** Resolves (never rejects) once the batch is written; a failure is kept for the next call. */
  async #writeBatch(): Promise<void> {
    const batch = this.#unwritten;
    this.#unwritten = [];
    try {
      const ops: PutOp[] = batch.map((e) => ({ type: 'put', key: Buffer.from(e.key, 'utf8'), value: Buffer.from(JSON.stringify(e.value), 'utf8') }));
      await this.#db.batch(ops, BUFFER_ENCODINGS);
      // In the store now, unless set again meanwhile (that newer entry is still to write).
      for (const e of batch) if (this.#pending.get(e.key) === e) this.#pending.delete(e.key);
    } catch (err) {
      this.#fail('write', err);
    } finally {
      this.#writing = null;
    }
  }

  /** Keep the first store failure: it rejects every later call. */
  #fail(what: 'read' | 'write', cause: unknown): FatalCrawlError {
    this.#failure ??= this.#failAs(what, cause);
    return this.#failure;
  }
}
