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
 *
 * Index lines go through an external sort (LineSorter: sorted runs spilled
 * to a work directory under `indexes/`), and the merged lines are streamed
 * once, into index.cdxj and into the WACZ's blocked index at the same time,
 * so the index never sits in memory whole. Page candidates go through a
 * second one (PageCollector) and come out as pages.jsonl in the work
 * directory, which the ZIP writer streams in — unless the journal gives
 * them in package order (journal-pages.ts), the case of a crawl that was
 * never killed: then pages.jsonl is streamed into the package as the
 * journal's second read makes it. The journal is read twice
 * (openCaptureJournal), as bytes, its pages' text never decoded
 * (journal-bytes.ts), and never held. Memory is the two sort buffers
 * (sortBufferBytes between them), ~16 bytes per page (URL fingerprints)
 * and a count per digest of text-less revisits (see PageList).
 *
 * The package is begun first (WaczBuilder): the WARCs, most of its bytes,
 * are copied in while the journal is read; the page list and the index
 * follow as they are made, datapackage.json last.
 *
 * `indexJob` does the same without the package (a profile's `output.wacz`
 * false): the index lines only, from the same journal or WARCs.
 */
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError, NoInputError } from '../core/errors.js';
import type { RawJournaledCapture } from '../job/capture-journal.js';
import { openCaptureJournals } from '../job/capture-journal-reader.js';
import { JournalSummaryBuilder, sameSummary } from '../job/journal-summary.js';
import { AtomicLineFile, damageGate } from '../index/build-index.js';
import type { WarcDamage } from '../warc/warc-damage.js';
import { formatCdxjLine } from '../index/cdxj.js';
import { cdxjEntryOf } from './cdxj-entry.js';
import { captureJournalFiles, jobIndexPath, jobWarcs } from '../job/job-dir.js';
import type { LivePageList } from './live-pages.js';
import { usableLiveIndex, usableLivePages } from './live-parts.js';
import { readWarcSums, sumsIfUnchanged, warcSumsPath } from '../job/warc-sums.js';
import type { LiveIndexLines } from './live-index.js';
import { DEFAULT_SORT_BUFFER_BYTES, LineSorter } from '../index/line-sorter.js';
import { indexWarcFile } from '../index/warc-index.js';
import { BlockedIndexBuilder, DEFAULT_BLOCK_LINES, plainIndex, type IndexFiles } from './cdx-blocks.js';
import { decodedCandidate, JournalPageOrder, writeOrderedPages } from './journal-pages.js';
import { DEFAULT_MAX_TEXT_CHARS } from './page-list.js';
import { PageCollector, type WrittenPages } from './pages.js';
import { WaczBuilder } from './wacz-writer.js';

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
  /**
   * Index lines and page candidates held in memory before a sorted run is
   * spilled to disk (see LineSorter): half for each of the two sorts.
   * Default 64 MiB.
   */
  sortBufferBytes?: number;
  /** False: the page list has no text, even for pages read back from WARCs (a profile's `output.pageText`). Default true. */
  pageText?: boolean;
  /** Ignore the capture journal and read every WARC (tests compare the two paths). Default false. */
  ignoreJournal?: boolean;
  /** Told of each cut or corrupt stretch of a WARC read from its bytes. */
  onDamage?: (damage: WarcDamage) => void;
  /** Package what can be read of damaged WARCs; default false: WarcDamagedError once all are read, nothing written. */
  skipDamaged?: boolean;
  /**
   * The page list the crawl made as it wrote the journal (live-pages.ts):
   * copied into the package as it is when it covers the journal read here
   * (usableLivePages), instead of being made from that journal.
   */
  livePages?: LivePageList;
  /**
   * The index lines the crawl made as it wrote the journal (live-index.ts):
   * written as they are when they cover the journal read here
   * (usableLiveIndex), instead of being made from that journal.
   */
  liveIndex?: LiveIndexLines;
}

/** What indexJob wrote: the CDXJ index alone. */
export interface IndexedJob {
  /** The index lines were the ones the crawl made as it wrote the journal (FinalizeJobOptions.liveIndex). */
  liveIndex: boolean;
  cdxj: string;
  /** Index lines (response, revisit and resource records). */
  captures: number;
  /** WARC files indexed from their bytes (all of them without a journal). */
  warcsRead: number;
  /** The journal's closing summary stood for its first read (journal-summary.ts). */
  journalSummary: boolean;
}

