/**
 * Builds every part of a crawl from the profile and the state backend — the
 * one module that imports them all: the job directory made whole after
 * whatever stopped the last run (WARCs repaired, crawl.log trimmed and
 * replayed into the statistics), frontier, seen filters, fetcher, WARC
 * writer, crawl.log, capture journal, robots, host health, dedup, and the
 * URI processor that drives them. `Crawl` (crawl.ts) runs what this builds.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../core/clock.js';
import type { CrawlUri } from '../core/crawl-uri.js';
import { packageVersion } from '../core/package-root.js';
import type { Profile } from '../config/profile.js';
import type { EarlierCaptures } from '../dedup/earlier-captures.js';
import { loadEarlierCaptures } from '../dedup/earlier-load.js';
import { StoredDigestIndex } from '../dedup/digest-index.js';
import { PayloadDedup } from '../dedup/payload-dedup.js';
import { Fetcher } from '../fetch/fetcher.js';
import { PageThread } from './page-thread.js';
import type { Frontier, QueueState } from '../frontier/frontier.js';
import { CaptureJournal } from '../job/capture-journal.js';
import { recordWarcSums, warcSumsPath } from '../job/warc-sums.js';
import type { ContentSums } from '../core/content-digest.js';
import { LivePackage } from '../wacz/live-package.js';
import { DEFAULT_MAX_TEXT_CHARS } from '../wacz/page-list.js';
import { captureJournalPath, ensureJobDir, liveIndexDir, livePagesPath, hasState, jobDir, type JobDir } from '../job/job-dir.js';
import { HostHealth } from '../politeness/host-health.js';
import { HostHealthJournal } from '../politeness/host-health-journal.js';
import { Budgets } from '../overrides/budgets.js';
import { Overrides } from '../overrides/overrides.js';
import { RobotsJournal } from '../politeness/robots-journal.js';
import { RobotsPolicies } from '../politeness/robots-policies.js';
import { RobotsPrerequisites } from '../politeness/robots-prerequisite.js';
import { RobotsStore } from '../politeness/robots-store.js';
import { openStateBackend, type StateBackend } from '../backends/state-backends.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import { CrawlLog } from '../writer/crawl-log.js';
import { nextWarcSerial, repairOpenWarcs } from '../writer/warc-repair.js';
import { nodeWarcPattern, OPEN_SUFFIX } from '../writer/warc-naming.js';
import { WarcWriter } from '../writer/warc-writer.js';
import type { CrawlEvents } from './crawl-events.js';
import type { CrawlStartOptions, RunPlan } from './crawl-options.js';
import { CrawlLedger } from './crawl-ledger.js';
import { replayCrawlLog, trimPartialLine } from './crawl-log-replay.js';
import { CrawlStats } from './crawl-stats.js';
import { JobRecords } from './job-records.js';
import { LinkScheduler } from './link-scheduler.js';
import { OperatorExclusions } from './operator-exclusions.js';
import { Scope } from './scope.js';
import { UriProcessor } from './uri-processor.js';
import { asFatal, isDiskFull } from './crawl-failure.js';
import type { FocusCrawl } from '../focus/focus-crawl.js';
import type { BrowserCapture } from '../browser/browser-capture.js';

export const SOFTWARE = `archiver/${packageVersion()}`;

export interface PartsOptions {
  /** The handle's options as the caller gave them (notices go to its `log`). */
  start: CrawlStartOptions;
  /** The backend and node id the run policy settled (crawl-start.ts). */
  run: RunPlan;
  clock: Clock;
  events: CrawlEvents;
  /** Aborts in-flight fetches (a hard stop). */
  abortSignal: AbortSignal;
}

