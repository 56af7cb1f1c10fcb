/**
 * A crawl as an object the CLI, the progress display, tests and a web
 * console all hold the same way:
 *
 *   const crawl = await Crawl.start(profile, { log: process.stderr })
 *   crawl.status()  crawl.queues({ state, limit, after })  crawl.hosts({ limit, after })
 *   crawl.pause()  crawl.resume()  crawl.stop({ abandonInFlight })
 *   await crawl.addSeeds(urls)  await crawl.exclude(regex)
 *   crawl.events.on('capture', …)
 *   const summary = await crawl.done
 *
 * Pause stops claiming URIs and lets fetches in flight finish; the queues
 * keep their timing. Pausing is not saved: a crawl killed while paused
 * resumes running. Seeds added while running are saved before they are
 * queued, so a crawl killed after `addSeeds` resumes with them.
 *
 * Every crawl starts here (the CLI, the console's profile form, a node of
 * a shared crawl), through the run policy of crawl-start.ts.
 */
import type { Clock } from '../core/clock.js';
import { ArchiverError, isFatalCrawlError } from '../core/errors.js';
import type { Profile } from '../config/profile.js';
import type { Claim, QueueReport, QueueState } from '../frontier/frontier.js';
import { urlHostOf } from '../url/hosts.js';
import type { CrawlEvents } from './crawl-events.js';
import type { CrawlParts } from './crawl-parts.js';
import { openCrawl } from './crawl-start.js';
import { closeCrawl } from './crawl-close.js';
import { crawlWideFollower } from './crawl-wide.js';
import { buildStatus, type CrawlState, type CrawlStatus, type RunStart } from './crawl-status.js';
import { hostReports, type HostReport } from './host-reports.js';
import { compileExclusion } from './operator-exclusions.js';
import { Progress } from './progress.js';
import { PolitenessFloor, politenessCapNote } from './eta.js';
import type { CrawlSummary } from './reports.js';
import type { SearchOptions, SearchResponse } from '../search/search-types.js';
import { WorkerPool } from './worker-pool.js';
import { checkYoungGeneration, growYoungGenerationWhenBusy } from '../core/crawl-heap.js';
import { addSeeds, scheduleSeeds, seedsFromOthers } from './crawl-seeds.js';
import { page, type AddSeedsResult, type CrawlStartOptions, type ExcludeResult, type PageQuery } from './crawl-options.js';
import type { CrawlReport } from '../backends/redis-inspect.js';

export type { AddSeedsResult, CrawlStartOptions, ExcludeResult, PageQuery } from './crawl-options.js';

/** How often the job's crawl time is saved while running (a kill loses at most this much). */
const SAVE_CRAWL_TIME_MS = 5000;
/** Packaging's modules (index, WACZ) are loaded this long into a crawl, so its end does not wait for them. */
const PACKAGING_PRELOAD_MS = 1000;
/** How often a `progress` event goes out. */
const PROGRESS_EVENT_MS = 1000;
/**
 * Hosts with URIs in hand at once from which a crawl counts as busy: many
 * hosts fetched together, whose allocation on this thread wants a larger
 * young generation (core/crawl-heap.ts).
 */
const BUSY_HOSTS = 8;

export class Crawl {
  readonly events: CrawlEvents;
  /** The final summary, once the crawl has ended and its files are closed. */
  readonly done: Promise<CrawlSummary>;
  readonly #profile: Profile;
  readonly #p: CrawlParts;
  readonly #clock: Clock;
  readonly #pool: WorkerPool;
  readonly #abort: AbortController;
  readonly #run: RunStart;
  #state: CrawlState = 'running';
  #endReason: string | null = null;
  #fatal: unknown = null;
  /** URLs whose fetch is over and whose capture is not counted yet (a capture event counts it). */
  readonly #capturesToCome = new Set<string>();
  /** Host → claims of it being handled now. */
  readonly #hostsInHand = new Map<string, number>();
  /** Whether a queue may hand out its next URI once a fetch is over, before the page's links are queued. */
  readonly #releaseEarly: boolean;
  /** Politeness delay after each host's last fetch, by host as URLs write it. */
  readonly #delays = new Map<string, number>();

