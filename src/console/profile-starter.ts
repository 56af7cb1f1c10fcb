/**
 * Starts jobs from the profiles in a directory (`profiles/`), for
 * `archiver serve`: the crawl runs inside the console's process into
 * `<jobs dir>/<profile name>` (whatever the profile's output.dir says, so
 * the console can list and browse it), resuming the job when it holds a
 * crawl, and joins the catalog while it runs. It starts through Crawl.start
 * like `archiver run`: a finished job is left alone (409), a profile whose
 * store cannot do what it asks is refused (400).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateProfile } from '../config/load-profile.js';
import { ProfileError, UsageError } from '../core/errors.js';
import { Crawl } from '../crawl/crawl.js';
import type { CrawlStartOptions } from '../crawl/crawl.js';
import { JobFinishedError } from '../crawl/job-finished.js';
import { badRequest, conflict, notFound } from './console-errors.js';
import { checkJobName, type JobCatalog } from './job-catalog.js';
import { LiveJob } from './live-job.js';
import type { JobStarter } from './console-deps.js';

const PROFILE_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$/;

export interface ProfileStarterOptions {
  profilesDir: string;
  catalog: JobCatalog;
  /** Where a started job's notices go (its start, its end, its failure). */
  log: NodeJS.WritableStream;
  /** Passed to Crawl.start (tests: lookup, clock). */
  crawl?: Omit<CrawlStartOptions, 'log'>;
}

export class ProfileStarter implements JobStarter {
  readonly #o: ProfileStarterOptions;
  /** Names being started: two clicks must not start one job twice. */
  readonly #starting = new Set<string>();

  constructor(opts: ProfileStarterOptions) {
    this.#o = opts;
  }

  async profiles(): Promise<string[]> {
    try {
      return (await readdir(this.#o.profilesDir)).filter((n) => PROFILE_FILE.test(n)).sort();
    } catch {
      return [];
    }
  }

  async start(file: string): Promise<LiveJob> {
    if (!PROFILE_FILE.test(file) || !(await this.profiles()).includes(file)) throw notFound(`no profile ${file} in ${this.#o.profilesDir}`);
    const source = path.join(this.#o.profilesDir, file);
    let raw: Record<string, unknown>;
    try {
      raw = JSON.parse(await readFile(source, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw badRequest(`${file}: not a readable JSON profile (${(err as Error).message})`);
    }
    const name = typeof raw['name'] === 'string' ? checkJobName(raw['name']) : '';
    if (name === '') throw badRequest(`${file}: the profile has no name`);
    const { catalog } = this.#o;
    if (catalog.live(name) !== null || this.#starting.has(name)) throw conflict(`job ${name} is running already`);
    this.#starting.add(name);
    try {
      const dir = catalog.dirFor(name);
      const output = typeof raw['output'] === 'object' && raw['output'] !== null ? raw['output'] : {};
      let profile;
      try {
        profile = validateProfile({ ...raw, output: { ...output, dir } }, source, process.cwd(), (line) => void this.#o.log.write(`${line}\n`));
      } catch (err) {
        if (err instanceof ProfileError) throw badRequest(err.message);
        throw err;
      }
      let crawl: Crawl;
      try {
        crawl = await Crawl.start(profile, { quiet: true, ...this.#o.crawl, log: this.#o.log, profileFile: file });
      } catch (err) {
        if (err instanceof JobFinishedError) throw conflict(`job ${name} is finished (nothing left to crawl)`);
        if (err instanceof ProfileError || err instanceof UsageError) throw badRequest(err.message);
        throw err;
      }
      const job = new LiveJob({ name, dir, crawl });
      catalog.attach(job);
      this.#o.log.write(`archiver serve: job ${name} started from ${file} into ${dir}\n`);
      crawl.done.then(
        (summary) => this.#o.log.write(`archiver serve: job ${name} ended: ${summary.status}, ${summary.uris} URIs\n`),
        (err: unknown) => this.#o.log.write(`archiver serve: job ${name} failed: ${err instanceof Error ? err.message : String(err)}\n`),
      ).finally(() => catalog.detach(name));
      return job;
    } finally {
      this.#starting.delete(name);
    }
  }
}
