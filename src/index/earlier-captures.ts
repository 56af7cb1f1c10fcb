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
 * A resumed crawl does not load the jobs again: the `!loaded` key records
 * the resolved jobs and the size and mtime of what was read from each, and
 * is written only once the whole load is in the store. When it does not
 * match (another `against`, an index rewritten, a WACZ made since, a kill
 * during loading) the keyspace is cleared and loaded again.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { FatalCrawlError, NoInputError } from '../core/errors.js';
import { fileLines } from '../core/file-lines.js';
import { FingerprintedLevelMap, type KeyFingerprint, type MapLevel } from '../store/fingerprinted-map.js';
import { isoFromTimestamp14, parseCdxjLine, REVISIT_MIME, timestamp14, type CdxjEntry } from './cdxj.js';
import { jobWarcs } from './inputs.js';
import { warcDateAt } from './record-date.js';
import { indexWarcFile } from './warc-index.js';

/** Where the CDXJ index of a job lives (written at the end of every crawl). */
export function jobIndexPath(jobDir: string): string {
  return path.join(jobDir, 'indexes', 'index.cdxj');
}

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

const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;

type PutOp = { type: 'put'; key: Buffer; value: Buffer };

/** The part of an abstract-level database used: a sublevel of the crawl state; every call passes buffer encodings. */
export interface EarlierLevel extends MapLevel {
  batch(ops: PutOp[], options: typeof BUF): Promise<void>;
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

/** Not a digest (those are `algo:…`), so never mistaken for one. */
const MARKER_KEY = Buffer.from('!loaded', 'utf8');
/** Bump when the stored value format changes, so an old store is reloaded. */
const STORE_FORMAT = 1;

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
    const file = path.join(this.#jobs[stored.j]!.dir, 'warcs', stored.f ?? '');
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

/** One job as loaded: where it is, what was read from it, and the stamp that tells whether it changed. */
interface JobSource extends EarlierJob {
  /** The index, or (none) the WARCs read instead. */
  index: string | null;
  warcs: string[];
  /** Size and mtime of each file read, in order. */
  stamp: string[];
}

export interface LoadEarlierOpts extends EarlierCapturesOpts {
  /** Relative job directories are resolved against it. Default process.cwd(). */
  cwd?: string;
}

/**
 * Loads `profile.dedup.against` into `db` (a keyspace of the crawl state,
 * which must be open; never closed here): job directories, relative ones
 * resolved against `cwd`. A job that does not exist or holds no WARCs is
 * an error (exit 4), not a silent full re-archive. Skipped when the store
 * already holds exactly these jobs as they are now.
 */
export async function loadEarlierCaptures(against: readonly string[], db: EarlierLevel, opts: LoadEarlierOpts = {}): Promise<EarlierCaptures> {
  const cwd = opts.cwd ?? process.cwd();
  const jobs: JobSource[] = [];
  for (const given of against) jobs.push(await jobSource(path.resolve(cwd, given), given));
  const marker = JSON.stringify({ format: STORE_FORMAT, jobs: jobs.map((j) => ({ dir: j.dir, container: j.container, stamp: j.stamp })) });
  let stored: Buffer | undefined;
  try {
    stored = await db.get(MARKER_KEY, BUF);
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store read failed', { cause: err });
  }
  const loaded = jobs.map(({ dir, container }) => ({ dir, container }));
  if (stored !== undefined && stored.toString('utf8') === marker) return new EarlierCaptures(db, loaded, opts, false);

  try {
    await db.clear();
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store clear failed', { cause: err });
  }
  const captures = new EarlierCaptures(db, loaded, opts, true);
  for (const [j, job] of jobs.entries()) {
    if (job.index !== null) {
      for await (const lines of fileLines(job.index)) for (const line of lines) if (line !== '') await captures.add(parseCdxjLine(line), j);
    } else {
      for (const warc of job.warcs) for (const entry of await indexWarcFile(warc)) await captures.add(entry, j);
    }
  }
  await captures.flush();
  try {
    await db.batch([{ type: 'put', key: MARKER_KEY, value: Buffer.from(marker, 'utf8') }], BUF);
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store write failed', { cause: err });
  }
  return captures;
}

async function jobSource(dir: string, given: string): Promise<JobSource> {
  const container = await jobWaczName(dir);
  const index = await stampOf(jobIndexPath(dir));
  if (index !== null) return { dir, container, index: jobIndexPath(dir), warcs: [], stamp: [index] };
  const warcs = await jobWarcs(dir);
  if (warcs.length === 0) throw new NoInputError(`dedup.against: ${given} has neither ${path.join('indexes', 'index.cdxj')} nor WARCs`);
  const stamp: string[] = [];
  for (const w of warcs) stamp.push(`${path.basename(w)}:${(await stampOf(w)) ?? 'gone'}`);
  return { dir, container, index: null, warcs, stamp };
}

/** `size:mtimeMs` of a file, or null when there is no such file. */
async function stampOf(file: string): Promise<string | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? `${s.size}:${s.mtimeMs}` : null;
  } catch {
    return null;
  }
}

/** The job's WACZ (`<name>.wacz` in its root), or null when it was never packaged. */
export async function jobWaczName(dir: string): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  return names.filter((n) => n.endsWith('.wacz')).sort()[0] ?? null;
}