  private constructor(profile: Profile, parts: CrawlParts, events: CrawlEvents, abort: AbortController, clock: Clock, opts: CrawlStartOptions) {
    this.#profile = profile;
    this.#p = parts;
    this.events = events;
    this.#abort = abort;
    this.#clock = clock;
    this.#releaseEarly = profile.frontier.order !== 'depth-first';
    // A capture counted by the statistics is no longer to come.
    events.on('capture', (e) => void this.#capturesToCome.delete(e.url));
    this.#run = { at: clock.now(), uris: parts.stats.succeeded, bytes: parts.stats.bytes, priorMs: parts.priorCrawlMs };
    this.#pool = new WorkerPool({ size: profile.workers, frontier: parts.frontier, handle: (claim, id, fetchOver) => this.#handle(claim, id, fetchOver) });
    this.done = this.#begin(opts);
  }

  /** Opens the job (resuming it when it holds a crawl), queues the seeds and starts the workers. */
  static async start(profile: Profile, opts: CrawlStartOptions): Promise<Crawl> {
    const { parts, events, abort } = await openCrawl(profile, opts);
    return new Crawl(profile, parts, events, abort, parts.clock, opts);
  }

  status(): CrawlStatus {
    return buildStatus({
      job: this.#profile.name,
      state: this.#state,
      endReason: this.#endReason,
      stats: this.#p.stats,
      frontier: this.#p.frontier.stats(),
      waiting: this.#p.health.waiting(this.#clock.now()),
      run: this.#run,
      now: this.#clock.now(),
      browser: this.#p.browser?.status() ?? null,
    });
  }

  /** Queues in key order, optionally of one state, a page at a time. */
  queues(q: PageQuery & { state?: QueueState } = {}): QueueReport[] {
    const all = this.#p.frontier.queues().filter((r) => q.state === undefined || r.state === q.state);
    return page(all.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), (r) => r.key, q);
  }

  /** Hosts in name order, a page at a time: what was fetched, and whether they wait or were closed. */
  hosts(q: PageQuery = {}): HostReport[] {
    const reports = hostReports(this.#p, this.#delays, this.#clock.now());
    const shown = page(reports, (r) => r.host, q);
    for (const r of shown) r.overrides = this.#p.overrides.describeHost(r.host);
    return shown;
  }

  /** Full-text search over the pages captured so far (the job's index is first brought up to date with its capture journal). */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
    // Loaded on first use: SQLite is no part of a crawl that nobody searches.
    const { searchJob } = await import('../search/job-search.js');
    return (await searchJob(this.#p.dirs.root, query, opts)) ?? { total: 0, tookMs: 0, hits: [] };
  }

  /** Stop claiming URIs; fetches in flight finish. A crawl of several processes pauses on every node. */
  pause(): CrawlState {
    this.#shareFlag('paused', true);
    return this.#pauseHere();
  }

  resume(): CrawlState {
    this.#shareFlag('paused', false);
    return this.#resumeHere();
  }

  /**
   * End the crawl (ABORTED): no new URIs; in-flight fetches finish, or are
   * abandoned (they stay queued for a resume). A crawl of several processes
   * stops on every node (`archiver stop` does the same from outside), or
   * with `thisNodeOnly` (Ctrl-C) on this one, whose queues go to the others.
   */
  stop(opts: { abandonInFlight?: boolean; thisNodeOnly?: boolean } = {}): CrawlState {
    if (opts.thisNodeOnly !== true) this.#shareFlag('stopped', true);
    this.#halt('ABORTED');
    if (opts.abandonInFlight) this.#abort.abort();
    return this.#state;
  }

  #pauseHere(): CrawlState {
    if (this.#state === 'running') {
      this.#pool.pause();
      this.#setState('paused');
    }
    return this.#state;
  }

  #resumeHere(): CrawlState {
    if (this.#state === 'paused') {
      this.#pool.resume();
      this.#setState('running');
    }
    return this.#state;
  }

  /** Where the crawl keeps its state: the store's spec, the crawl's name there, this node's id (null: a crawl of one process). */
  get store(): { spec: string; crawl: string; node: string | null } {
    return { spec: this.#p.backend.name, crawl: this.#profile.name, node: this.#p.backend.coordination.node };
  }

  /** The whole crawl of several processes as the store holds it (every node, totals, queues); null for a crawl of one process. */
  crawlWide(): Promise<CrawlReport | null> {
    return this.#p.backend.crawlReport();
  }

  /** Tell the crawl's other nodes (nothing to tell in a crawl of one process). */
  #shareFlag(flag: 'paused' | 'stopped', on: boolean): void {
    if (!this.#p.backend.shared || this.#state === 'finished') return;
    this.#p.backend.coordination.setFlag(flag, on).catch(() => undefined);
  }

  /** The crawl's flags changed (another node, or `archiver stop`). */
  #onFlags(flags: { paused: boolean; stopped: boolean }): void {
    if (flags.stopped) {
      this.#halt('ABORTED');
      return;
    }
    if (flags.paused) this.#pauseHere();
    else this.#resumeHere();
  }

