/**
 * The layout of a job directory: warcs/, logs/crawl.log, reports/, state/
 * (LevelDB), indexes/ (index.cdxj, the capture journal captures.jsonl, the
 * search index search/, the console's inlinks.txt), analysis/ (what
 * `archiver demo` suggests `archiver analyze --out` write). The one place
 * that knows the names: every other file asks here.
 *
 * A node of a crawl run by several processes (Redis) writes its own files
 * beside the others' in one job directory: `logs/crawl-<node>.log`,
 * `tmp/<node>/`, `indexes/captures-<node>.jsonl`, `indexes/search-<node>/`
 * (WARC names carry the node too, warc-naming.ts); it keeps no `state/`.
 */
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { isWarcName } from '../warc/warc-records.js';

export interface JobDir {
  root: string;
  warcs: string;
  logs: string;
  crawlLog: string;
  reports: string;
  state: string;
  indexes: string;
  tmp: string;
  /** The node whose files these are (a crawl of several processes), or null. */
  node: string | null;
}

export function jobDir(root: string, node: string | null = null): JobDir {
  return {
    root,
    warcs: path.join(root, 'warcs'),
    logs: path.join(root, 'logs'),
    crawlLog: path.join(root, 'logs', node === null ? 'crawl.log' : `crawl-${node}.log`),
    reports: path.join(root, 'reports'),
    state: path.join(root, 'state'),
    indexes: path.join(root, 'indexes'),
    tmp: node === null ? path.join(root, 'tmp') : path.join(root, 'tmp', node),
    node,
  };
}

/** What makes a directory a job: one of these inside. */
export const JOB_MARKERS: readonly string[] = ['warcs', 'logs', 'state', 'indexes'];

/** The files of `dir` whose names pass `keep`, sorted, as whole paths ([] when there is no `dir`). */
async function filesIn(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names.filter(keep).sort().map((n) => path.join(dir, n));
}

/** Every node's crawl.log of a job (crawl.log itself first when there is one). */
export function jobCrawlLogs(root: string): Promise<string[]> {
  return filesIn(jobDir(root).logs, (n) => n === 'crawl.log' || /^crawl-[A-Za-z0-9._-]+\.log$/.test(n));
}

/** The closed WARCs of a job directory, in name order (which is write order: names carry a timestamp and serial). */
export function jobWarcs(root: string): Promise<string[]> {
  return filesIn(jobDir(root).warcs, isWarcName);
}

/** The names of a job's WARC files still open (`.open`): being written by a crawl, or left by one that was killed. */
export async function jobOpenWarcs(root: string): Promise<string[]> {
  const names = await readdir(jobDir(root).warcs).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.open') && isWarcName(n.slice(0, -'.open'.length))).sort();
}

/** A file of the job's reports/, e.g. `crawl-report.json`. */
export function jobReportPath(root: string, fileName: string): string {
  return path.join(jobDir(root).reports, fileName);
}

/** Where the CDXJ index of a job lives (written at the end of every crawl). */
export function jobIndexPath(root: string): string {
  return path.join(jobDir(root).indexes, 'index.cdxj');
}

/** Where the capture journal of a job lives (a node of a crawl of several processes keeps its own). */
export function captureJournalPath(root: string, node: string | null = null): string {
  return path.join(jobDir(root).indexes, node === null ? 'captures.jsonl' : `captures-${node}.jsonl`);
}

/**
 * Where a crawl makes the package's page list as it runs (wacz/live-pages.ts).
 * Named like the end of a crawl's work directories (`.finalize-…`), so the one
 * a killed crawl leaves is cleared by the next end.
 */
export function livePagesPath(root: string): string {
  return path.join(jobDir(root).indexes, '.finalize-live-pages.deflate');
}

/** Where a crawl sorts the index lines it makes as it runs (wacz/live-index.ts); named as livePagesPath is. */
export function liveIndexDir(root: string): string {
  return path.join(jobDir(root).indexes, '.finalize-live-index');
}

/** Every capture journal of a job: its own, and each node's of a crawl of several processes. */
export function captureJournalFiles(root: string): Promise<string[]> {
  return filesIn(jobDir(root).indexes, (n) => /^captures(-.+)?\.jsonl$/.test(n));
}

/** Where a job keeps its search index. */
export function jobSearchDir(root: string): string {
  return path.join(jobDir(root).indexes, 'search');
}

/** Where the console keeps a job's inlinks index. */
export function jobInlinksPath(root: string): string {
  return path.join(jobDir(root).indexes, 'inlinks.txt');
}

/** Where `archiver analyze` writes a job's analysis when the demo suggests it (the console reads PageRank there). */
export function jobAnalysisDir(root: string): string {
  return path.join(root, 'analysis');
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

export async function ensureJobDir(dir: JobDir): Promise<void> {
  for (const d of [dir.warcs, dir.logs, dir.reports, dir.node === null ? dir.state : null, dir.tmp]) if (d !== null) await mkdir(d, { recursive: true });
}

/** True when the job directory holds the state of an earlier crawl. */
export async function hasState(dir: JobDir): Promise<boolean> {
  try {
    return (await readdir(dir.state)).length > 0;
  } catch {
    return false;
  }
}

/** Moves an existing job directory aside (never deletes it); returns where it went. */
export async function moveAside(dir: JobDir, now: Date): Promise<string | null> {
  try {
    await stat(dir.root);
  } catch {
    return null;
  }
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const target = `${dir.root}.${stamp}`;
  await rename(dir.root, target);
  return target;
}
