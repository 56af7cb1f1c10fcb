/**
 * A crawl run by other processes, watched and steered through its store
 * (`archiver serve --store … --crawl …`): no crawl runs in this process.
 * Once a second it reads the crawl as the store holds it (every node, the
 * totals, the queues of every shard) for the status, the chart and the
 * live view; its controls act crawl-wide through the store, as a node's
 * crawl handle does — pause, resume and stop set the crawl's flags, which
 * every node follows with its next heartbeat, and seeds and exclusions go
 * into the crawl's shared job records, which every node takes in within a
 * second (crawl-wide.ts) and a resume keeps. The log tail is the job
 * directory's (each node's crawl-<node>.log), when serve can read it.
 */
import type { CrawlReport } from '../backends/redis-inspect.js';
import type { StoreInspector } from '../backends/state-backend.js';
import type { CrawlState } from '../crawl/crawl-status.js';
import type { AddSeedsResult, ExcludeResult } from '../crawl/crawl-options.js';
import { JobRecords } from '../crawl/job-records.js';
import { compileExclusion } from '../crawl/operator-exclusions.js';
import { isHttpUrl } from '../url/http-url.js';
import { apiStoreStatus, type ApiCrawlStatus, type ApiHost, type ApiQueue } from './api-shapes.js';
import { conflict } from './console-errors.js';
import { RateHistory, type RateSample } from './rate-history.js';
import { storeHosts, storeQueues } from './store-tables.js';

/** How often the store is read for the live view. */
const POLL_MS = 1000;

export class StoreJob {
  /** The job's name in the console (its directory's). */
  readonly name: string;
  /** The crawl's job directory, where its nodes write their logs (may be on another machine: then the tail is empty). */
  readonly dir: string;
  /** The crawl's name in the store. */
  readonly crawl: string;
  readonly history = new RateHistory();
  readonly #store: StoreInspector;
  readonly #onReport = new Set<(status: ApiCrawlStatus, sample: RateSample | null) => void>();
  readonly #now: () => number;
  #last: CrawlReport | null = null;
  #timer: NodeJS.Timeout | null = null;
  #polling: Promise<void> | null = null;

  constructor(opts: { name: string; dir: string; crawl: string; store: StoreInspector; now?: () => number }) {
    this.name = opts.name;
    this.dir = opts.dir;
    this.crawl = opts.crawl;
    this.#store = opts.store;
    this.#now = opts.now ?? Date.now;
  }

  /** Read the store now and then once a second until close(). */
  async start(): Promise<void> {
    await this.#poll();
    this.#timer = setInterval(() => void this.#poll().catch(() => undefined), POLL_MS);
    this.#timer.unref();
  }

  /** The crawl as the store holds it now. */
  async report(): Promise<CrawlReport> {
    const r = await this.#store.report(this.crawl);
    this.#last = r;
    return r;
  }

  async status(): Promise<ApiCrawlStatus> {
    return apiStoreStatus(this.name, await this.report());
  }

  /** The last status read (null before the first). */
  lastStatus(): ApiCrawlStatus | null {
    return this.#last === null ? null : apiStoreStatus(this.name, this.#last);
  }

  /** Called with each status read and the speed sample it made; returns the function that stops it. */
  onReport(fn: (status: ApiCrawlStatus, sample: RateSample | null) => void): () => void {
    this.#onReport.add(fn);
    return () => {
      this.#onReport.delete(fn);
    };
  }

  async pause(): Promise<CrawlState> {
    await this.#running();
    await this.#store.setFlag(this.crawl, 'paused', true);
    return 'paused';
  }

  async resume(): Promise<CrawlState> {
    await this.#running();
    await this.#store.setFlag(this.crawl, 'paused', false);
    return 'running';
  }

  /** Every node stops cleanly (fetches in flight finish; a node cannot be told to abandon them from here). */
  async stop(): Promise<CrawlState> {
    await this.#running();
    await this.#store.setFlag(this.crawl, 'stopped', true);
    return 'stopping';
  }

  /** Seeds recorded for every node (each takes them in within a second; the shared seen filter queues each once, and drops those seen). */
  async addSeeds(urls: readonly string[]): Promise<AddSeedsResult> {
    await this.#running();
    const job = this.#jobRecords();
    const known = new Set(await job.addedSeeds());
    const added: string[] = [];
    const rejected: AddSeedsResult['rejected'] = [];
    const at = this.#now();
    for (const url of urls) {
      if (!isHttpUrl(url)) rejected.push({ url, reason: 'not an absolute http(s) URL' });
      else if (added.includes(url)) rejected.push({ url, reason: 'given twice' });
      else if (known.has(url)) rejected.push({ url, reason: 'already added' });
      else added.push(url);
    }
    await job.addSeeds(added, at);
    return { added, rejected };
  }

  /** An exclusion recorded for every node; ExclusionError for one that is not a usable regex. */
  async exclude(regex: string): Promise<ExcludeResult> {
    compileExclusion(regex);
    await this.#running();
    const job = this.#jobRecords();
    if ((await job.exclusions()).includes(regex)) return { added: false, dropped: 0 };
    await job.addExclusion(regex, this.#now());
    return { added: true, dropped: 0 };
  }

  /** Every node's queues, as the API shows them (store-tables.ts). */
  queues(): Promise<ApiQueue[]> {
    return storeQueues(this.#store, this.crawl, this.#now());
  }

  /** The crawl's hosts with what the store holds of them (store-tables.ts). */
  hosts(): Promise<ApiHost[]> {
    return storeHosts(this.#store, this.crawl);
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#polling?.catch(() => undefined);
    await this.#store.close();
  }

  #jobRecords(): JobRecords {
    return new JobRecords(this.#store.records(this.crawl, 'job'));
  }

  /** Controls need a crawl not yet finished (409 otherwise, as for a job not running in a console). */
  async #running(): Promise<void> {
    const r = await this.report();
    if (r.finished !== null) throw conflict(`crawl ${this.crawl} is finished`);
  }

  #poll(): Promise<void> {
    if (this.#polling !== null) return this.#polling;
    this.#polling = (async () => {
      const r = await this.report();
      const sample = this.history.add({ uris: r.totals.pages, pages: r.totals.pages, bytes: r.totals.bytes }, this.#now());
      const status = apiStoreStatus(this.name, r);
      for (const fn of this.#onReport) fn(status, sample);
    })().finally(() => {
      this.#polling = null;
    });
    return this.#polling;
  }
}
