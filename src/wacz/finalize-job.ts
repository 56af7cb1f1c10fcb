/**
 * The end of every crawl (and `archiver wacz`): the CDXJ index
 * (`<job>/indexes/index.cdxj`) and the page list, then everything packaged
 * as `<job>/<name>.wacz`.
 *
 * Index lines and pages come from the capture journal the crawl wrote
 * (`indexes/captures.jsonl`) when there is one, so the WARCs are read once
 * only, by the ZIP writer, and not inflated at all. WARC files the journal
 * does not cover — a job begun by an older version, or the files a killed
 * run was writing — are indexed from their bytes, as is the whole job when
 * it has no journal.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { captureJournalPath, readCaptureJournal, type JournaledCapture } from '../crawl/capture-journal.js';
import { sortedCdxjLines, writeLinesAtomically } from '../index/build-index.js';
import { entryFor, REVISIT_MIME, type CdxjEntry } from '../index/cdxj.js';
import { jobIndexPath } from '../index/earlier-captures.js';
import { jobWarcs } from '../index/inputs.js';
import { indexWarcFile } from '../index/warc-index.js';
import { blockedIndex, DEFAULT_BLOCK_LINES, plainIndex } from './cdx-blocks.js';
import { PageCollector } from './pages.js';
import { writeWacz } from './wacz-writer.js';

export interface FinalizeJobOptions {
  jobDir: string;
  /** Package name: the file is `<name>.wacz` (characters other than letters, digits, `._-` become `_`). */
  name: string;
  /** datapackage.json `software`, e.g. "archiver/0.1.0". */
  software: string;
  /** The crawl's seeds, in the profile's order: the first captured one becomes mainPageUrl. */
  seeds?: readonly string[];
  /** Package title; default `name`. */
  title?: string;
  /** datapackage.json `created`; default now. */
  created?: Date;
  /** Above this many index lines the package gets index.cdx.gz + index.idx instead of index.cdx. Default 30 000. */
  compressedIndexAboveLines?: number;
  /** Lines per gzip block of index.cdx.gz. Default 3000. */
  indexBlockLines?: number;
  /** Ignore the capture journal and read every WARC (tests compare the two paths). Default false. */
  ignoreJournal?: boolean;
}

export interface FinalizedJob {
  cdxj: string;
  wacz: string;
  /** Index lines (response, revisit and resource records). */
  captures: number;
  pages: number;
  /** WARC files indexed from their bytes (all of them without a journal). */
  warcsRead: number;
}

export const DEFAULT_COMPRESSED_INDEX_ABOVE_LINES = 30_000;

export function waczFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return `${safe === '' ? 'archive' : safe}.wacz`;
}

export async function finalizeJob(opts: FinalizeJobOptions): Promise<FinalizedJob> {
  const warcs = await jobWarcs(opts.jobDir);
  if (warcs.length === 0) throw new NoInputError(`${opts.jobDir}: no WARC files to index and package`);
  const { entries, pages, warcsRead } = await collect(opts.jobDir, warcs, opts.ignoreJournal ?? false);
  const lines = sortedCdxjLines(entries);
  const cdxj = jobIndexPath(opts.jobDir);
  await writeLinesAtomically(cdxj, lines);

  const above = opts.compressedIndexAboveLines ?? DEFAULT_COMPRESSED_INDEX_ABOVE_LINES;
  const index = lines.length > above ? blockedIndex(lines, opts.indexBlockLines ?? DEFAULT_BLOCK_LINES) : plainIndex(lines);
  const main = pages.mainPage(opts.seeds);
  const wacz = path.join(opts.jobDir, waczFileName(opts.name));
  await writeWacz(wacz, {
    warcs,
    index,
    pagesJsonl: Buffer.from(pages.jsonl(), 'utf8'),
    info: {
      title: opts.title ?? opts.name,
      created: (opts.created ?? new Date()).toISOString(),
      software: opts.software,
      ...(main ? { mainPageUrl: main.url, mainPageDate: main.ts } : {}),
    },
  });
  return { cdxj, wacz, captures: lines.length, pages: pages.pages.length, warcsRead };
}

interface Collected {
  entries: CdxjEntry[];
  pages: PageCollector;
  warcsRead: number;
}

/** Index entries and pages of every WARC: from the journal where it covers a file, else from the file. */
async function collect(jobDir: string, warcs: readonly string[], ignoreJournal: boolean): Promise<Collected> {
  const names = warcs.map((w) => path.basename(w));
  const pages = new PageCollector({ files: names });
  const sizes = new Map<string, number>();
  for (const w of warcs) sizes.set(path.basename(w), (await stat(w)).size);
  const journal = ignoreJournal ? null : await readCaptureJournal(captureJournalPath(jobDir), sizes);
  const byFile = new Map<string, JournaledCapture[]>();
  for (const c of journal?.captures ?? []) {
    const list = byFile.get(c.filename);
    if (list) list.push(c);
    else byFile.set(c.filename, [c]);
  }
  const entries: CdxjEntry[] = [];
  let warcsRead = 0;
  for (const warc of warcs) {
    const name = path.basename(warc);
    const journaled = byFile.get(name);
    if (journal === null || journaled === undefined || journal.rescan.has(name)) {
      warcsRead++;
      for (const e of await indexWarcFile(warc, { onIndexed: pages.onIndexed, onRecord: pages.onRecord })) entries.push(e);
      continue;
    }
    for (const c of journaled) {
      entries.push(cdxjEntryOf(c));
      if (c.seed) pages.addSeed(c.url);
      if (!c.page) continue;
      pages.add({
        url: c.url,
        warcDate: c.date,
        digest: c.digest,
        original: !c.revisit,
        filename: c.filename,
        offset: c.offset,
        ...(c.title !== undefined ? { title: c.title } : {}),
        ...(c.text !== undefined ? { text: c.text } : {}),
      });
    }
  }
  return { entries, pages, warcsRead };
}

/** The CDXJ entry of a journaled capture: what indexWarcFile reads from the record. */
export function cdxjEntryOf(c: JournaledCapture): CdxjEntry {
  return entryFor({
    url: c.url,
    warcDate: c.date,
    mime: c.revisit ? REVISIT_MIME : c.mime === '' ? 'unk' : c.mime,
    status: c.status,
    digest: c.digest,
    length: c.length,
    offset: c.offset,
    filename: c.filename,
  });
}
