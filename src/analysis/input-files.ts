/**
 * Expands the command line's `<job|dir|file...>` into what to read:
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
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { jobOpenWarcs, jobWarcs, openWarcsNote } from '../index/inputs.js';
import { jobDir, jobReportPath, jobWaczName } from '../job/job-dir.js';
import { isWaczName, waczWarcs } from '../wacz/wacz-entries.js';
import type { WarcSource } from '../warc/warc-records.js';

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
  return fs.stat(p).then((st) => st.isDirectory(), () => false);
}

/** The crawl report's `dedupAgainst`: the earlier jobs (absolute) a job's revisits may refer to. */
async function dedupAgainst(job: string): Promise<string[]> {
  try {
    const report = JSON.parse(await fs.readFile(jobReportPath(job, 'crawl-report.json'), 'utf8')) as { dedupAgainst?: unknown };
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
      st = await fs.stat(p);
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
    if (await isDirectory(jobDir(p).warcs)) {
      await job(p, given);
      return;
    }
    let names: string[];
    try {
      names = await fs.readdir(p);
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
