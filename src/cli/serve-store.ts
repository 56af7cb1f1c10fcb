/**
 * `archiver serve --store SPEC [--crawl NAME] [--job DIR]`: the console of
 * a crawl run by other processes (`archiver run … --store SPEC --node X`),
 * read and steered through the store, with no crawl of its own: the store
 * must be one whose row is inspectable (state-backends.ts). The crawl is
 * the one named, or the store's only one (as for `status` and `stop`). Its
 * job directory — where the nodes write `logs/crawl-<node>.log`, which the
 * log tail merges — is `--job DIR`, by default `<jobs DIR>/<crawl>` (the
 * profile's default `output.dir`, jobs/<name>); on a machine that cannot
 * see the nodes' files the log tail is empty, and the rest still shows.
 */
import path from 'node:path';
import { inspectStore, type StoreInspector } from '../backends/state-backends.js';
import { UsageError } from '../core/errors.js';
import { checkJobName, JobCatalog } from '../console/job-catalog.js';
import { StoreJob } from '../console/store-job.js';
import { jobCrawlLogs } from '../job/job-dir.js';
import type { CliIo } from './io.js';

export interface ServeStoreOptions {
  store: string;
  crawl: string | undefined;
  job: string | undefined;
  /** The jobs directory serve was given (default jobs/). */
  jobsDir: string | undefined;
}

/** The catalog serving the one crawl, and its store job (polling; close() it). */
export async function openStoreJob(o: ServeStoreOptions, io: CliIo): Promise<{ catalog: JobCatalog; job: StoreJob }> {
  if (o.store === '') throw new UsageError('--store needs a store, redis://HOST:PORT/DB or redis+cluster://HOST:PORT');
  if (o.job === '') throw new UsageError('--job needs the crawl\'s job directory');
  let store: StoreInspector;
  try {
    store = await inspectStore(o.store);
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`--store: ${err.message}`);
    throw err;
  }
  try {
    let crawl: string;
    try {
      crawl = await store.pick(o.crawl);
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`--crawl: ${err.message}`);
      throw err;
    }
    const dir = path.resolve(o.job ?? path.join(o.jobsDir ?? 'jobs', crawl));
    const name = path.basename(dir);
    try {
      checkJobName(name);
    } catch {
      throw new UsageError(`--job: ${JSON.stringify(o.job)} must end in a plain job name (letters, digits, ._-)`);
    }
    const catalog = new JobCatalog({ root: path.dirname(dir), only: name });
    const job = new StoreJob({ name, dir, crawl, store });
    await job.start();
    catalog.attachStore(job);
    if ((await jobCrawlLogs(dir)).length === 0) io.stderr.write(`archiver serve: no crawl logs in ${path.join(dir, 'logs')} yet: the log tail shows the nodes' crawl-<node>.log once they are there (--job names the crawl's job directory)\n`);
    return { catalog, job };
  } catch (err) {
    await store.close();
    throw err;
  }
}
