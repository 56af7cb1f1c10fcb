/**
 * The jobs a console serves: the job directories under one directory
 * (`archiver serve DIR`), or a single job (`archiver run --console`), and
 * the crawls running in this process, or a crawl run by other processes
 * and watched through its store (`archiver serve --store`). Every job name
 * from a request is checked here before any file is opened: a plain name (letters, digits,
 * `._-`, not starting with a dot), a directory right under the jobs
 * directory once symlinks are resolved, that holds a job.
 */
import { open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { JOB_MARKERS, jobCrawlLogs, jobWaczName } from '../job/job-dir.js';
import { ConsoleError, notFound } from './console-errors.js';
import { jobEnding, resumable, type JobEnding } from './job-ending.js';
import { crawlReportPath, reportJson, reportStatus } from './job-reports.js';
import type { LiveJob } from './live-job.js';
import type { StoreJob } from './store-job.js';
import { iso } from './http-io.js';

const JOB_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export type JobState = 'running' | 'paused' | 'stopping' | 'finished' | 'interrupted';

export interface JobInfo {
  name: string;
  state: JobState;
  endReason: string | null;
  pages: number | null;
  /** ISO 8601, UTC; null when unknown. */
  started: string | null;
  ended: string | null;
  /** The job's WACZ file name, null until it is packaged. */
  wacz: string | null;
  /** What ended it (job-ending.ts); null while it runs. */
  ending: JobEnding | null;
  /** Whether `archiver run` with its profile goes on with it. */
  resumable: boolean;
}

export interface JobRef {
  name: string;
  /** Absolute. */
  dir: string;
  live: LiveJob | null;
  /** A crawl run by other processes, seen through its store (serve --store). */
  store?: StoreJob;
}

export class BadJobNameError extends ConsoleError {
  constructor(name: string) {
    super(400, 'ARCHIVER_CONSOLE_BAD_JOB', `not a job name: ${JSON.stringify(name.slice(0, 100))}`);
  }
}

export function checkJobName(name: string): string {
  if (!JOB_NAME.test(name)) throw new BadJobNameError(name);
  return name;
}

export class JobCatalog {
  /** Absolute. */
  readonly root: string;
  readonly #only: string | null;
  readonly #live = new Map<string, LiveJob>();
  #store: StoreJob | null = null;

  /** `only`: serve that job (a directory under `root`) and no other. */
  constructor(opts: { root: string; only?: string }) {
    this.root = path.resolve(opts.root);
    this.#only = opts.only === undefined ? null : checkJobName(opts.only);
  }

  /** The job a request means when it names none (run --console); null when it must name one. */
  get defaultJob(): string | null {
    return this.#only;
  }

  /** Whether new jobs may be started here (serve). */
  get acceptsNewJobs(): boolean {
    return this.#only === null;
  }

  /** Serve a crawl run by other processes (its name must be the one job this catalog serves). */
  attachStore(job: StoreJob): void {
    if (job.name !== this.#only) throw new Error(`store job ${job.name} is not the catalog's job`);
    this.#store = job;
  }

  attach(job: LiveJob): void {
    this.#live.set(job.name, job);
  }

  /** The crawl ended: the job is served from its files from now on. */
  detach(name: string): void {
    const job = this.#live.get(name);
    this.#live.delete(name);
    void job?.close().catch(() => undefined);
  }

  live(name: string): LiveJob | null {
    return this.#live.get(name) ?? null;
  }

  liveJobs(): LiveJob[] {
    return [...this.#live.values()];
  }

  /** Where a job of this name lives (it may not exist yet). */
  dirFor(name: string): string {
    return path.join(this.root, checkJobName(name));
  }

  /** The job a request names (or the default one); 400 for a bad name, 404 for no such job. */
  async resolve(name: string | null): Promise<JobRef> {
    const wanted = name ?? this.#only;
    if (wanted === null) throw new ConsoleError(400, 'ARCHIVER_CONSOLE_BAD_REQUEST', 'job is required');
    checkJobName(wanted);
    if (this.#only !== null && wanted !== this.#only) throw notFound(`no job ${wanted}`);
    const live = this.#live.get(wanted);
    if (live !== undefined) return { name: wanted, dir: live.dir, live };
    // Its nodes may write their files on other machines: the job needs no directory here.
    if (this.#store !== null && wanted === this.#store.name) return { name: wanted, dir: this.#store.dir, live: null, store: this.#store };
    const dir = this.dirFor(wanted);
    if (!(await this.#isJobDir(dir))) throw notFound(`no job ${wanted}`);
    return { name: wanted, dir, live: null };
  }

  async list(): Promise<JobInfo[]> {
    const names = new Set<string>(this.#live.keys());
    if (this.#only !== null) names.add(this.#only);
    else {
      let entries: Array<{ name: string; isDirectory(): boolean }> = [];
      try {
        entries = await readdir(this.root, { withFileTypes: true });
      } catch {
        entries = [];
      }
      for (const e of entries) if (e.isDirectory() && JOB_NAME.test(e.name) && (await this.#isJobDir(path.join(this.root, e.name)))) names.add(e.name);
    }
    const out: JobInfo[] = [];
    for (const name of [...names].sort()) {
      const info = await this.info(name).catch(() => null);
      if (info !== null) out.push(info);
    }
    return out;
  }

  async info(name: string): Promise<JobInfo> {
    const ref = await this.resolve(name);
    const wacz = await jobWaczName(ref.dir);
    const started = await jobStartTime(ref.dir);
    if (ref.store !== undefined) {
      const r = await ref.store.report();
      const state: JobState = r.finished !== null ? 'finished' : r.totals.liveNodes === 0 ? 'interrupted' : r.stopped ? 'stopping' : r.paused ? 'paused' : 'running';
      const ending = r.finished !== null ? jobEnding({ status: 'FINISHED', seeds: null }) : null;
      return { name, state, endReason: r.finished !== null ? 'FINISHED' : null, pages: r.totals.pages, started, ended: r.finished, wacz, ending, resumable: state === 'interrupted' };
    }
    if (ref.live !== null) {
      const s = ref.live.crawl.status();
      const ending = s.state === 'finished' ? jobEnding({ status: s.endReason, seeds: null }) : null;
      return { name, state: s.state, endReason: s.endReason, pages: s.pages, started: started ?? iso(ref.live.startedAt), ended: iso(ref.live.endedAt), wacz, ending, resumable: ending !== null && resumable(ending) };
    }
    const report = await reportStatus(name, ref.dir);
    if (report !== null) {
      const ended = await stat(crawlReportPath(ref.dir)).then((s) => s.mtime.toISOString(), () => null);
      const ending = jobEnding(await reportJson(ref.dir));
      return { name, state: 'finished', endReason: report.endReason, pages: report.pages, started, ended, wacz, ending, resumable: resumable(ending) };
    }
    return { name, state: 'interrupted', endReason: null, pages: null, started, ended: null, wacz, ending: 'interrupted', resumable: true };
  }

  /** A directory right under the root (symlinks resolved) holding a job. */
  async #isJobDir(dir: string): Promise<boolean> {
    let real: string;
    let rootReal: string;
    try {
      real = await realpath(dir);
      rootReal = await realpath(this.root);
    } catch {
      return false;
    }
    if (path.dirname(real) !== rootReal) return false;
    for (const marker of JOB_MARKERS) {
      if (await stat(path.join(real, marker)).then((s) => s.isDirectory(), () => false)) return true;
    }
    return false;
  }
}

/**
 * When the job began: the earliest first line of its crawl logs — crawl.log,
 * or each node's crawl-<node>.log in a crawl of several processes (which
 * has no crawl.log: the console said Started "–" for it).
 */
async function jobStartTime(dir: string): Promise<string | null> {
  let first: string | null = null;
  for (const log of await jobCrawlLogs(dir)) {
    const t = await firstLogTime(log);
    if (t !== null && (first === null || t < first)) first = t;
  }
  return first;
}

/** The time of a crawl log's first line. */
async function firstLogTime(file: string): Promise<string | null> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const first = head.subarray(0, bytesRead).toString('utf8').split(' ')[0] ?? '';
    return Number.isNaN(Date.parse(first)) ? null : new Date(first).toISOString();
  } finally {
    await fh.close();
  }
}
