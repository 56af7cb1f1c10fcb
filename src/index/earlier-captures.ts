/**
 * Dedup across crawls: the payloads earlier jobs already archived, read
 * from their CDXJ indexes (or from their WARCs when a job has no index).
 * A capture whose payload digest is found here is written as a revisit that
 * names the earlier capture and, with WARC-Refers-To-Container, the earlier
 * job's WACZ — the name ReplayWeb.page looks the original up by when both
 * packages are loaded.
 *
 * Only 2xx responses count as originals (the same rule as in-crawl dedup);
 * for a digest seen several times the earliest capture wins. Held in a Map:
 * about 150 bytes per distinct payload.
 *
 * WARC-Refers-To-Date must be the original's WARC-Date, which under WARC/1.1
 * has milliseconds the 14-digit CDXJ timestamp lost: the exact value is
 * read from the original record's head (a few KB of its gzip member) the
 * first time its digest is looked up, so loading stays one pass over the
 * index and only payloads met again cost a read.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { isoFromTimestamp14, parseCdxjLine, REVISIT_MIME, timestamp14, type CdxjEntry } from './cdxj.js';
import { indexWarcs } from './build-index.js';
import { jobWarcs } from './inputs.js';
import { warcDateAt } from './record-date.js';

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

/** Where to read a capture's exact WARC-Date when the index gave whole seconds only. */
interface RecordAt {
  file: string;
  offset: number;
  length: number;
}

export class EarlierCaptures implements EarlierCaptureLookup {
  readonly #byDigest = new Map<string, EarlierCapture>();
  readonly #sortKey = new Map<string, string>();
  /** Captures whose `date` is still the index's whole second, and where to read the exact one. */
  readonly #inexact = new Map<string, RecordAt>();
  /** Exact dates being read, so concurrent lookups of one digest wait for the same read. */
  readonly #reading = new Map<string, Promise<void>>();

  /** Number of distinct payloads known. */
  get size(): number {
    return this.#byDigest.size;
  }

  async lookup(digest: string): Promise<EarlierCapture | null> {
    const capture = this.#byDigest.get(digest);
    if (!capture) return null;
    const at = this.#inexact.get(digest);
    if (at) {
      this.#inexact.delete(digest);
      this.#reading.set(digest, this.#exactDate(capture, at).finally(() => this.#reading.delete(digest)));
    }
    await this.#reading.get(digest);
    return { ...capture };
  }

  /**
   * `warcFile`: the path of the entry's WARC, where the exact WARC-Date is
   * read at the first lookup (without it the whole second stands).
   */
  add(entry: CdxjEntry, container: string | null, warcFile?: string): void {
    if (entry.digest === null || entry.mime === REVISIT_MIME) return;
    if (entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const known = this.#sortKey.get(entry.digest);
    if (known !== undefined && known <= entry.timestamp) return;
    this.#sortKey.set(entry.digest, entry.timestamp);
    const capture: EarlierCapture = { url: entry.url, date: isoFromTimestamp14(entry.timestamp) };
    if (container !== null) capture.container = container;
    this.#byDigest.set(entry.digest, capture);
    if (warcFile !== undefined) this.#inexact.set(entry.digest, { file: warcFile, offset: entry.offset, length: entry.length });
    else this.#inexact.delete(entry.digest);
  }

  async #exactDate(capture: EarlierCapture, at: RecordAt): Promise<void> {
    // Unreadable: the whole second stands, within a second of the truth.
    const exact = await warcDateAt(at.file, at.offset, at.length).catch(() => null);
    if (exact !== null && !Number.isNaN(Date.parse(exact)) && timestamp14(exact) === timestamp14(capture.date)) capture.date = exact;
  }
}

/**
 * Loads `profile.dedup.against`: job directories, relative ones resolved
 * against `cwd`. A job that does not exist or holds no WARCs is an error
 * (exit 4), not a silent full re-archive.
 */
export async function loadEarlierCaptures(against: readonly string[], cwd = process.cwd()): Promise<EarlierCaptures> {
  const captures = new EarlierCaptures();
  for (const job of against) {
    const dir = path.resolve(cwd, job);
    const container = await jobWaczName(dir);
    // One path string per file, not per entry.
    const paths = new Map<string, string>();
    for (const entry of await jobEntries(dir, job)) {
      let file = paths.get(entry.filename);
      if (file === undefined) paths.set(entry.filename, (file = path.join(dir, 'warcs', entry.filename)));
      captures.add(entry, container, file);
    }
  }
  return captures;
}

async function jobEntries(dir: string, given: string): Promise<CdxjEntry[]> {
  let text: string | null = null;
  try {
    text = await readFile(jobIndexPath(dir), 'utf8');
  } catch {
    text = null;
  }
  if (text !== null) return text.split('\n').filter((l) => l !== '').map(parseCdxjLine);
  const warcs = await jobWarcs(dir);
  if (warcs.length === 0) throw new NoInputError(`dedup.against: ${given} has neither ${path.join('indexes', 'index.cdxj')} nor WARCs`);
  return indexWarcs(warcs);
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
