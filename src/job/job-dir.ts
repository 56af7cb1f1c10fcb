/**
 * The layout of a job directory: warcs/, logs/crawl.log, reports/, state/
 * (LevelDB), indexes/index.cdxj. One place that knows the names (the
 * capture journal's is beside it, in capture-journal.ts).
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
}

export function jobDir(root: string): JobDir {
  return {
    root,
    warcs: path.join(root, 'warcs'),
    logs: path.join(root, 'logs'),
    crawlLog: path.join(root, 'logs', 'crawl.log'),
    reports: path.join(root, 'reports'),
    state: path.join(root, 'state'),
    tmp: path.join(root, 'tmp'),
  };
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
  for (const d of [dir.warcs, dir.logs, dir.reports, dir.state, dir.tmp]) await mkdir(d, { recursive: true });
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
