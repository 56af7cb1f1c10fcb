/**
 * Loads `profile.dedup.against` into a keyspace of the crawl state for
 * EarlierCaptures (earlier-captures.ts): each earlier job's CDXJ index
 * streamed line by line, or, for a job without one, its WARCs indexed one
 * file at a time. A resumed crawl does not load again: the `!loaded` marker
 * records the resolved jobs and the size and mtime of what was read from
 * each, and is written only once the whole load is in the store. When it
 * does not match (another `against`, an index rewritten, a WACZ made since,
 * a kill during loading) the keyspace is cleared and loaded again.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { FatalCrawlError, NoInputError } from '../core/errors.js';
import { fileLines } from '../core/file-lines.js';
import { parseCdxjLine } from '../index/cdxj.js';
import { jobIndexPath, jobWaczName, jobWarcs } from '../job/job-dir.js';
import { indexWarcFile } from '../index/warc-index.js';
import { WarcDamagedError } from '../warc/warc-damage.js';
import { BUFFER_ENCODINGS } from '../store/keyspace.js';
import {
  EarlierCaptures,
  MARKER_KEY,
  STORE_FORMAT,
  type EarlierCapturesOpts,
  type EarlierJob,
  type EarlierLevel,
} from './earlier-captures.js';


/** One job as loaded: where it is, what was read from it, and the stamp that tells whether it changed. */
interface JobSource extends EarlierJob {
  /** The index, or (none) the WARCs read instead. */
  index: string | null;
  warcs: string[];
  /** Size and mtime of each file read, in order. */
  stamp: string[];
}

export interface LoadEarlierOpts extends EarlierCapturesOpts {
  /** Relative job directories are resolved against it. Default process.cwd(). */
  cwd?: string;
}

/**
 * Loads `profile.dedup.against` into `db` (a keyspace of the crawl state,
 * which must be open; never closed here): job directories, relative ones
 * resolved against `cwd`. A job that does not exist or holds no WARCs is
 * an error (exit 4), not a silent full re-archive. Skipped when the store
 * already holds exactly these jobs as they are now.
 */
export async function loadEarlierCaptures(against: readonly string[], db: EarlierLevel, opts: LoadEarlierOpts = {}): Promise<EarlierCaptures> {
  const cwd = opts.cwd ?? process.cwd();
  const jobs: JobSource[] = [];
  for (const given of against) jobs.push(await jobSource(path.resolve(cwd, given), given));
  const marker = JSON.stringify({ format: STORE_FORMAT, jobs: jobs.map((j) => ({ dir: j.dir, container: j.container, stamp: j.stamp })) });
  let stored: Buffer | undefined;
  try {
    stored = await db.get(MARKER_KEY, BUFFER_ENCODINGS);
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store read failed', { cause: err });
  }
  const loaded = jobs.map(({ dir, container }) => ({ dir, container }));
  if (stored !== undefined && stored.toString('utf8') === marker) return new EarlierCaptures(db, loaded, opts, false);

  try {
    await db.clear();
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store clear failed', { cause: err });
  }
  const captures = new EarlierCaptures(db, loaded, opts, true);
  for (const [j, job] of jobs.entries()) {
    if (job.index !== null) {
      for await (const lines of fileLines(job.index)) for (const line of lines) if (line !== '') await captures.add(parseCdxjLine(line), j);
    } else {
      for (const warc of job.warcs) {
        let entries;
        try {
          entries = await indexWarcFile(warc);
        } catch (err) {
          if (!(err instanceof WarcDamagedError)) throw err;
          // Without an index, the earlier job's WARCs are read here: say how to give it one that skips the damage.
          throw new NoInputError(`dedup.against: ${err.message}; archiver index --skip-bad ${job.dir} indexes what can be read of that job`, { cause: err });
        }
        for (const entry of entries) await captures.add(entry, j);
      }
    }
  }
  await captures.flush();
  try {
    await db.batch([{ type: 'put', key: MARKER_KEY, value: Buffer.from(marker, 'utf8') }], BUFFER_ENCODINGS);
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_EARLIER_CAPTURES', 'earlier captures store write failed', { cause: err });
  }
  return captures;
}

async function jobSource(dir: string, given: string): Promise<JobSource> {
  const container = await jobWaczName(dir);
  const index = await stampOf(jobIndexPath(dir));
  if (index !== null) return { dir, container, index: jobIndexPath(dir), warcs: [], stamp: [index] };
  const warcs = await jobWarcs(dir);
  if (warcs.length === 0) throw new NoInputError(`dedup.against: ${given} has neither ${path.relative(dir, jobIndexPath(dir))} nor WARCs`);
  const stamp: string[] = [];
  for (const w of warcs) stamp.push(`${path.basename(w)}:${(await stampOf(w)) ?? 'gone'}`);
  return { dir, container, index: null, warcs, stamp };
}

/** `size:mtimeMs` of a file, or null when there is no such file. */
async function stampOf(file: string): Promise<string | null> {
  try {
    const s = await stat(file);
    return s.isFile() ? `${s.size}:${s.mtimeMs}` : null;
  } catch {
    return null;
  }
}
