/**
 * In-crawl deduplication: which payload digest was archived first, where and
 * when. A response whose digest is known becomes an identical-payload-digest
 * revisit pointing at that capture. Two backends share one interface (and
 * one conformance suite): a Map for tests, and a Map written behind to
 * LevelDB so a resumed crawl still knows what it archived.
 */
import { ArchiverError, FatalCrawlError } from '../core/errors.js';

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

type PutOp = { type: 'put'; key: Buffer; value: Buffer };

/**
 * The part of an abstract-level database this index uses: a ClassicLevel or
 * any of its sublevels, whatever their default encodings (every call passes
 * buffer encodings explicitly).
 */
export interface DigestLevel {
  batch(ops: PutOp[], options: typeof BUF): Promise<void>;
  iterator(options: typeof BUF): AsyncIterable<[Buffer, Buffer]> & { close(): Promise<void> };
}

export interface LevelDigestIndexOpts {
  /** Remembered digests are written to LevelDB in batches of this many. Default 256. */
  writeBatchEntries?: number;
}

/**
 * This crawl's digests in memory, with LevelDB behind them for resume.
 *
 * Lookups never touch the disk: the Map holds every digest of the crawl
 * (about 130 bytes per distinct payload plus its URL's length, measured:
 * ~230 MB for a million distinct 2xx bodies with 100-character URLs;
 * duplicates add nothing). A per-capture LevelDB get and put cost ~4% of the crawl's main
 * thread.
 *
 * Writes go behind, `writeBatchEntries` at a time, one batch in flight (a
 * caller that would start a second waits: back-pressure). On a resumed
 * crawl the first call loads what the store holds. A crash loses at most
 * the entries not yet written: a later duplicate of one of those payloads
 * is then archived in full instead of as a revisit, which costs space, not
 * correctness. Call flush() before closing the database so a clean stop
 * loses nothing. Keys are the digest strings, values `{"url","date"}` as
 * JSON. The sublevel must be open; we never close it. A store failure
 * (reading at load, or any batch) rejects the next call with
 * FatalCrawlError(ARCHIVER_DIGEST_INDEX).
 */
export class LevelDigestIndex implements DigestIndex {
  readonly #db: DigestLevel;
  readonly #batchEntries: number;
  /** digest → `date + '\n' + url` (one string per entry, not an object: less heap). */
  readonly #byDigest = new Map<string, string>();
  #loading: Promise<void> | null = null;
  #unwritten: PutOp[] = [];
  /** The batch being written, if any. */
  #writing: Promise<void> | null = null;
  #failure: FatalCrawlError | null = null;

  constructor(db: DigestLevel, opts: LevelDigestIndexOpts = {}) {
    const batch = opts.writeBatchEntries ?? 256;
    if (!Number.isInteger(batch) || batch < 1) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'LevelDigestIndex: writeBatchEntries must be an integer >= 1');
    this.#db = db;
    this.#batchEntries = batch;
  }

  async lookup(digest: string): Promise<DigestCapture | null> {
    await this.#ready();
    const packed = this.#byDigest.get(digest);
    if (packed === undefined) return null;
    const cut = packed.indexOf('\n');
    return { url: packed.slice(cut + 1), date: packed.slice(0, cut) };
  }

  async remember(digest: string, url: string, date: string): Promise<void> {
    await this.#ready();
    this.#byDigest.set(flat(digest), flat(`${date}\n${url}`));
    this.#unwritten.push({ type: 'put', key: Buffer.from(digest, 'utf8'), value: Buffer.from(JSON.stringify({ url, date }), 'utf8') });
    if (this.#unwritten.length < this.#batchEntries) return;
    // One batch at a time: wait for the one in flight before starting the next.
    if (this.#writing) await this.#writing;
    if (this.#unwritten.length >= this.#batchEntries && !this.#writing) this.#writing = this.#writeBatch();
  }

  /** Write every remembered digest to the store; resolves once they are in it. */
  async flush(): Promise<void> {
    await this.#ready();
    while (this.#writing || this.#unwritten.length > 0) {
      if (this.#writing) await this.#writing;
      else this.#writing = this.#writeBatch();
    }
    if (this.#failure) throw this.#failure;
  }

  /** Load the store once (empty on a new crawl); rethrow any store failure so far. */
  async #ready(): Promise<void> {
    this.#loading ??= this.#load();
    await this.#loading;
    if (this.#failure) throw this.#failure;
  }

  async #load(): Promise<void> {
    try {
      const it = this.#db.iterator(BUF);
      try {
        for await (const [key, raw] of it) {
          const value = JSON.parse(raw.toString('utf8')) as DigestCapture;
          this.#byDigest.set(key.toString('utf8'), flat(`${value.date}\n${value.url}`));
        }
      } finally {
        await it.close();
      }
    } catch (err) {
      this.#failure ??= storeError('read', err);
    }
  }

  /** Resolves (never rejects) once the batch is written; a failure is kept for the next call. */
  async #writeBatch(): Promise<void> {
    const ops = this.#unwritten;
    this.#unwritten = [];
    try {
      await this.#db.batch(ops, BUF);
    } catch (err) {
      this.#failure ??= storeError('write', err);
    } finally {
      this.#writing = null;
    }
  }
}

/**
 * A copy of `s` as one flat string. Strings built by concatenation are
 * trees of pieces in V8, which measured at three times the heap of the
 * characters when kept for the life of the crawl.
 */
function flat(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

function storeError(what: 'read' | 'write', cause: unknown): FatalCrawlError {
  return new FatalCrawlError('ARCHIVER_DIGEST_INDEX', `digest index ${what} failed`, { cause });
}
