/**
 * In-crawl deduplication: which payload digest was archived first, where and
 * when. A response whose digest is known becomes an identical-payload-digest
 * revisit pointing at that capture. Two backends share one interface (and
 * one conformance suite): a Map for tests and small crawls, and LevelDB so a
 * long crawl's digests live on disk, not in the heap.
 */
import { FatalCrawlError } from '../core/errors.js';

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

/**
 * The part of an abstract-level database this index uses: a ClassicLevel or
 * any of its sublevels, whatever their default encodings (every call passes
 * buffer encodings explicitly).
 */
export interface DigestLevel {
  get(key: Buffer, options: typeof BUF): Promise<Buffer | undefined>;
  put(key: Buffer, value: Buffer, options: typeof BUF): Promise<void>;
}

/** Keys are the digest strings, values `{"url","date"}` as JSON. The sublevel must be open; we never close it. */
export class LevelDigestIndex implements DigestIndex {
  readonly #db: DigestLevel;

  constructor(db: DigestLevel) {
    this.#db = db;
  }

  async lookup(digest: string): Promise<DigestCapture | null> {
    let raw: Buffer | undefined;
    try {
      raw = await this.#db.get(Buffer.from(digest, 'utf8'), BUF);
    } catch (err) {
      throw storeError('read', err);
    }
    if (raw === undefined) return null;
    const value = JSON.parse(raw.toString('utf8')) as DigestCapture;
    return { url: value.url, date: value.date };
  }

  async remember(digest: string, url: string, date: string): Promise<void> {
    try {
      await this.#db.put(Buffer.from(digest, 'utf8'), Buffer.from(JSON.stringify({ url, date }), 'utf8'), BUF);
    } catch (err) {
      throw storeError('write', err);
    }
  }
}

function storeError(what: 'read' | 'write', cause: unknown): FatalCrawlError {
  return new FatalCrawlError('ARCHIVER_DIGEST_INDEX', `digest index ${what} failed`, { cause });
}
