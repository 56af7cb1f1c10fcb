/**
 * Dedup across crawls: the payloads earlier jobs already archived, read
 * from their CDXJ indexes (or from their WARCs when a job has no index).
 * A capture whose payload digest is found here is written as a revisit that
 * names the earlier capture and, with WARC-Refers-To-Container, the earlier
 * job's WACZ — the name ReplayWeb.page looks the original up by when both
 * packages are loaded.
 *
 * Only 2xx non-revisit responses count as originals (the same rule as
 * in-crawl dedup); for a digest seen several times the earliest capture
 * wins. The captures live in a LevelDB keyspace of the crawl's state
 * (key: the digest, value: JSON of url, timestamp or exact date, container,
 * and where the record is); in memory only the digests' 64-bit
 * fingerprints, in a KeyTable off the JS heap, as the in-crawl digest index
 * does: 11-21 bytes a payload as the table doubles (measured 17.1 at 500k
 * lines, where the Maps of whole entries kept ~1,090 and peaked at 825 MiB
 * RSS with the whole index text). The index is streamed in 1 MiB chunks,
 * so loading holds one chunk and two write batches, not the file. Loading
 * is slower, ~27 µs a line through the crawl's keyspace (~40 through a
 * sublevel) against ~15 for the Maps, but done once: a resumed crawl skips it.
 *
 * A lookup of a digest no earlier job holds answers from the table without
 * a read (~10 µs); a hit costs one LevelDB read (~55-85 µs), the first hit of
 * a digest also the WARC read. Past `memoryDigests` (and, on a resumed
 * crawl, until the table has been filled from the store's keys in the
 * background, ~2-3 s per 500k) misses are confirmed in the store: slower,
 * still exact. Figures: `node --expose-gc --import tsx
 * bench/earlier-captures.ts` on the shared 2-CPU bench machine, loaded.
 *
 * WARC-Refers-To-Date must be the original's WARC-Date, which under WARC/1.1
 * has milliseconds the 14-digit CDXJ timestamp lost: the exact value is
 * read from the original record's head (a few KB of its gzip member) the
 * first time its digest is looked up and written back to the store, so
 * loading stays one pass over the index and a popular payload costs one
 * WARC read, not one per lookup.
 *
 * Loading (and when a resumed crawl can skip it) is earlier-load.ts.
 */
import path from 'node:path';
import { FatalCrawlError } from '../core/errors.js';
import { FingerprintedLevelMap, type KeyFingerprint, type MapLevel } from './fingerprinted-map.js';
import { isoFromTimestamp14, REVISIT_MIME, timestamp14, type CdxjEntry } from '../index/cdxj.js';
import { warcDateAt } from '../index/record-date.js';
import { jobDir } from '../job/job-dir.js';

export interface EarlierCapture {
  /** WARC-Target-URI of the capture holding the payload. */
  url: string;
  /** Its WARC-Date, exactly. */
  date: string;
  /** File name of the earlier job's WACZ, when it has one. */
  container?: string;
}

/** Read-only: the shape PayloadDedup consults after the in-crawl index. */
export interface EarlierCaptureLookup {
  lookup(digest: string): Promise<EarlierCapture | null>;
}

/** The store used: what the fingerprinted map needs, and clearing it for a reload (keyspaceLevel gives both). */
export interface EarlierLevel extends MapLevel {
  clear(): Promise<void>;
}

/** Reads the exact WARC-Date of the record at an offset; null when it cannot. */
export type RecordDateReader = (file: string, offset: number, length: number) => Promise<string | null>;

export interface EarlierCapturesOpts {
  /** Loaded entries are written in batches of this many. Default 1024. */
  writeBatchEntries?: number;
  /**
   * Most digests whose fingerprints are kept in memory (8 bytes a slot,
   * 10.7-21 bytes a digest as the table doubles); beyond it, misses are
   * confirmed in LevelDB. Default 12,000,000 (a 128 MiB table).
   */
  memoryDigests?: number;
  /** For tests only: replaces the Rabin fingerprint of the digest string. */
  fingerprint?: KeyFingerprint;
  /** For tests only: replaces `warcDateAt`. */
  readDate?: RecordDateReader;
}

/** Where the loader records what the keyspace holds (earlier-load.ts); not a digest (those are `algo:…`). */
export const MARKER_KEY = Buffer.from('!loaded', 'utf8');
/** Bump when the stored value format changes, so an old store is reloaded. */
export const STORE_FORMAT = 1;

/**
 * What the store holds per digest: url, 14-digit timestamp, the exact date
 * once read, the job (an index into the loaded jobs, which the marker
 * lists), and while the exact date is unread the WARC file name, offset
 * and length of the record. Short names: 10M of them are on disk.
 */
interface Stored {
  u: string;
  t: string;
  j: number;
  d?: string;
  f?: string;
  o?: number;
  l?: number;
}

