/**
 * Which captured pages link to a URL: an index built once per finished job
 * from the outlinks its WARC metadata records list, written as
 * `indexes/inlinks.txt` — one `<target>\t<hop>\t<source>` line per link,
 * sorted bytewise and without duplicates, so a lookup is a binary search
 * (sorted-lines.ts). The build streams every WARC through an external sort
 * (index/line-sorter.ts): memory stays at the sort buffer whatever the
 * job's size. It is rebuilt when the job's index.cdxj is newer (a resumed
 * crawl packaged the job again). A running crawl has no inlinks yet.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { readWarcRecords, WARC_RECORDS_DEFAULTS } from '../warc/warc-records.js';
import { writeSortedAtomically } from '../index/build-index.js';
import { jobIndexPath, jobInlinksPath, jobWarcs } from '../job/job-dir.js';
import { LineSorter } from '../index/line-sorter.js';
import { parseOutlinks } from './capture-records.js';
import { SortedLines } from './sorted-lines.js';

const METADATA: ReadonlySet<string> = new Set(['metadata']);

/** Sort buffer of a build: small, the console shares the process with a crawl. */
const SORT_BUFFER_BYTES = 16 * 1024 * 1024;

export interface Inlink {
  url: string;
  hop: string;
}

export type InlinksState = 'ready' | 'building' | 'failed' | 'unavailable';

/** One job's inlinks index, built in the background on first use. */
export class InlinksIndex {
  readonly #jobDir: string;
  #building: Promise<void> | null = null;
  #failed = false;

  constructor(jobDir: string) {
    this.#jobDir = jobDir;
  }

  /** Whether lookups can be answered now; starts a build when the index is missing or stale. */
  async state(): Promise<InlinksState> {
    if (this.#building !== null) return 'building';
    const cdxj = await mtime(jobIndexPath(this.#jobDir));
    if (cdxj === null) return 'unavailable';
    const built = await mtime(jobInlinksPath(this.#jobDir));
    if (built !== null && built >= cdxj) return 'ready';
    if (this.#failed) return 'failed';
    this.#building = buildInlinks(this.#jobDir)
      .then(
        () => undefined,
        () => {
          this.#failed = true;
        },
      )
      .finally(() => {
        this.#building = null;
      });
    return 'building';
  }

  /** Resolves once a build under way is over (tests, and a caller that can wait). */
  async settled(): Promise<InlinksState> {
    if ((await this.state()) === 'building') await this.#building;
    return this.state();
  }

  /** Up to `limit` pages linking to `url`, and how many there are. */
  async lookup(url: string, limit: number): Promise<{ inlinks: Inlink[]; count: number }> {
    const index = await SortedLines.open(jobInlinksPath(this.#jobDir));
    const inlinks: Inlink[] = [];
    let count = 0;
    try {
      for await (const line of index.withPrefix(`${url}\t`)) {
        count++;
        if (inlinks.length >= limit) continue;
        const [, hop, source] = line.split('\t');
        if (source !== undefined) inlinks.push({ url: source, hop: hop ?? '' });
      }
    } finally {
      await index.close();
    }
    return { inlinks, count };
  }
}

/** Reads every metadata record of the job's WARCs and writes the sorted inlinks file. */
export async function buildInlinks(jobDir: string): Promise<{ lines: number }> {
  const out = jobInlinksPath(jobDir);
  await mkdir(path.dirname(out), { recursive: true });
  const sorter = new LineSorter({ maxBufferedBytes: SORT_BUFFER_BYTES, tmpDir: path.dirname(out) });
  try {
    for (const file of await jobWarcs(jobDir)) {
      // A damaged stretch is read around (the shared reader reads on after it): its links are missing, no more.
      const records = readWarcRecords(file, { ...WARC_RECORDS_DEFAULTS, keepBlockOf: METADATA, onDamage: () => {} });
      for await (const record of records) {
        if (record.type !== 'metadata' || record.truncated) continue;
        const source = record.targetUri ?? '';
        const { outlinks } = parseOutlinks(record.block.toString('utf8'), Number.MAX_SAFE_INTEGER);
        for (const link of outlinks) {
          if (/[\t\n]/.test(link.url) || /[\t\n]/.test(source)) continue;
          if (!sorter.add(`${link.url}\t${link.hop}\t${source}`)) await sorter.spill();
        }
      }
    }
  } catch (err) {
    await sorter.close();
    throw err;
  }
  return writeSortedAtomically(out, sorter);
}

async function mtime(file: string): Promise<number | null> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return null;
  }
}
