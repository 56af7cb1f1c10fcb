/**
 * The layout of a job directory: warcs/, logs/crawl.log, reports/, state/
 * (LevelDB), indexes/index.cdxj. One place that knows the names (the
 * capture journal's is beside it, in capture-journal.ts).
 *
 * A node of a crawl run by several processes (Redis) writes its own files
 * beside the others' in one job directory: `logs/crawl-<node>.log`,
 * `tmp/<node>/`, `indexes/captures-<node>.jsonl`, `indexes/search-<node>/`
 * (WARC names carry the node too, warc-naming.ts); it keeps no `state/`.
 */
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';

export interface JobDir {
  root: string;
  warcs: string;
  logs: string;
  crawlLog: string;
  reports: string;
  state: string;
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
    tmp: node === null ? path.join(root, 'tmp') : path.join(root, 'tmp', node),
    node,
  };
}

/** Every node's crawl.log of a job (crawl.log itself first when there is one). */
export async function jobCrawlLogs(root: string): Promise<string[]> {
  const logs = path.join(root, 'logs');
  let names: string[];
  try {
    names = await readdir(logs);
  } catch {
    return [];
  }
  return names.filter((n) => n === 'crawl.log' || /^crawl-[A-Za-z0-9._-]+\.log$/.test(n)).sort().map((n) => path.join(logs, n));
}

/** Where the CDXJ index of a job lives (written at the end of every crawl). */
export function jobIndexPath(jobDir: string): string {
  return path.join(jobDir, 'indexes', 'index.cdxj');
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