export interface CrawlParts {
  dirs: JobDir;
  resuming: boolean;
  backend: StateBackend;
  /** The crawl's clock (a shared backend's, in step with Redis; else the one given). */
  clock: Clock;
  stats: CrawlStats;
  frontier: Frontier;
  seen: UriUniqFilter;
  refusedSeen: UriUniqFilter;
  scope: Scope;
  links: LinkScheduler;
  fetcher: Fetcher;
  writer: WarcWriter;
  crawlLog: CrawlLog;
  journal: CaptureJournal;
  /** The package's page list and index lines, made as the journal is written (null: made at the end). */
  live: LivePackage | null;
  ledger: CrawlLedger;
  /** Each host's and URL's settings under the profile's overrides, and their budgets. */
  overrides: Overrides;
  budgets: Budgets;
  health: HostHealth;
  healthJournal: HostHealthJournal;
  digestIndex: StoredDigestIndex;
  earlier: EarlierCaptures | null;
  pages: PageThread;
  processor: UriProcessor;
  job: JobRecords;
  /** Exclusions the operator added while the job ran (kept across runs). */
  exclusions: OperatorExclusions;
  /** What each origin's robots.txt said, and the policies reading them (for status pages). */
  robotsStore: RobotsStore;
  robotsJournal: RobotsJournal;
  robotsPolicies: RobotsPolicies;
  /** Seeds added to this job while it ran (kept across runs). */
  addedSeeds: string[];
  /** Crawl time of the job's earlier runs. */
  priorCrawlMs: number;
  /** The topic-focused crawl (profile `focus`), or null. */
  focus: FocusCrawl | null;
  /** Browser capture (profile `browser`), Chromium running; null when nothing is rendered. */
  browser: BrowserCapture | null;
}

/** Opens the state and builds the parts; on failure, whatever was opened is closed again. */
export async function buildCrawlParts(profile: Profile, o: PartsOptions): Promise<CrawlParts> {
  const { spec, node } = o.run;
  // A node of a shared crawl keeps its own files in the job directory, named by its id.
  const dirs = jobDir(profile.output.dir, node);
  const resuming = node === null ? await hasState(dirs) : (await nonEmpty(dirs.crawlLog)) || (await hasOpenWarcs(dirs.warcs, node));
  await ensureJobDir(dirs);
  const backend = await openStateBackend(spec, {
    stateDir: dirs.state,
    crawl: profile.name,
    ...(node !== null ? { node } : {}),
    profileHash: profileHash(profile),
    // Redis going away and coming back is said even under --quiet: the operator must know why the crawl waits.
    log: o.start.log,
  });
  try {
    return await build(profile, { ...o, clock: backend.clock ?? o.clock }, dirs, resuming, backend);
  } catch (err) {
    await backend.close().catch(() => undefined);
    // A disk that is full before the crawl starts says so as plainly as one filling up during it.
    throw isDiskFull(err) ? asFatal(err, dirs.root) : err;
  }
}