/** A loaded job: its directory (WARCs under `warcs/`) and its WACZ's file name. */
export interface EarlierJob {
  dir: string;
  container: string | null;
}

export class EarlierCaptures implements EarlierCaptureLookup {
  readonly #map: FingerprintedLevelMap<Stored>;
  readonly #jobs: readonly EarlierJob[];
  readonly #readDate: RecordDateReader;
  /** Exact dates being read and written back, so concurrent lookups of one digest share one read. */
  readonly #reading = new Map<string, Promise<EarlierCapture>>();

  /**
   * `jobs`: what the stored job numbers refer to. `storeEmpty`: true when
   * the store holds nothing yet (a fresh load); false over what an earlier
   * run loaded (a resumed crawl), whose fingerprints are read in the background.
   */
  constructor(db: EarlierLevel, jobs: readonly EarlierJob[], opts: EarlierCapturesOpts = {}, storeEmpty = true) {
    this.#jobs = jobs;
    this.#readDate = opts.readDate ?? warcDateAt;
    this.#map = new FingerprintedLevelMap(db, {
      decode: (v) => this.#decode(v),
      fail: (what, cause) => new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', `earlier captures store ${what} failed`, { cause }),
      writeBatchEntries: opts.writeBatchEntries ?? 1024,
      storeEmpty,
      isOwnKey: (key) => key.equals(MARKER_KEY),
      ...(opts.memoryDigests !== undefined ? { memoryKeys: opts.memoryDigests } : {}),
      ...(opts.fingerprint !== undefined ? { fingerprint: opts.fingerprint } : {}),
    });
  }

  /** The earlier jobs loaded, in `dedup.against` order (the crawl report lists them for `analyze`). */
  get jobs(): readonly EarlierJob[] {
    return this.#jobs;
  }

  /** Fingerprints held, the table's bytes, and whether it holds every digest (benchmarks, reports). */
  get memory(): { digests: number; bytes: number; complete: boolean } {
    const { keys, bytes, complete } = this.#map.memory;
    return { digests: keys, bytes, complete };
  }

  /** Resolves when the background fill of a resumed crawl is over (at once otherwise). */
  async loaded(): Promise<void> {
    await this.#map.loaded();
    this.#map.throwIfFailed();
  }

  async lookup(digest: string): Promise<EarlierCapture | null> {
    this.#map.throwIfFailed();
    const reading = this.#reading.get(digest);
    if (reading) return { ...(await reading) };
    const stored = await this.#map.get(digest);
    if (stored === null) return null;
    if (stored.f === undefined) return this.#captureOf(stored);
    // A lookup that read the value before another's write-back joins that read.
    let exact = this.#reading.get(digest);
    if (!exact) {
      exact = this.#readExact(digest, stored).finally(() => this.#reading.delete(digest));
      this.#reading.set(digest, exact);
    }
    return { ...(await exact) };
  }

  /**
   * Add one index entry of job number `job` (ignored unless a 2xx
   * original); kept when no earlier capture of its digest is known.
   */
  async add(entry: CdxjEntry, job: number): Promise<void> {
    this.#map.throwIfFailed();
    const digest = entry.digest;
    if (digest === null || entry.mime === REVISIT_MIME) return;
    if (entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const known = await this.#map.get(digest);
    if (known !== null && known.t <= entry.timestamp) return;
    await this.#map.set(digest, { u: entry.url, t: entry.timestamp, j: job, f: entry.filename, o: entry.offset, l: entry.length });
  }

  /** Everything added or written back is in the store once this resolves (call before closing the database). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.#reading.values()]);
    await this.#map.flush();
  }

  #decode(stored: unknown): Stored {
    const v = (stored ?? {}) as Stored;
    if (typeof v.u !== 'string' || typeof v.t !== 'string' || this.#jobs[v.j] === undefined) throw new TypeError('not {"u","t","j"} of a loaded job');
    return v;
  }

  async #readExact(digest: string, stored: Stored): Promise<EarlierCapture> {
    // Unreadable: the whole second stands, within a second of the truth.
    const file = path.join(jobDir(this.#jobs[stored.j]!.dir).warcs, stored.f ?? '');
    const exact = await this.#readDate(file, stored.o ?? 0, stored.l ?? 0).catch(() => null);
    const value: Stored = { u: stored.u, t: stored.t, j: stored.j };
    if (exact !== null && !Number.isNaN(Date.parse(exact)) && timestamp14(exact) === stored.t) value.d = exact;
    await this.#map.set(digest, value);
    return this.#captureOf(value);
  }

  #captureOf(v: Stored): EarlierCapture {
    const capture: EarlierCapture = { url: v.u, date: v.d ?? isoFromTimestamp14(v.t) };
    const container = this.#jobs[v.j]!.container;
    if (container !== null) capture.container = container;
    return capture;
  }
}
