/**
 * In-crawl deduplication: which payload digest was archived first, where and
 * when. A response whose digest is known becomes an identical-payload-digest
 * revisit pointing at that capture. Two backends share one interface (and
 * one conformance suite): a Map for tests, and LevelDB with a fingerprint
 * table in front of it for the crawl, whose memory stays bounded however
 * many payloads the crawl archives.
 */
import { ArchiverError, FatalCrawlError } from '../core/errors.js';
import { KeyTable } from '../uniq/key-table.js';
import { std64, type Fp64 } from '../uniq/rabin.js';

export interface DigestCapture {
  /** WARC-Target-URI of the capture holding the payload. */
  url: string;
  /** Its WARC-Date, ISO 8601. */
  date: string;
}

export interface DigestIndex {
  /** The capture that first archived this payload digest, or null. */
  lookup(digest: string): Promise<DigestCapture | null>;
  /** Record that `url`, captured at `date`, holds this payload. */
  remember(digest: string, url: string, date: string): Promise<void>;
}

export class MemoryDigestIndex implements DigestIndex {
  readonly #byDigest = new Map<string, DigestCapture>();

  async lookup(digest: string): Promise<DigestCapture | null> {
    return this.#byDigest.get(digest) ?? null;
  }

  async remember(digest: string, url: string, date: string): Promise<void> {
    this.#byDigest.set(digest, { url, date });
  }
}

const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;
const KEYS_BUF = { keyEncoding: 'buffer' } as const;

type PutOp = { type: 'put'; key: Buffer; value: Buffer };

/**
 * The part of an abstract-level database this index uses: a ClassicLevel or
 * any of its sublevels, whatever their default encodings (every call passes
 * buffer encodings explicitly).
 */
export interface DigestLevel {
  batch(ops: PutOp[], options: typeof BUF): Promise<void>;
  get(key: Buffer, options: typeof BUF): Promise<Buffer | undefined>;
  keys(options: typeof KEYS_BUF): { nextv(size: number): Promise<Buffer[]>; close(): Promise<void> };
}

/** A digest's 64-bit fingerprint written into `out`. */
export type DigestFingerprint = (digest: string, out: Fp64) => Fp64;

export interface LevelDigestIndexOpts {
  /** Remembered digests are written to LevelDB in batches of this many. Default 256. */
  writeBatchEntries?: number;
  /**
   * Most digests whose fingerprints are kept in memory (8 bytes a slot,
   * 10.7-21 bytes a digest as the table doubles). Beyond it, a digest not
   * in memory is looked up in LevelDB. Default 12,000,000 (a 128 MiB table).
   */
  memoryDigests?: number;
  /**
   * For tests only: replaces the Rabin fingerprint, so a test can make two
   * digests collide. Default: std64 over the digest string.
   */
  fingerprint?: DigestFingerprint;
}

/** 12M fingerprints fit a 2^24-slot table: 128 MiB. */
const DEFAULT_MEMORY_DIGESTS = 12_000_000;
/** Keys read per step when filling the table on resume. */
const LOAD_CHUNK_KEYS = 4096;

/** A remembered entry not yet in the store. */
interface Unwritten {
  digest: string;
  url: string;
  date: string;
}

/**
 * This crawl's digests in LevelDB, with their fingerprints in memory.
 *
 * Memory: one 64-bit fingerprint per distinct payload in a KeyTable, off
 * the JS heap (10.7-21 bytes a digest as the table doubles; measured 16.8
 * at a million digests, where keeping whole entries in a Map took ~230),
 * plus the entries not yet written. Most payloads are unique, and a
 * fingerprint not in the table answers null without touching the disk
 * (~4 µs). A fingerprint hit (a duplicate, or rarely a collision) costs
 * one LevelDB read of the full digest key (~75 µs latency, one at a time,
 * cold cache), so answers stay exact. Past `memoryDigests` the table no
 * longer holds every digest and each miss is confirmed in the store:
 * slower, still exact. Figures: `node --expose-gc --import tsx
 * bench/digest-index.ts` on the shared 2-CPU bench machine.
 *
 * Writes go behind, `writeBatchEntries` at a time, one batch in flight (a
 * caller that would start a second waits: back-pressure); until written,
 * entries are answered from a pending map. On a resumed crawl the table
 * is filled from the store's keys in the background (values are not read;
 * ~7 s per million keys measured); until then misses are confirmed in the
 * store. A crash loses at most the entries not yet written: a later
 * duplicate of one of those payloads is then archived in full instead of
 * as a revisit, which costs space, not correctness. Call flush() before
 * closing the database so a clean stop loses nothing. Keys are the digest strings,
 * values `{"url","date"}` as JSON. The sublevel must be open; we never
 * close it. A store failure (a read, or any batch) rejects that call and
 * every later one with FatalCrawlError(ARCHIVER_DIGEST_INDEX).
 */
export class LevelDigestIndex implements DigestIndex {
  readonly #db: DigestLevel;
  readonly #batchEntries: number;
  readonly #fingerprint: DigestFingerprint;
  /** Fingerprints of every digest remembered (stored or pending), while #complete. */
  readonly #known: KeyTable;
  /** The table holds every digest the store held when the index was opened (the background fill is over). */
  #filled = false;
  /** A digest did not fit in the table: misses must be confirmed in the store for good. */
  #capped = false;
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  /** Entries remembered but not yet in the store (unwritten or in the batch being written), by digest. */
  readonly #pending = new Map<string, Unwritten>();
  #loading: Promise<void> | null = null;
  #unwritten: Unwritten[] = [];
  /** The batch being written, if any. */
  #writing: Promise<void> | null = null;
  #failure: FatalCrawlError | null = null;

