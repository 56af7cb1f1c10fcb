/**
 * What the commands are given on the command line, expanded into files to
 * read, in a stable order so every run lists them the same way. Two
 * readings of the same `<job|dir|file...>`:
 *
 * resolveInputs, for `index`, `wacz` and `replay`, which write or serve
 * what they are given and so refuse what they cannot take: a job directory
 * (its finished WARCs; WARCs still being written, `.open`, are not read), a
 * directory of WARC files, WARC files, or (replay) WACZ files.
 *
 * expandInputs, for `analyze` and focus training, which read whatever WARCs
 * they are pointed at:
 * - a job directory (one with `warcs/`, as every command takes it): its
 *   finished WARC files (or, with none, the WARCs in its WACZ), and as
 *   references — read only for the originals of revisits — the WARCs of the
 *   earlier crawls its crawl report names under `dedupAgainst`;
 * - a WACZ: the WARC files stored in it, read in place;
 * - any other directory: walked recursively (job directories and WACZs in it
 *   taken as above), entries sorted so runs are repeatable;
 * - any other file: read. Whether it is a WARC is decided later from its
 *   first bytes, not its name, so `.open` files and oddly named archives
 *   still count.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { jobDir as jobDirOf, jobOpenWarcs, jobReportPath, jobWaczName, jobWarcs } from '../job/job-dir.js';
import { isWaczName, waczWarcs } from '../wacz/wacz-entries.js';
import { isWarcName, type WarcSource } from '../warc/warc-records.js';

export interface ResolvedInputs {
  /** WARC files, absolute, in name order per job. */
  warcs: string[];
  /** WACZ files given directly, absolute. */
  waczs: string[];
  /** Job directories given, absolute. */
  jobs: string[];
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

export interface ExpandedInputs {
  files: (string | WarcSource)[];
  /** WARCs searched only for the originals of revisits (the `dedup.against` crawls of the jobs given). */
  references: (string | WarcSource)[];
  /** Paths that do not exist or cannot be listed or read, with the reason. */
  missing: { path: string; reason: string }[];
  /** One line per job or WACZ given, saying what of it is read. */
  notes: string[];
}

async function isDirectory(p: string): Promise<boolean> {
  return stat(p).then((st) => st.isDirectory(), () => false);
}

/** The crawl report's `dedupAgainst`: the earlier jobs (absolute) a job's revisits may refer to. */
async function dedupAgainst(job: string): Promise<string[]> {
  try {
    const report = JSON.parse(await readFile(jobReportPath(job, 'crawl-report.json'), 'utf8')) as { dedupAgainst?: unknown };
    return Array.isArray(report.dedupAgainst) ? report.dedupAgainst.filter((d): d is string => typeof d === 'string') : [];
  } catch {
    return [];
  }
}

/** A job's WARCs: the finished files in warcs/, else those in its WACZ. */
async function jobSources(job: string): Promise<(string | WarcSource)[]> {
  const warcs = await jobWarcs(job);
  if (warcs.length > 0) return warcs;
  const wacz = await jobWaczName(job);
  return wacz === null ? [] : waczWarcs(path.join(job, wacz));
}

export async function expandInputs(paths: readonly string[]): Promise<ExpandedInputs> {
  const out: ExpandedInputs = { files: [], references: [], missing: [], notes: [] };
  const referenceJobs: string[] = [];
  const mainJobs = new Set<string>();
  const wacz = async (p: string): Promise<void> => {
    try {
      const inside = await waczWarcs(p);
      out.files.push(...inside);
      out.notes.push(`${p}: a WACZ, ${inside.length} WARC file(s) inside`);
    } catch (err) {
      out.missing.push({ path: p, reason: (err as Error).message.replace(`${p}: `, '') });
    }
  };
  const job = async (p: string, given: boolean): Promise<void> => {
    mainJobs.add(path.resolve(p));
    const sources = await jobSources(p);
    out.files.push(...sources);
    const against = await dedupAgainst(p);
    referenceJobs.push(...against);
    const open = await jobOpenWarcs(p);
    if (given || open.length > 0) {
      const refs = against.length > 0 ? `; for revisits, the WARCs of the earlier crawl(s) it deduplicated against: ${against.join(', ')}` : '';
      const opened = open.length > 0 ? `; ${openWarcsNote(open.length)}` : '';
      out.notes.push(`${p}: a job, ${sources.length} WARC file(s)${opened}${refs}`);
    }
  };
  const walk = async (p: string, given: boolean): Promise<void> => {
    let st;
    try {
      st = await stat(p);
    } catch (err) {
      out.missing.push({ path: p, reason: errnoWords(err) });
      return;
    }
    if (st.isFile()) {
      if (isWaczName(p)) await wacz(p);
      else out.files.push(p);
      return;
    }
    if (!st.isDirectory()) return;
    if (await isDirectory(jobDirOf(p).warcs)) {
      await job(p, given);
      return;
    }
    let names: string[];
    try {
      names = await readdir(p);
    } catch (err) {
      out.missing.push({ path: p, reason: errnoWords(err) });
      return;
    }
    names.sort();
    for (const name of names) await walk(path.join(p, name), false);
  };
  for (const p of paths) await walk(p, true);
  for (const ref of new Set(referenceJobs.map((r) => path.resolve(r)))) {
    if (mainJobs.has(ref)) continue;
    const sources = await jobSources(ref).catch(() => []);
    if (sources.length === 0) out.notes.push(`${ref}: named by dedupAgainst, but holds no WARC files now; revisits of it stay unresolved`);
    out.references.push(...sources);
  }
  return out;
}

/** `no such file or directory (ENOENT)`: the words first, the code for a search. */
function errnoWords(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const words = code === undefined ? undefined : ERRNO_WORDS[code];
  return words !== undefined ? `${words} (${code})` : (code ?? String(err));
}

const ERRNO_WORDS: Readonly<Record<string, string>> = Object.freeze({
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many symbolic links',
});
