/**
 * Building a search index whole, from what is on disk: `archiver index
 * <job>` (the job's capture journal where it covers a WARC file, the WARC's
 * own records where it does not, as the end of a crawl builds the CDXJ) and
 * `archiver index --search <warcs…> -o DIR` (WARC files alone). The index
 * is built beside its place and swapped in when complete, so a reader
 * never sees half of it and a failed build leaves the old one.
 */
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { captureJournalFiles, captureJournalPath, jobSearchDir, jobWarcs } from '../job/job-dir.js';
import { openCaptureJournals } from '../job/capture-journal-reader.js';
import { journalFrom, searchPageOf, warcPages } from './page-sources.js';
import { SearchStore } from './search-store.js';
import type { SearchPage } from './search-types.js';
import type { WarcDamage } from '../warc/warc-damage.js';

export interface BuiltSearchIndex {
  dir: string;
  /** Pages in the index. */
  pages: number;
  /** WARC files read from their bytes. */
  warcsRead: number;
}

/** Pages per transaction while building. */
const BUILD_BATCH = 500;

/** Rebuild `<job>/indexes/search` from the job's WARCs and journal. `ignoreJournal`: read every WARC (tests compare both). */
export async function buildJobSearchIndex(
  jobDir: string,
  opts: { ignoreJournal?: boolean; onDamage?: (damage: WarcDamage) => void } = {},
): Promise<BuiltSearchIndex> {
  const warcs = await jobWarcs(jobDir);
  const sizes = new Map<string, number>();
  for (const w of warcs) sizes.set(path.basename(w), (await stat(w)).size);
  // The job's journal, or every node's of a crawl of several processes.
  const journalFiles = await captureJournalFiles(jobDir);
  const journal = opts.ignoreJournal ? null : await openCaptureJournals(journalFiles, sizes);
  const fromJournal = new Set<string>();
  const toRead: string[] = [];
  for (const w of warcs) {
    const name = path.basename(w);
    if (journal !== null && journal.covered.has(name) && !journal.rescan.has(name)) fromJournal.add(name);
    else toRead.push(w);
  }
  return buildInto(jobSearchDir(jobDir), async (add, store) => {
    for (const w of toRead) await warcPages(w, add, opts.onDamage);
    if (fromJournal.size === 0) return;
    for (const journalFile of journalFiles) {
      let end = 0;
      for await (const chunk of journalFrom(journalFile, 0)) {
        for (const line of chunk.lines) {
          if (line.kind !== 'capture' || !fromJournal.has(line.capture.filename)) continue;
          const c = line.capture;
          if (c.offset + c.length > (sizes.get(c.filename) ?? 0)) continue;
          const page = searchPageOf(c);
          if (page !== null) await add(page);
        }
        end = chunk.end;
      }
      // A crawl resumed on this job catches up from here (see SearchIndex.catchUp): the job's own journal only.
      if (journalFile === captureJournalPath(jobDir)) store.setMeta('journalOffset', String(end));
    }
  }).then((built) => ({ ...built, warcsRead: toRead.length }));
}

/**
 * Build an index in `outDir` from WARC files alone. `onDamage`: told of each
 * cut or corrupt stretch (the pages around it are indexed); without it a
 * damaged file throws WarcDamagedError.
 */
export async function buildWarcSearchIndex(
  warcs: readonly string[],
  outDir: string,
  onDamage?: (damage: WarcDamage) => void,
  /** Runs once every file is read, before the index is swapped in; throwing keeps the old one. */
  beforeSwap?: () => void,
): Promise<BuiltSearchIndex> {
  const built = await buildInto(outDir, async (add) => {
    for (const w of warcs) await warcPages(w, add, onDamage);
    beforeSwap?.();
  });
  return { ...built, warcsRead: warcs.length };
}

type Fill = (add: (page: SearchPage) => Promise<void>, store: SearchStore) => Promise<void>;

async function buildInto(outDir: string, fill: Fill): Promise<Omit<BuiltSearchIndex, 'warcsRead'>> {
  const dir = path.resolve(outDir);
  const work = `${dir}.build-${process.pid}`;
  await rm(work, { recursive: true, force: true });
  const store = SearchStore.open(work);
  let pages: number;
  try {
    let batch: SearchPage[] = [];
    await fill(async (page) => {
      batch.push(page);
      if (batch.length >= BUILD_BATCH) {
        store.addBatch(batch);
        batch = [];
      }
    }, store);
    store.addBatch(batch);
    store.optimize();
    pages = store.count();
    store.close();
  } catch (err) {
    store.close();
    await rm(work, { recursive: true, force: true });
    throw err;
  }
  const old = `${dir}.old-${process.pid}`;
  const hadOld = await stat(dir).then(() => true, () => false);
  if (hadOld) await rename(dir, old);
  await rename(work, dir);
  if (hadOld) await rm(old, { recursive: true, force: true });
  return { dir, pages };
}