async function build(profile: Profile, o: PartsOptions, dirs: JobDir, resuming: boolean, backend: StateBackend): Promise<CrawlParts> {
  const { clock, events } = o;
  // Earlier jobs' payloads go into the state, fingerprints in memory; a resume reuses what
  // is loaded. First of all, so a bad `dedup.against` (exit 4) leaves nothing else open.
  let earlier: EarlierCaptures | null = null;
  if (profile.dedup.against.length > 0) {
    if (o.start.quiet !== true) o.start.log.write(`archiver: loading the payloads of ${profile.dedup.against.length} earlier crawl(s) for dedup\n`);
    earlier = await loadEarlierCaptures(profile.dedup.against, backend.earlier());
  }
  const stats = new CrawlStats(clock.now());
  const overrides = new Overrides(profile);
  const budgets = new Budgets(overrides);
  const job = new JobRecords(backend.records('job'));
  const addedSeeds = resuming ? await job.addedSeeds() : [];
  let firstSerial = 0;
  if (resuming) {
    // Whatever the last run left — a kill -9 included — becomes valid first:
    // .open WARCs cut back to their last complete record and closed, a cut
    // crawl.log line removed; then the statistics are rebuilt from the log.
    const repaired = await repairOpenWarcs(dirs.warcs, dirs.node ?? undefined);
    firstSerial = await nextWarcSerial(dirs.warcs, dirs.node ?? undefined);
    await trimPartialLine(dirs.crawlLog);
    const lines = await replayCrawlLog(dirs.crawlLog, stats, new Set([...profile.seeds, ...addedSeeds]), budgets.any ? (url, bytes) => budgets.captured(url, bytes) : undefined);
    if (o.start.quiet !== true) {
      const cut = repaired.filter((r) => r.droppedBytes > 0).length;
      o.start.log.write(`archiver: resuming ${dirs.root}: ${lines} crawl.log lines, ${repaired.length} open WARC file(s) closed (${cut} cut back)\n`);
    }
  }
  const frontierInit = {
    options: profile.frontier,
    maxConnectionsPerHost: overrides.maxConnectionsCeiling,
    ...(overrides.any ? { maxConnectionsOf: (host: string) => overrides.forHost(host).politeness.maxConnectionsPerHost } : {}),
    clock,
    onQueueState: (key: string, from: QueueState, to: QueueState) => {
      if (events.has('queue')) events.emit('queue', { key, from, to });
    },
  };
  const frontier = await backend.frontier(frontierInit, resuming);
  // The same memory cap for both: in-scope URLs, and refused ones logged once.
  const seen = backend.seenFilter('seen', profile.uniq.memoryKeys);
  const refusedSeen = backend.seenFilter('refused', profile.uniq.memoryKeys);
  const fetcher = new Fetcher({
    userAgent: profile.userAgent,
    ...(profile.from ? { from: profile.from } : {}),
    fetchTimeoutMs: profile.limits.fetchTimeoutMs,
    maxFetchDurationMs: profile.limits.maxFetchDurationMs,
    maxBodyBytes: profile.limits.maxBodyBytes,
    tempDir: dirs.tmp,
    connectionsPerOrigin: overrides.maxConnectionsCeiling,
    ...(o.start.lookup ? { lookup: o.start.lookup } : {}),
  });
  const writer = new WarcWriter({
    firstSerial,
    dir: dirs.warcs,
    prefix: profile.output.prefix,
    warcVersion: profile.output.warcVersion,
    rotateBytes: profile.output.rotateBytes,
    software: SOFTWARE,
    hostname: os.hostname(),
    ...(dirs.node !== null ? { node: dirs.node } : {}),
    clock,
    info: {
      userAgent: profile.userAgent,
      ...(profile.from ? { from: profile.from } : {}),
      robotsPolicy: profile.robots.policy,
      jobName: profile.name,
      description: `archiver crawl of ${profile.seeds.length} seed(s)`,
    },
    // Each file's warcinfo on the page thread, where warcio is loaded for the captures: this thread never loads it.
    warcInfo: (info) => pages.warcInfo(info),
    // Each file's SHA-256 and CRC-32 as it is written, kept with the job for the package: the end then only copies it in.
    ...(profile.output.wacz ? { onSummed: (file: string, sums: ContentSums) => recordWarcSums(warcSumsPath(dirs.root), file, sums) } : {}),
  });
  const crawlLog = await CrawlLog.open(dirs.crawlLog);
  const journal = await CaptureJournal.open(captureJournalPath(dirs.root, dirs.node));
  // The package's page list and index lines made as the journal is written, so the end of the crawl
  // only copies them in: for a journal this run begins, in a crawl of one process (without a package, the index lines).
  const live = !backend.shared && journal.fresh
    ? await LivePackage.follow(journal, {
        pagesFile: profile.output.wacz ? livePagesPath(dirs.root) : null,
        indexDir: liveIndexDir(dirs.root),
        seeds: [...profile.seeds, ...addedSeeds],
        maxTextChars: profile.output.pageText ? DEFAULT_MAX_TEXT_CHARS : 0,
      })
    : null;
  const ledger = new CrawlLedger({ log: crawlLog, stats, events, now: () => clock.now() });

  const healthJournal = new HostHealthJournal(backend.records('health'));
  const health = new HostHealth(
    (host) => {
      const h = overrides.forHost(host);
      return { maxRetries: h.maxRetries, retryDelayMs: h.retryDelayMs, robots: h.robots.unavailable };
    },
    (host, record) => {
      healthJournal.save(host, record);
      if (record.closed) events.emit('hostClosed', { host, status: record.closed.status, annotation: record.closed.annotation, cause: record.cause });
      else if (record.waitingOn !== null) {
        const robots = record.waitingOn === 'robots';
        events.emit('hostWaiting', {
          host,
          reason: record.cause,
          until: record.untilMs,
          retry: robots ? record.robotsFailures : record.rounds,
          of: robots ? overrides.forHost(host).robots.unavailable.retries : overrides.forHost(host).maxRetries,
        });
      }
    },
  );
  const robotsStore = new RobotsStore();
  const robotsJournal = new RobotsJournal(backend.records('robots'));
  // A shared crawl's robots.txt results are everyone's: what other nodes fetched is taken in now and as it comes.
  if (resuming || backend.shared) await robotsJournal.restore(robotsStore);
  if (resuming) await healthJournal.restore(health);
  const policies = new RobotsPolicies((host) => overrides.forHost(host).robots, profile.userAgent);
  const scope = new Scope(profile.scope, overrides.any ? (url) => overrides.excludesFor(url) : undefined);
  if (scope.hostsFromSeeds) for (const seed of addedSeeds) scope.addHost(new URL(seed).host);
  // The topic: saved in the job, or learnt from training read now and fetched first (as seeds).
  // Its ~18 modules are loaded only by a focused crawl.
  const focus = profile.focus === undefined ? null : await (await import('../focus/focus-crawl.js')).FocusCrawl.open({
    focus: profile.focus,
    patience: profile.limits.maxPages > 0 || profile.limits.maxBytes > 0 ? { delayMs: profile.politeness.minDelayMs } : null,
    records: backend.records('focus'),
    now: () => o.clock.now(),
    ...(dirs.node !== null ? { node: dirs.node } : {}),
    ...(o.start.quiet === true ? {} : { notice: (line: string) => void o.start.log.write(`${line}\n`) }),
  });
  const training = focus?.trainingUris() ?? [];
  if (scope.hostsFromSeeds) for (const t of training) scope.addHost(new URL(t.url).host);
  const exclusions = new OperatorExclusions();
  if (resuming) {
    for (const regex of await job.exclusions()) {
      if (exclusions.add(regex)) scope.addExclude(new RegExp(regex));
    }
  }
  // The page thread is made below; the links the scheduler comes to know are told to it from then on.
  let pageThread: PageThread | null = null;
  const links = new LinkScheduler({
    scope,
    seen,
    refusedSeen,
    frontier,
    maxRedirects: profile.limits.maxRedirects,
    sitemaps: profile.scope.sitemaps,
    health,
    budgets,
    onRefused: (uri, status, reason) => ledger.refused(uri, status, reason),
    onClosedHost: (uri, status, annotation) => ledger.failed(uri, status, null, [annotation]),
    ...(focus !== null ? { focusSeed: (seed: CrawlUri) => focus.seed(seed) } : {}),
    onKnown: (urls) => pageThread?.knowLinks(urls),
  });
  // Whatever the seen filter says: a job resumed before its topic was saved fetches them again.
  await links.scheduleForced(training);
  // Shared: another node may have archived a payload since, so every miss is asked of the store.
  const digestIndex = new StoredDigestIndex(backend.digests(), backend.shared ? { memoryDigests: 0 } : {});
  // A focused crawl scores pages and links by their words, cut on the page thread.
  const pages = new PageThread({
    maxLinks: profile.limits.maxOutlinks,
    focusTerms: focus !== null,
    text: profile.output.pageText,
    ...(o.start.pageWorker ? { worker: o.start.pageWorker } : {}),
  });
  pageThread = pages;
  // Shared crawls: a host's failure counts are the crawl's, whichever node last held its queue.
  const shareHealth = backend.shared ? { catchUpHost: (host: string) => healthJournal.catchUp(health, host) } : {};
  // Chromium is started now: a crawl that cannot render stops before it fetches anything. Its modules load only then.
  const browser = !browserWanted(profile) ? null : await (await import('../browser/browser-capture.js')).BrowserCapture.open({
    profile,
    overrides,
    scope,
    links,
    seen,
    frontier,
    warcsDir: dirs.warcs,
    shared: backend.shared,
    resumedJournal: resuming ? captureJournalPath(dirs.root, dirs.node) : null,
    unsupported: (uri, status, annotation) => ledger.failed(uri, status, null, [annotation]),
    ...(o.start.quiet === true ? {} : { notice: (line: string) => void o.start.log.write(`${line}\n`) }),
  });
  // Stopping, no worker claims a render's subrequests any more: renders end then, not at their timeout.
  if (browser !== null) {
    events.on('state', (e) => {
      if (e.state === 'stopping') browser.stopRendering();
    });
  }
  const processor = new UriProcessor({
    ...shareHealth,
    profile,
    fetcher,
    writer,
    journal,
    ledger,
    overrides,
    budgets,
    links,
    stats,
    clock,
    health,
    robots: new RobotsPrerequisites({
      ...shareHealth,
      store: robotsStore,
      journal: robotsJournal,
      policyOf: (host) => policies.of(host),
      // Sitemap lines are followed for hosts in scope only: a sitemap cannot widen the crawl.
      wantsSitemaps: (origin) => profile.scope.sitemaps !== 'off' && scope.coversHost(origin),
      health,
      schedulePrerequisite: (uri) => links.schedulePrerequisite(uri),
      clock,
    }),
    pages,
    dedup: new PayloadDedup(digestIndex, earlier),
    exclusions,
    ...(focus !== null ? { focus } : {}),
    ...(browser !== null ? { browser } : {}),
    abortSignal: o.abortSignal,
    ...(o.start.quiet === true ? {} : { notice: (line: string) => void o.start.log.write(`${line}\n`) }),
  });
  const priorCrawlMs = resuming ? await job.crawlTimeMs() : 0;
  return {
    dirs, resuming, backend, clock, stats, frontier, seen, refusedSeen, scope, links, fetcher, writer, crawlLog, journal, live,
    ledger, overrides, budgets, health, healthJournal, digestIndex, earlier, pages, processor, job, exclusions, robotsStore, robotsJournal, robotsPolicies: policies,
    addedSeeds, priorCrawlMs, focus, browser,
  };
}

/** Whether any part of the profile renders pages (the top `browser` block or an override's). */
function browserWanted(profile: Profile): boolean {
  return profile.browser?.enabled === true || profile.overrides.some((o) => o.browser?.enabled === true);
}

/** The profile as a hash: every node of a shared crawl must run the same one. */
export function profileHash(profile: Profile): string {
  return createHash('sha256').update(JSON.stringify(profile)).digest('hex').slice(0, 16);
}

async function hasOpenWarcs(dir: string, node: string): Promise<boolean> {
  const mine = nodeWarcPattern(node);
  try {
    return (await readdir(dir)).some((n) => n.endsWith(OPEN_SUFFIX) && mine.test(n));
  } catch {
    return false;
  }
}

async function nonEmpty(file: string): Promise<boolean> {
  try {
    return (await stat(file)).size > 0;
  } catch {
    return false;
  }
}