export interface FinalizedJob {
  cdxj: string;
  wacz: string;
  /** Index lines (response, revisit and resource records). */
  captures: number;
  pages: number;
  /** WARC files indexed from their bytes (all of them without a journal). */
  warcsRead: number;
  /** The journal's closing summary stood for its first read (journal-summary.ts). */
  journalSummary: boolean;
  /** The page list was the one the crawl made as it wrote the journal (FinalizeJobOptions.livePages). */
  livePages: boolean;
  /** So were the index lines (FinalizeJobOptions.liveIndex). */
  liveIndex: boolean;
}

/**
 * The journal's lines do not match the summary in its closing line (the
 * file was changed after its run closed it): finalize starts again and
 * reads the journal instead. Never leaves finalizeJob or indexJob.
 */
class JournalSummaryMismatch extends ArchiverError {
  constructor() {
    super('ARCHIVER_JOURNAL_READ', 'the capture journal does not match its closing summary');
  }
}

export const DEFAULT_COMPRESSED_INDEX_ABOVE_LINES = 30_000;

export function waczFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return `${safe === '' ? 'archive' : safe}.wacz`;
}

export async function finalizeJob(opts: FinalizeJobOptions): Promise<FinalizedJob> {
  return (await finalizeTrusting(opts, true)) as FinalizedJob;
}

/**
 * The CDXJ index alone, as finalizeJob makes it, for a job not to be
 * packaged (a profile's `output.wacz` false): no page list, no package,
 * and the index one plain file whatever its size. A package an earlier
 * run of the job made is removed: it no longer covers the job, and replay
 * would take it over the WARCs.
 */
export async function indexJob(opts: Omit<FinalizeJobOptions, 'compressedIndexAboveLines' | 'indexBlockLines' | 'title' | 'created'>): Promise<IndexedJob> {
  const indexed = (await finalizeTrusting(opts, false)) as IndexedJob;
  await rm(path.join(opts.jobDir, waczFileName(opts.name)), { force: true });
  return indexed;
}

/** finalizeOnce, trusting the journal's summary first and reading the journal instead when it does not match. */
async function finalizeTrusting(opts: FinalizeJobOptions, packaged: boolean): Promise<FinalizedJob | IndexedJob> {
  try {
    return await finalizeOnce(opts, packaged, true);
  } catch (err) {
    if (!(err instanceof JournalSummaryMismatch)) throw err;
    return finalizeOnce(opts, packaged, false);
  }
}

