/**
 * What Crawl.start does before the handle exists, the one door every crawl
 * goes through (`archiver run`, `archiver demo`, the console's profile
 * form, a node of a shared crawl): the run policy, then the parts.
 * - The backend the profile (or `store`) names, and this process's node id
 *   where the backend is shared; a node id given for a backend of one
 *   process is refused.
 * - Combinations the backend cannot do are refused: training URLs in a
 *   crawl of several processes (each would be fetched by one node, and no
 *   node would hold them all).
 * - A job that ran to its end is left as it is (JobFinishedError): running
 *   it again would only rewrite its reports. A node of a shared crawl
 *   rejoins instead: on a finished crawl it repairs its files and packages
 *   the job again.
 * - `fresh`: the earlier crawl's job directory goes aside, and a shared
 *   backend forgets the crawl (refused while a node of it is alive).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setMaxListeners } from 'node:events';
import { systemClock } from '../core/clock.js';
import { ProfileError, UsageError } from '../core/errors.js';
import type { Profile } from '../config/profile.js';
import { checkNodeId, defaultNodeId } from '../backends/node-id.js';
import { backendRow, resetStateBackend } from '../backends/state-backends.js';
import { hasState, jobDir, moveAside } from '../job/job-dir.js';
import { CrawlEvents } from './crawl-events.js';
import type { CrawlStartOptions, RunPlan } from './crawl-options.js';
import { buildCrawlParts, type CrawlParts } from './crawl-parts.js';
import { JobFinishedError } from './job-finished.js';
import { PAGE_THREAD_WAIT_MS } from './page-thread.js';

export interface OpenedCrawl {
  parts: CrawlParts;
  events: CrawlEvents;
  abort: AbortController;
}

/** Apply the run policy, then open the job and build the crawl's parts. */
export async function openCrawl(profile: Profile, opts: CrawlStartOptions): Promise<OpenedCrawl> {
  const run = await applyRunPolicy(profile, opts);
  const events = new CrawlEvents((err) => {
    if (opts.quiet !== true) opts.log.write(`archiver: a crawl event listener failed (ignored from now on): ${err instanceof Error ? err.message : String(err)}\n`);
  });
  const abort = new AbortController();
  // Every fetch in flight, and every page finishing behind a worker, listens on it.
  setMaxListeners(profile.workers * 4 + 16, abort.signal);
  const parts = await buildCrawlParts(profile, { start: opts, run, clock: opts.clock ?? systemClock, events, abortSignal: abort.signal });
  // A crawl that follows links starts its page thread now (if the CLI has not already), and begins
  // once it is warm (page-thread.ts); a profile of one page (maxHops 0) leaves it to its pages,
  // which never start it. The page thread makes the records, the WARC files' warcinfo included
  // (crawl-parts.ts), so this thread has nothing of theirs to load meanwhile.
  if (profile.scope.maxHops > 0) await parts.pages.readyWithin(PAGE_THREAD_WAIT_MS);
  return { parts, events, abort };
}

/** The checks and the `fresh` reset every start goes through (see the file's comment). */
export async function applyRunPolicy(profile: Profile, opts: CrawlStartOptions): Promise<RunPlan> {
  const spec = opts.store ?? profile.store;
  const row = backendRow(spec);
  if (opts.node !== undefined && !row.shared) throw new UsageError('--node goes with a shared store (--store redis://HOST:PORT/DB)');
  const node = row.shared ? checkNodeId(opts.node ?? defaultNodeId()) : null;
  const trainingUrl = row.shared ? (profile.focus?.training.findIndex((t) => /^https?:\/\//i.test(t)) ?? -1) : -1;
  if (trainingUrl >= 0) {
    const where = `/focus/training/${trainingUrl}`;
    throw new ProfileError(where, `${opts.profileFile !== undefined ? `${opts.profileFile}: ` : ''}${where}: training URLs are not fetched in a crawl of several processes (${spec}); give keywords, or training WARCs or job directories`);
  }
  const dirs = jobDir(profile.output.dir);
  if (opts.fresh === true) {
    if (row.shared) await resetStateBackend(spec, profile.name);
    if (row.shared || (await hasState(dirs))) {
      const moved = await moveAside(dirs, new Date());
      if (moved !== null) opts.log.write(`archiver: moved the earlier crawl aside to ${moved}\n`);
    }
    if (row.shared) opts.log.write(`archiver: deleted crawl ${JSON.stringify(profile.name)} from ${spec}\n`);
  } else if (!row.shared && (await lastEndOf(profile.output.dir)) === 'FINISHED') {
    throw new JobFinishedError(profile.output.dir);
  }
  return { spec, node };
}

/** How the job's last run ended (its crawl report), or null when it has none. */
async function lastEndOf(jobRoot: string): Promise<string | null> {
  const dirs = jobDir(jobRoot);
  if (!(await hasState(dirs))) return null;
  try {
    const report = JSON.parse(await readFile(path.join(dirs.reports, 'crawl-report.json'), 'utf8')) as { status?: unknown };
    return typeof report.status === 'string' ? report.status : null;
  } catch {
    return null;
  }
}