  constructor(db: DigestLevel, opts: LevelDigestIndexOpts = {}) {
    const batch = opts.writeBatchEntries ?? 256;
    if (!Number.isInteger(batch) || batch < 1) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'LevelDigestIndex: writeBatchEntries must be an integer >= 1');
    const memory = opts.memoryDigests ?? DEFAULT_MEMORY_DIGESTS;
    if (!Number.isInteger(memory) || memory < 0) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'LevelDigestIndex: memoryDigests must be an integer >= 0');
    this.#db = db;
    this.#batchEntries = batch;
    this.#fingerprint = opts.fingerprint ?? ((digest, out) => std64.fpInto(digest, out));
    this.#known = new KeyTable({ maxKeys: memory });
  }

  /** Fingerprints held, the table's bytes, and whether it holds every digest (for benchmarks and reports). */
  get memory(): { digests: number; bytes: number; complete: boolean } {
    return { digests: this.#known.size, bytes: this.#known.bytes, complete: this.#complete };
  }

  /** Resolves when the table has been filled from the store (or could not be); for tests and benchmarks. */
  async loaded(): Promise<void> {
    this.#startLoading();
    await this.#loading;
  }

  /** True while #known holds the fingerprint of every remembered digest: a miss there is a new payload. */
  get #complete(): boolean {
    return this.#filled && !this.#capped;
  }

  async lookup(digest: string): Promise<DigestCapture | null> {
    this.#ready();
    const pending = this.#pending.get(digest);
    if (pending) return { url: pending.url, date: pending.date };
    const { hi, lo } = this.#fingerprint(digest, this.#scratch);
    if (this.#complete && !this.#known.has(hi, lo)) return null;
    let raw: Buffer | undefined;
    try {
      raw = await this.#db.get(Buffer.from(digest, 'utf8'), BUF);
    } catch (err) {
      throw this.#fail('read', err);
    }
    if (raw === undefined) return null;
    try {
      const { url, date } = JSON.parse(raw.toString('utf8')) as DigestCapture;
      if (typeof url !== 'string' || typeof date !== 'string') throw new TypeError('not {"url","date"}');
      return { url, date };
    } catch (err) {
      throw this.#fail('read', err);
    }
  }

  async remember(digest: string, url: string, date: string): Promise<void> {
    this.#ready();
    const { hi, lo } = this.#fingerprint(digest, this.#scratch);
    this.#note(hi, lo);
    const entry: Unwritten = { digest, url, date };
    this.#pending.set(digest, entry);
    this.#unwritten.push(entry);
    if (this.#unwritten.length < this.#batchEntries) return;
    // One batch at a time: wait for the one in flight before starting the next.
    if (this.#writing) await this.#writing;
    if (this.#unwritten.length >= this.#batchEntries && !this.#writing) this.#writing = this.#writeBatch();
  }

  /** Write every remembered digest to the store; resolves once they are in it (and the fill has stopped reading). */
  async flush(): Promise<void> {
    await this.loaded();
    this.#throwIfFailed();
    while (this.#writing || this.#unwritten.length > 0) {
      if (this.#writing) await this.#writing;
      else this.#writing = this.#writeBatch();
    }
    if (this.#failure) throw this.#failure;
  }

  /** Put a fingerprint in the table; when it is full, misses must from now on be confirmed in the store. */
  #note(hi: number, lo: number): void {
    if (this.#known.has(hi, lo)) return;
    if (this.#known.full) this.#capped = true;
    else this.#known.add(hi, lo);
  }

  /**
   * Start filling the table in the background (at once done on a new
   * crawl); rethrow any store failure so far. Until the fill is over,
   * misses are confirmed in the store, so a resumed crawl does not wait
   * for it (~7 s per million digests measured).
   */
  #ready(): void {
    this.#startLoading();
    this.#throwIfFailed();
  }

  #startLoading(): void {
    this.#loading ??= this.#load();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }

  async #load(): Promise<void> {
    try {
      const it = this.#db.keys(KEYS_BUF);
      try {
        for (;;) {
          const keys = await it.nextv(LOAD_CHUNK_KEYS);
          if (keys.length === 0) break;
          for (const key of keys) {
            const { hi, lo } = this.#fingerprint(key.toString('utf8'), this.#scratch);
            this.#note(hi, lo);
          }
          // Full: the rest would only be confirmed in the store anyway.
          if (this.#capped) return;
        }
        // The iterator's snapshot held every digest stored before; remember() noted every later one.
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
      const ops: PutOp[] = batch.map((e) => ({
        type: 'put',
        key: Buffer.from(e.digest, 'utf8'),
        value: Buffer.from(JSON.stringify({ url: e.url, date: e.date }), 'utf8'),
      }));
      await this.#db.batch(ops, BUF);
      // In the store now, unless remembered again meanwhile (that newer entry is still to write).
      for (const e of batch) if (this.#pending.get(e.digest) === e) this.#pending.delete(e.digest);
    } catch (err) {
      this.#fail('write', err);
    } finally {
      this.#writing = null;
    }
  }

  /** Keep the first store failure: it rejects every later call. */
  #fail(what: 'read' | 'write', cause: unknown): FatalCrawlError {
    this.#failure ??= new FatalCrawlError('ARCHIVER_DIGEST_INDEX', `digest index ${what} failed`, { cause });
    return this.#failure;
  }
}
