/**
 * A job's search index, brought up to date when someone reads it. The crawl
 * does not index: every page's title and text are already in the capture
 * journal, so indexing while crawling only added a thread, SQLite and a
 * copy of every page's text to each crawl (a fifth of its CPU on a
 * documentation site), for an index most crawls never query. Whoever
 * searches — `archiver search`, the console, the crawl handle — first adds
 * the journal's lines written since the last reader stopped (a few
 * milliseconds when nothing is new), then queries.
 *
 * A job without its own journal (a crawl of several processes, whose
 * packaging node builds the index; an older job; a directory of WARC files)
 * keeps the index it has, or gets one built from its WARCs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { captureJournalPath, jobSearchDir, jobWarcs } from '../job/job-dir.js';
import type { WarcDamage } from '../warc/warc-damage.js';
import { buildJobSearchIndex } from './build-search-index.js';
import { SearchIndex } from './search-index.js';
import { SEARCH_DB_FILE } from './search-store.js';
import type { SearchOptions, SearchResponse } from './search-types.js';

export interface CurrentIndexOptions {
  /** Told before a build or a catch-up that adds pages: one line for the operator. */
  onProgress?: (line: string) => void;
  onDamage?: (damage: WarcDamage) => void;
}

/** Catch-ups of one index in this process run one after another (the console may ask twice at once). */
const catchingUp = new Map<string, Promise<unknown>>();

/**
 * The directory of `jobDir`'s search index, up to date with the job's
 * capture journal; null when the job has neither a journal, an index nor
 * WARC files to build one from.
 */
export async function currentJobSearchIndex(jobDir: string, opts: CurrentIndexOptions = {}): Promise<string | null> {
  const root = path.resolve(jobDir);
  const dir = jobSearchDir(root);
  if (existsSync(captureJournalPath(root))) {
    const previous = catchingUp.get(dir) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => catchUp(root, dir, opts));
    catchingUp.set(dir, run);
    try {
      await run;
    } finally {
      if (catchingUp.get(dir) === run) catchingUp.delete(dir);
    }
    return dir;
  }
  if (existsSync(path.join(dir, SEARCH_DB_FILE))) return dir;
  if ((await jobWarcs(root)).length === 0) return null;
  opts.onProgress?.(`${jobDir} has no search index yet; building it from its WARCs…`);
  const built = await buildJobSearchIndex(root, opts.onDamage ? { onDamage: opts.onDamage } : {});
  opts.onProgress?.(`indexed ${built.pages} pages → ${built.dir}`);
  return built.dir;
}

/** Search `jobDir`'s pages, the index first brought up to date; null when there is nothing to search. */
export async function searchJob(jobDir: string, query: string, opts: SearchOptions = {}): Promise<SearchResponse | null> {
  const dir = await currentJobSearchIndex(jobDir);
  if (dir === null) return null;
  // In this thread: a query is a few milliseconds of SQLite; a worker would cost more.
  const index = await SearchIndex.open(dir, { worker: false });
  try {
    return await index.search(query, opts);
  } finally {
    await index.close();
  }
}

async function catchUp(root: string, dir: string, opts: CurrentIndexOptions): Promise<void> {
  const index = await SearchIndex.open(dir, { worker: false });
  try {
    const caught = await index.catchUp(root);
    if (caught.added > 100) opts.onProgress?.(`indexed ${caught.added} new pages → ${dir}`);
  } finally {
    await index.close();
  }
}
