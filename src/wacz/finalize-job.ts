/**
 * The end of every crawl (and `archiver wacz`): one pass over the job's
 * WARCs builds both the CDXJ index (`<job>/indexes/index.cdxj`) and the page
 * list, then everything is packaged as `<job>/<name>.wacz`.
 */
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { indexWarcs, sortedCdxjLines, writeLinesAtomically } from '../index/build-index.js';
import { jobIndexPath } from '../index/earlier-captures.js';
import { jobWarcs } from '../index/inputs.js';
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
}

export interface FinalizedJob {
  cdxj: string;
  wacz: string;
  /** Index lines (response, revisit and resource records). */
  captures: number;
  pages: number;
}

export const DEFAULT_COMPRESSED_INDEX_ABOVE_LINES = 30_000;

export function waczFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return `${safe === '' ? 'archive' : safe}.wacz`;
}

export async function finalizeJob(opts: FinalizeJobOptions): Promise<FinalizedJob> {
  const warcs = await jobWarcs(opts.jobDir);
  if (warcs.length === 0) throw new NoInputError(`${opts.jobDir}: no WARC files to index and package`);
  const pages = new PageCollector();
  const entries = await indexWarcs(warcs, { onIndexed: pages.onIndexed, onRecord: pages.onRecord });
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
  return { cdxj, wacz, captures: lines.length, pages: pages.pages.length };
}