async function finalizeOnce(opts: FinalizeJobOptions, packaged: boolean, trustSummary: boolean): Promise<FinalizedJob | IndexedJob> {
  const warcs = await jobWarcs(opts.jobDir);
  if (warcs.length === 0) throw new NoInputError(`${opts.jobDir}: no WARC files to index and package`);
  const cdxj = jobIndexPath(opts.jobDir);
  const indexDir = path.dirname(cdxj);
  await mkdir(indexDir, { recursive: true });
  await removeStaleWork(indexDir, [opts.livePages?.file, opts.liveIndex?.dir]);
  // Sorted runs and the blocked index go here: the job's disk, not a /tmp that may live in RAM.
  const work = await mkdtemp(path.join(indexDir, WORK_PREFIX));
  const sortBufferBytes = (opts.sortBufferBytes ?? DEFAULT_SORT_BUFFER_BYTES) / 2;
  const sorter = new LineSorter({ tmpDir: work, maxBufferedBytes: sortBufferBytes });
  const created = opts.created ?? new Date();
  const wacz = path.join(opts.jobDir, waczFileName(opts.name));
  let packaging: Packaging | null = null;
  if (packaged) {
    const pages = new PageCollector({ files: warcs.map((w) => path.basename(w)), tmpDir: work, sortBufferBytes, ...(opts.pageText === false ? { maxTextChars: 0 } : {}) });
    // The WARCs, the bulk of the package, are copied in while the journal is read.
    packaging = { pages, pkg: await WaczBuilder.start(wacz, created) };
  }
  try {
    // A WARC whose sums the crawl kept as it wrote it (job/warc-sums.ts) is copied in without being hashed.
    const recorded = packaging === null ? null : await readWarcSums(warcSumsPath(opts.jobDir));
    for (const warc of warcs) packaging?.pkg.addFile(`archive/${path.basename(warc)}`, warc, false, sumsIfUnchanged(recorded!, warc, await stat(warc)));
    const gate = damageGate(opts);
    const { warcsRead, written, summary, live, index: collected } = await collect(opts, warcs, sorter, packaging, gate.onDamage, trustSummary);
    // The crawl's own index lines, or the ones just collected.
    const indexLines = collected ?? sorter;
    gate.check();
    if (packaging === null) {
      // The index alone is always the plain file: the blocked layout exists for the package.
      const { lines } = await writeIndexes(indexLines, cdxj, work, { ...opts, compressedIndexAboveLines: Infinity });
      return { cdxj, captures: lines, warcsRead, journalSummary: summary, liveIndex: collected !== undefined };
    }
    const { pages, pkg } = packaging;
    const { index, lines } = await writeIndexes(indexLines, cdxj, work, opts);
    let pageList = written;
    if (pageList === null) {
      const pagesFile = path.join(work, 'pages.jsonl');
      pageList = await pages.writeJsonl(pagesFile, opts.seeds);
      pkg.addFile(PAGES_PATH, pagesFile, true);
    }
    for (const f of index.files) {
      if ('file' in f) pkg.addFile(f.path, f.file, f.compress);
      else pkg.addData(f.path, f.data, f.compress);
    }
    const { main } = pageList;
    await pkg.finish({
      title: opts.title ?? opts.name,
      created: created.toISOString(),
      software: opts.software,
      ...(main ? { mainPageUrl: main.url, mainPageDate: main.ts } : {}),
    });
    return { cdxj, wacz, captures: lines, pages: pageList.pages, warcsRead, journalSummary: summary, livePages: live === true, liveIndex: collected !== undefined };
  } finally {
    await packaging?.pkg.abort();
    await sorter.close();
    await packaging?.pages.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** What a package takes besides the index: its page list and the ZIP being written. */
interface Packaging {
  pages: PageCollector;
  pkg: WaczBuilder;
}

const PAGES_PATH = 'pages/pages.jsonl';

/** Work directories are `indexes/.finalize-XXXXXX`. */
const WORK_PREFIX = '.finalize-';

/** A finalize killed part-way leaves its work directory behind; the next one clears it. */
async function removeStaleWork(indexDir: string, keep: readonly (string | undefined)[]): Promise<void> {
  for (const name of await readdir(indexDir)) {
    const p = path.join(indexDir, name);
    if (name.startsWith(WORK_PREFIX) && !keep.includes(p)) await rm(p, { recursive: true, force: true });
  }
}

/**
 * One pass over the sorted lines: index.cdxj (atomically) and, when the
 * package needs the blocked layout, its blocks. The layout depends on the
 * count of distinct lines, known only after the merge; the count added
 * (duplicates included: they arise only when a WARC is indexed twice) is an
 * upper bound, so the blocks are built whenever it is above the threshold
 * and dropped in the rare case the distinct count is not. The plain layout
 * is index.cdxj itself, read back by the ZIP writer.
 */
async function writeIndexes(sorter: LineSorter, cdxj: string, work: string, opts: FinalizeJobOptions): Promise<{ index: IndexFiles; lines: number }> {
  const above = opts.compressedIndexAboveLines ?? DEFAULT_COMPRESSED_INDEX_ABOVE_LINES;
  let blocked: BlockedIndexBuilder | null = null;
  let lines: number;
  try {
    if (sorter.added > above) blocked = await BlockedIndexBuilder.open(path.join(work, 'index.cdx.gz'), opts.indexBlockLines ?? DEFAULT_BLOCK_LINES);
    lines = await AtomicLineFile.write(cdxj, async (out) => {
      for await (const batch of sorter.batches()) {
        // Settled both, so neither write is still running when a failure aborts them.
        const [a, b] = await Promise.allSettled([out.add(batch), blocked?.add(batch)]);
        if (a.status === 'rejected') throw a.reason;
        if (b.status === 'rejected') throw b.reason;
      }
    });
  } catch (err) {
    await blocked?.abort();
    throw err;
  }
  if (blocked !== null && lines > above) return { index: await blocked.finish(), lines };
  await blocked?.abort();
  return { index: plainIndex(cdxj), lines };
}

/**
 * Index lines (into `sorter`) and page candidates (into `pages`) of every
 * WARC: from the journal where it covers a file, else from the file's
 * bytes. Returns how many files were read from their bytes, and the page
 * list when it was written on the way: a journal covering every WARC in
 * package order needs no sort of its pages (journal-pages.ts). Without
 * `packaging`, the index lines only.
 */
async function collect(
  opts: FinalizeJobOptions,
  warcs: readonly string[],
  sorter: LineSorter,
  packaging: Packaging | null,
  onDamage: (damage: WarcDamage) => void,
  trustSummary: boolean,
): Promise<{ warcsRead: number; written: WrittenPages | null; summary: boolean; live?: boolean; index?: LineSorter }> {
  const sizes = new Map<string, number>();
  for (const w of warcs) sizes.set(path.basename(w), (await stat(w)).size);
  const pages = packaging?.pages ?? null;
  const order = new JournalPageOrder(warcs.map((w) => path.basename(w)), pages?.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS);
  // The job's journal, or every node's of a crawl of several processes.
  const journal = opts.ignoreJournal === true ? null : await openCaptureJournals(await captureJournalFiles(opts.jobDir), sizes, order.onCapture, trustSummary ? order.onSummary : undefined);
  /** Files whose captures come from the journal. */
  const fromJournal = new Set<string>();
  let warcsRead = 0;
  for (const warc of warcs) {
    const name = path.basename(warc);
    if (journal !== null && journal.covered.has(name) && !journal.rescan.has(name)) {
      fromJournal.add(name);
      continue;
    }
    warcsRead++;
    for (const e of await indexWarcFile(warc, pages === null ? { onDamage } : { onIndexed: pages.onIndexed, onRecord: pages.onRecord, onDamage })) {
      if (!sorter.add(formatCdxjLine(e))) await sorter.spill();
    }
  }
  if (journal === null || fromJournal.size === 0) return { warcsRead, written: null, summary: false };
  // A summary that stood for the first read is checked against the lines as the second read goes.
  const check = journal.summary === null ? null : new JournalSummaryBuilder();
  const checked = (c: RawJournaledCapture): void => check?.add(c, c.title !== undefined, c.textJson !== undefined);
  const verify = (): boolean => {
    const built = check?.summary() ?? null;
    if (journal.summary !== null && (built === null || !sameSummary(built, journal.summary))) throw new JournalSummaryMismatch();
    return journal.summary !== null;
  };
  let indexLine = async (c: RawJournaledCapture): Promise<void> => {
    if (!sorter.add(formatCdxjLine(cdxjEntryOf(c)))) await sorter.spill();
  };
  if (warcsRead === 0 && (packaging === null || order.ordered)) {
    // The crawl's own index lines, when they cover this journal: the pass makes none.
    const liveIndex = usableLiveIndex(opts.liveIndex, opts.jobDir, journal.summary);
    const index = liveIndex !== null ? { index: liveIndex.sorter } : {};
    if (liveIndex !== null) indexLine = async () => {};
    // One pass: index lines into their sort, pages (if packaged) straight into the package's pages.jsonl.
    const each = async (take: (c: RawJournaledCapture) => Promise<void>): Promise<void> => {
      for await (const c of journal.rawCaptures()) {
        checked(c);
        await indexLine(c);
        await take(c);
      }
    };
    // Nothing to take from the journal but index lines the crawl made already: no pass (the summary stands unread).
    const indexPass = async (): Promise<boolean> => {
      if (liveIndex !== null) return true;
      await each(async () => {});
      return verify();
    };
    if (packaging === null) return { warcsRead, written: null, summary: await indexPass(), ...index };
    const { pkg } = packaging;
    const live = usableLivePages(opts.livePages, { jobDir: opts.jobDir, seeds: opts.seeds ?? [], maxTextChars: packaging.pages.maxTextChars }, journal.summary, order);
    if (live !== null) {
      // The crawl made the list as it wrote the journal: copied in as it is.
      pkg.addDeflated(PAGES_PATH, live.file, live.sums);
      return { warcsRead, written: { pages: live.pages, main: live.main }, summary: await indexPass(), live: true, ...index };
    }
    const written = await writeOrderedPages(pkg.addStream(PAGES_PATH, true), pkg.failed, order, opts.seeds ?? [], each);
    return { warcsRead, written, summary: verify(), ...index };
  }
  // Second pass over the journal, after the WARCs read from bytes: both sorts put everything in order.
  for await (const c of journal.rawCaptures()) {
    checked(c);
    if (!fromJournal.has(c.filename)) continue;
    await indexLine(c);
    if (pages === null) continue;
    if (c.seed) pages.addSeed(c.url);
    const candidate = order.candidateOf(c);
    if (candidate !== null) await pages.add({ ...decodedCandidate(candidate), filename: c.filename, offset: c.offset });
  }
  return { warcsRead, written: null, summary: verify() };
}
