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
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { isoFromTimestamp14, parseCdxjLine, REVISIT_MIME, type CdxjEntry } from './cdxj.js';
import { indexWarcs } from './build-index.js';
import { jobWarcs } from './inputs.js';

/** Where the CDXJ index of a job lives (written at the end of every crawl). */
export function jobIndexPath(jobDir: string): string {
  return path.join(jobDir, 'indexes', 'index.cdxj');
}

export interface EarlierCapture {
  /** WARC-Target-URI of the capture holding the payload. */
  url: string;
  /** Its date, ISO 8601 (whole seconds: the index keeps no more). */
  date: string;
  /** File name of the earlier job's WACZ, when it has one. */
  container?: string;
}

/** Read-only: the shape PayloadDedup consults after the in-crawl index. */
export interface EarlierCaptureLookup {
  lookup(digest: string): Promise<EarlierCapture | null>;
}

export class EarlierCaptures implements EarlierCaptureLookup {
  readonly #byDigest = new Map<string, EarlierCapture>();
  readonly #sortKey = new Map<string, string>();

  /** Number of distinct payloads known. */
  get size(): number {
    return this.#byDigest.size;
  }

  async lookup(digest: string): Promise<EarlierCapture | null> {
    return this.#byDigest.get(digest) ?? null;
  }

  add(entry: CdxjEntry, container: string | null): void {
    if (entry.digest === null || entry.mime === REVISIT_MIME) return;
    if (entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const known = this.#sortKey.get(entry.digest);
    if (known !== undefined && known <= entry.timestamp) return;
    this.#sortKey.set(entry.digest, entry.timestamp);
    const capture: EarlierCapture = { url: entry.url, date: isoFromTimestamp14(entry.timestamp) };
    if (container !== null) capture.container = container;
    this.#byDigest.set(entry.digest, capture);
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
    for (const entry of await jobEntries(dir, job)) captures.add(entry, container);
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
