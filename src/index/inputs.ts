/**
 * What `index`, `wacz` and `replay` are given on the command line: a job
 * directory (its `warcs/` are read; WARCs still being written, `.open`, are
 * not), a directory of WARC files, WARC files, or (replay) WACZ files. Resolved once here, in a stable
 * order, so the index and the package list files the same way every time.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { jobDir as jobDirOf } from '../job/job-dir.js';

export interface ResolvedInputs {
  /** WARC files, absolute, in name order per job. */
  warcs: string[];
  /** WACZ files given directly, absolute. */
  waczs: string[];
  /** Job directories given, absolute. */
  jobs: string[];
}

export function isWarcName(name: string): boolean {
  return name.endsWith('.warc.gz') || name.endsWith('.warc');
}

/** The closed WARCs of a job directory, in name order (which is write order: names carry a timestamp and serial). */
export async function jobWarcs(jobDir: string): Promise<string[]> {
  const dir = jobDirOf(jobDir).warcs;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names.filter(isWarcName).sort().map((n) => path.join(dir, n));
}

/** The WARC files of a job still open (`.open`): being written by a crawl, or left by one that was killed. */
export async function jobOpenWarcs(jobDir: string): Promise<string[]> {
  const names = await readdir(jobDirOf(jobDir).warcs).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.open') && isWarcName(n.slice(0, -'.open'.length))).sort();
}

/** Why a job's open WARCs are not read, in one phrase. */
export function openWarcsNote(count: number): string {
  return `${count} WARC file(s) still open (a crawl is writing them, or was killed: running it again closes them) not read`;
}

export async function resolveInputs(args: readonly string[], cwd = process.cwd()): Promise<ResolvedInputs> {
  const out: ResolvedInputs = { warcs: [], waczs: [], jobs: [] };
  for (const arg of args) {
    const abs = path.resolve(cwd, arg);
    let info;
    try {
      info = await stat(abs);
    } catch {
      throw new NoInputError(`${arg}: no such file or directory`);
    }
    if (info.isDirectory()) {
      const warcs = await jobWarcs(abs);
      if (warcs.length > 0) {
        out.jobs.push(abs);
        out.warcs.push(...warcs);
        continue;
      }
      const open = await jobOpenWarcs(abs);
      if (open.length > 0) throw new NoInputError(`${arg}: a job with no finished WARC file: ${openWarcsNote(open.length)}`);
      // A directory of WARC files (a job's warcs/, or any other): its files, but it is no job.
      const own = (await readdir(abs).catch(() => [] as string[])).filter(isWarcName).sort();
      if (own.length === 0) throw new NoInputError(`${arg}: neither a job directory (no WARC files in ${jobDirOf(arg).warcs}) nor a directory of WARC files`);
      out.warcs.push(...own.map((n) => path.join(abs, n)));
    } else if (isWarcName(abs)) {
      out.warcs.push(abs);
    } else if (abs.endsWith('.wacz')) {
      out.waczs.push(abs);
    } else {
      throw new NoInputError(`${arg}: neither a job directory, a WARC (.warc, .warc.gz) nor a WACZ`);
    }
  }
  return out;
}