  /** Queue seeds an operator gives (crawl-seeds.ts: what is added, and why the others are not). */
  addSeeds(urls: readonly string[]): Promise<AddSeedsResult> {
    return addSeeds(this.#p, urls, this.#clock.now(), this.#state === 'stopping' || this.#state === 'finished');
  }

  /**
   * Exclude URLs matching `regex` (a JavaScript regex) for the rest of the
   * crawl: saved first (a resumed crawl keeps it), then links found from now
   * on are refused by scope (-5000 excluded) and URIs already queued are
   * dropped as they come up (-6000 deletedByOperator). Throws
   * ExclusionError (ARCHIVER_BAD_EXCLUSION) for an empty or invalid regex,
   * and ARCHIVER_CRAWL_ENDING once the crawl is stopping.
   */
  async exclude(regex: string): Promise<ExcludeResult> {
    const compiled = compileExclusion(regex);
    if (this.#state === 'stopping' || this.#state === 'finished') throw new ArchiverError('ARCHIVER_CRAWL_ENDING', 'the crawl is ending');
    if (this.#p.exclusions.has(regex)) return { added: false, dropped: 0 };
    await this.#p.job.addExclusion(regex, this.#clock.now());
    this.#p.exclusions.add(regex);
    this.#p.scope.addExclude(compiled);
    return { added: true, dropped: 0 };
  }

  /** Seeds another process of the crawl recorded, while this one still takes seeds. */
  async #seedsFromOthers(urls: readonly string[]): Promise<void> {
    if (this.#state === 'stopping' || this.#state === 'finished') return;
    await seedsFromOthers(this.#p, urls);
  }

  async #begin(opts: CrawlStartOptions): Promise<CrawlSummary> {
    const limits = this.#profile.limits;
    // The crawl's timers, none of which keeps the process alive; cleared at its end.
    const timers: NodeJS.Timeout[] = [];
    const keep = (t: NodeJS.Timeout): number => timers.push(t.unref());
    const every = (ms: number, fn: () => void): number => keep(setInterval(fn, ms));
    if (limits.maxDurationSec > 0) keep(setTimeout(() => this.#halt('FINISHED_TIME_LIMIT'), limits.maxDurationSec * 1000));
    every(SAVE_CRAWL_TIME_MS, () => void this.#p.job.saveCrawlTimeMs(this.#crawlTimeMs()).catch(() => undefined));
    keep(setTimeout(() => void import('../wacz/finalize-job.js').catch(() => undefined), PACKAGING_PRELOAD_MS));
    every(PROGRESS_EVENT_MS, () => {
      if (this.events.has('progress')) this.events.emit('progress', this.status());
    });
    const progress = new Progress({ out: opts.log, ...(opts.progressIntervalMs ? { intervalMs: opts.progressIntervalMs } : {}) });
    if (opts.quiet !== true) {
      const capped = politenessCapNote(this.#profile);
      if (capped !== null) opts.log.write(`archiver: ${capped}\n`);
      const floor = new PolitenessFloor(this.#p.frontier, this.#profile, this.#clock);
      progress.start(() => this.status(), () => floor.sec());
    }
    const { backend } = this.#p;
    if (backend.shared) {
      // What other nodes recorded (robots.txt results, closed hosts, exclusions, seeds), taken in each second; this node's figures and the crawl's flags with each heartbeat.
      const follow = crawlWideFollower({ ...this.#p, seedsAdded: (urls) => this.#seedsFromOthers(urls) });
      every(1000, () => void follow.step().catch(() => undefined));
      this.#p.links.catchUpSeedsWith(() => follow.fresh().catch(() => undefined), (url) => this.#p.stats.seeds.has(url));
      backend.coordination.start(() => this.#nodeFigures(), (flags) => this.#onFlags(flags));
    }
    try {
      // Every node runs the seeds through the shared seen filter (the first one queues them); once every live node has, the crawl may end.
      await scheduleSeeds(this.#p, [...this.#profile.seeds, ...this.#p.addedSeeds]);
      await this.#pool.run();
    } catch (err) {
      this.#fatal ??= err;
      this.#halt('ABORTED_FATAL');
    } finally {
      for (const t of timers) clearInterval(t);
      progress.stop();
    }
    if (this.#state !== 'stopping') this.#setState('stopping');
    try {
      const closed = await closeCrawl({
        profile: this.#profile,
        parts: this.#p,
        fatal: this.#fatal,
        endReason: this.#endReason ?? 'FINISHED',
        status: () => this.status(),
        crawlTimeMs: () => this.#crawlTimeMs(),
      });
      this.#endReason = closed.summary.status;
      if (opts.quiet !== true) opts.log.write(`${closed.text}\n`);
      return closed.summary;
    } catch (err) {
      this.#endReason = 'ABORTED_FATAL';
      throw err;
    } finally {
      this.#setState('finished');
    }
  }

  /**
   * One claimed URI, through to frontier.finished(); never rejects. Once its
   * fetch is over (the host's delay starts), `fetchOver` lets the worker take
   * its next URI while this one's records, logs and outlinks are finished.
   */
  async #handle(claim: Claim, worker: number, fetchOver: () => void): Promise<void> {
    const { processor, frontier } = this.#p;
    let coming = false;
    this.#hostsInHand.set(claim.host, (this.#hostsInHand.get(claim.host) ?? 0) + 1);
    if (this.#hostsInHand.size === BUSY_HOSTS) growYoungGenerationWhenBusy();
    checkYoungGeneration();
    try {
      const outcome = await processor.process(claim, worker, async (delayMs) => {
        this.#delays.set(urlHostOf(claim.host), delayMs);
        // Depth-first keeps the queue until the page's links are in: the deepest of them goes next.
        if (this.#releaseEarly) await frontier.released(claim, delayMs);
        // Its capture is coming: counted now, so the page limit holds before the worker claims again.
        coming = true;
        this.#capturesToCome.add(claim.uri.url);
        this.#checkLimits();
        fetchOver();
      });
      await frontier.finished(claim, outcome);
      this.#checkLimits();
    } catch (err) {
      await this.#failed(claim, worker, err);
    } finally {
      const left = this.#hostsInHand.get(claim.host)! - 1;
      if (left === 0) this.#hostsInHand.delete(claim.host);
      else this.#hostsInHand.set(claim.host, left);
      if (coming) this.#capturesToCome.delete(claim.uri.url);
    }
  }

  /** A claim whose processing threw: the crawl's own failure stops it, anything else is the URI's (-5). */
  async #failed(claim: Claim, worker: number, err: unknown): Promise<void> {
    const { frontier, ledger } = this.#p;
    if (isFatalCrawlError(err)) {
      // Ours, not the web's (disk full, state unwritable): stop the crawl; the URI stays queued for the resume.
      this.#fatal ??= err;
      this.#halt('ABORTED_FATAL');
      await frontier.finished(claim, { kind: 'retry', delayMs: 0 }).catch(() => {});
      return;
    }
    // Anything else is one URI's problem (Heritrix's -5 runtime error): log it and go on.
    try {
      const code = err instanceof ArchiverError ? err.code : err instanceof Error ? err.name : 'error';
      ledger.failed(claim.uri, -5, worker, [`err:${code}`]);
      await frontier.finished(claim, { kind: 'done', delayMs: 0 });
    } catch (failure) {
      this.#fatal ??= failure;
      this.#halt('ABORTED_FATAL');
    }
  }

  #nodeFigures() {
    const s = this.status();
    return {
      pages: s.uris,
      bytes: s.bytes,
      pagesPerSec: s.urisPerSec,
      inFlight: s.inProcess,
      busyQueues: this.#p.frontier.busyQueues,
      elapsedMs: Math.round(s.elapsedSec * 1000),
      queues: { ...s.queues },
    };
  }

  #checkLimits(): void {
    const { maxPages, maxBytes } = this.#profile.limits;
    const stats = this.#p.stats;
    // Captures whose fetch is over count already: their records are on their way.
    if (maxPages > 0 && stats.succeeded + this.#capturesToCome.size >= maxPages) this.#halt('FINISHED_DOCUMENT_LIMIT');
    if (maxBytes > 0 && stats.bytes >= maxBytes) this.#halt('FINISHED_DATA_LIMIT');
  }

  /** The crawl ends for `why` (the first reason given wins): no new claims, in-flight URIs finish. */
  #halt(why: string): void {
    if (this.#state === 'stopping' || this.#state === 'finished') return;
    this.#endReason = why;
    this.#pool.stop();
    this.#setState('stopping');
  }

  #setState(state: CrawlState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.events.emit('state', { state, endReason: this.#endReason });
  }

  #crawlTimeMs(): number {
    return this.#run.priorMs + Math.max(0, this.#clock.now() - this.#run.at);
  }
}
