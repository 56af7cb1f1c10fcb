/**
 * In-crawl deduplication: which payload digest was archived first, where and
 * when. A response whose digest is known becomes an identical-payload-digest
 * revisit pointing at that capture. Two backends share one interface (and
 * one conformance suite): a Map for tests, and the state backend's digest
 * map (LevelDB, Redis) with a fingerprint table in front of it for the
 * crawl, whose memory stays bounded however many payloads it archives.
 */
import { FatalCrawlError } from '../core/errors.js';
import type { ByteMap } from '../store/byte-map.js';
import { FingerprintedMap, type KeyFingerprint } from './fingerprinted-map.js';

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

/** A digest's 64-bit fingerprint written into `out`. */
export type DigestFingerprint = KeyFingerprint;

export interface StoredDigestIndexOpts {
  /** Remembered digests are written to the store in batches of this many. Default 256. */
  writeBatchEntries?: number;
  /**
   * Most digests whose fingerprints are kept in memory (8 bytes a slot,
   * 10.7-21 bytes a digest as the table doubles). Beyond it, a digest not
   * in memory is looked up in the store. Default 12,000,000 (a 128 MiB table).
   */
  memoryDigests?: number;
  /**
   * For tests only: replaces the Rabin fingerprint, so a test can make two
   * digests collide. Default: std64 over the digest string.
   */
  fingerprint?: DigestFingerprint;
}

/**
 * This crawl's digests in the backend's store (a LevelDB keyspace, or a
 * Redis hash shared by a crawl's nodes), with their fingerprints in memory
 * (FingerprintedMap): key the digest string, value `{"url","date"}`
 * as JSON, so state written by earlier versions still reads.
 *
 * Memory: 10.7-21 bytes a digest as the table doubles (measured 16.8 at a
 * million digests, where keeping whole entries in a Map took ~230). Most
 * payloads are unique, and a digest whose fingerprint is not in the table
 * answers null without touching the disk (~4 µs). A duplicate (or rarely a
 * collision) costs one LevelDB read (~75 µs latency, one at a time, cold
 * cache). Figures: `node --expose-gc --import tsx bench/digest-index.ts` on
 * the shared 2-CPU bench machine.
 *
 * Writes go behind, `writeBatchEntries` at a time. On a resumed crawl the
 * table is filled from the store's keys in the background (~7 s per million
 * keys measured); until then misses are confirmed in the store. A crash
 * loses at most the entries not yet written: a later duplicate of one of
 * those payloads is then archived in full instead of as a revisit, which
 * costs space, not correctness. Call flush() before closing the database so
 * a clean stop loses nothing. A store failure (a read, or any batch)
 * rejects that call and every later one with
 * FatalCrawlError(ARCHIVER_DIGEST_INDEX).
 */
export class StoredDigestIndex implements DigestIndex {
  readonly #map: FingerprintedMap<DigestCapture>;

  constructor(db: ByteMap, opts: StoredDigestIndexOpts = {}) {
    this.#map = new FingerprintedMap(db, {
      decode: asDigestCapture,
      fail: (what, cause) => new FatalCrawlError('ARCHIVER_DIGEST_INDEX', `digest index ${what} failed`, { cause }),
      writeBatchEntries: opts.writeBatchEntries ?? 256,
      ...(opts.memoryDigests !== undefined ? { memoryKeys: opts.memoryDigests } : {}),
      ...(opts.fingerprint !== undefined ? { fingerprint: opts.fingerprint } : {}),
    });
  }

  /** Fingerprints held, the table's bytes, and whether it holds every digest (for benchmarks and reports). */
  get memory(): { digests: number; bytes: number; complete: boolean } {
    const { keys, bytes, complete } = this.#map.memory;
    return { digests: keys, bytes, complete };
  }

  /** Resolves when the table has been filled from the store (or could not be); for tests and benchmarks. */
  loaded(): Promise<void> {
    return this.#map.loaded();
  }

  lookup(digest: string): Promise<DigestCapture | null> {
    return this.#map.get(digest);
  }

  remember(digest: string, url: string, date: string): Promise<void> {
    return this.#map.set(digest, { url, date });
  }

  /** Write every remembered digest to the store; resolves once they are in it (and the fill has stopped reading). */
  flush(): Promise<void> {
    return this.#map.flush();
  }
}

function asDigestCapture(stored: unknown): DigestCapture {
  const { url, date } = (stored ?? {}) as Partial<DigestCapture>;
  if (typeof url !== 'string' || typeof date !== 'string') throw new TypeError('not {"url","date"}');
  return { url, date };
}
