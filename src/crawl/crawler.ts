/**
 * Wires the parts into a crawl: job directory, one LevelDB for state (seen
 * filter, frontier, digest index), fetcher, WARC writer, crawl.log, robots,
 * and N workers that loop frontier.next() → process → frontier.finished().
 * The only module that imports every part.
 */
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { LookupFunction } from 'node:net';
import { ClassicLevel } from 'classic-level';
import { seedUri, type CrawlUri } from '../core/crawl-uri.js';
import { ArchiverError, FatalCrawlError } from '../core/errors.js';
import { packageVersion } from '../core/package-root.js';
import type { Profile } from '../config/profile.js';
import { Fetcher } from '../fetch/fetcher.js';
import type { EarlierCaptures } from '../index/earlier-captures.js';
import { loadEarlierCaptures } from '../index/earlier-load.js';
import type { Claim, Frontier } from '../frontier/frontier.js';
import { WorkQueueFrontier } from '../frontier/work-queue-frontier.js';
import { createRobotsPolicy } from '../politeness/robots-policy.js';
import { RobotsStore } from '../politeness/robots-store.js';
import { LevelUriUniqFilter } from '../uniq/level-uniq-filter.js';
import { Keyspace } from '../store/keyspace.js';
import { keyspaceLevel } from '../store/keyspace-level.js';
import { HtmlExtractThread } from '../fetch/html-extract-thread.js';
import { CrawlLog } from '../writer/crawl-log.js';
import { LevelDigestIndex } from '../writer/digest-index.js';
import { nextWarcSerial, repairOpenWarcs } from '../writer/warc-repair.js';
import { finalizeJob } from '../wacz/finalize-job.js';
import { WarcWriter } from '../writer/warc-writer.js';
import { CaptureJournal, captureJournalPath } from './capture-journal.js';
import { CrawlStats } from './crawl-stats.js';
import { replayCrawlLog, trimPartialLine } from './crawl-log-replay.js';
import { ensureJobDir, hasState, jobDir } from './job-dir.js';
import { runFetchWorkers } from './fetch-workers.js';
import { LinkScheduler } from './link-scheduler.js';
import { PayloadDedup } from './payload-dedup.js';
import { RobotsJournal } from './robots-journal.js';
import { Progress } from './progress.js';
import { formatSummary, summarize, writeReports, type CrawlSummary } from './reports.js';
import { Scope } from './scope.js';
import { hostOf, UriProcessor } from './uri-processor.js';

export const SOFTWARE = `archiver/${packageVersion()}`;

export interface CrawlerOptions {
  profile: Profile;
  /** Where progress and the summary go. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Graceful stop: no new URIs are taken, in-flight ones finish. */
  stopSignal?: AbortSignal;
  /** Hard stop: in-flight fetches are abandoned. */
  abortSignal?: AbortSignal;
  /** Custom DNS (tests, demo). */
  lookup?: LookupFunction;
  now?: () => number;
  /** Progress interval override (tests). */
  progressIntervalMs?: number;
  quiet?: boolean;
}

type Buf = Buffer;

export async function runCrawl(opts: CrawlerOptions): Promise<CrawlSummary> {
  const { profile } = opts;
  const now = opts.now ?? Date.now;
  const dirs = jobDir(profile.output.dir);
  const resuming = await hasState(dirs);
  await ensureJobDir(dirs);
  const db = new ClassicLevel<Buf, Buf>(dirs.state, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    await db.open();
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_STATE_LOCKED', `${dirs.state}: cannot open crawl state (is another crawl running on this job?)`, { cause: err });
  }
  const sub = (name: string) => db.sublevel<Buf, Buf>(name, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  // Earlier jobs' payloads go into the state database, fingerprints in memory; a resume reuses
  // what is loaded. First of all, so a bad `dedup.against` (exit 4) leaves nothing else open.
  // Keyspaces hold the same bytes as sublevels of those names, written without a sublevel's per-key work.
  let earlier: EarlierCaptures | null = null;
  if (profile.dedup.against.length > 0) {
    if (!opts.quiet) opts.stderr.write(`archiver: loading the payloads of ${profile.dedup.against.length} earlier crawl(s) for dedup\n`);
    try {
      earlier = await loadEarlierCaptures(profile.dedup.against, keyspaceLevel(new Keyspace(db, 'earlier')));
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  const stats = new CrawlStats(now());
  const stop = new AbortController();
  const abort = new AbortController();
  // Every waiting worker and in-flight fetch listens on these.
  setMaxListeners(profile.workers * 2 + 16, stop.signal, abort.signal);
  let status = 'FINISHED';
  let fatal: unknown = null;
  const halt = (why: string) => {
    if (!stop.signal.aborted) {
      status = why;
      stop.abort();
    }
  };
  opts.stopSignal?.addEventListener('abort', () => halt('ABORTED'), { once: true });
  opts.abortSignal?.addEventListener('abort', () => {
    halt('ABORTED');
    abort.abort();
  }, { once: true });
  if (opts.stopSignal?.aborted) halt('ABORTED');
  if (opts.abortSignal?.aborted) {
    halt('ABORTED');
    abort.abort();
  }

  const frontierInit = {
    db: new Keyspace(db, 'frontier'),
    options: profile.frontier,
    maxConnectionsPerHost: profile.politeness.maxConnectionsPerHost,
    now,
  };
  let firstSerial = 0;
  if (resuming) {
    // Whatever the last run left — a kill -9 included — becomes valid first:
    // .open WARCs cut back to their last complete record and closed, a cut
    // crawl.log line removed; then the statistics are rebuilt from the log.
    const repaired = await repairOpenWarcs(dirs.warcs);
    firstSerial = await nextWarcSerial(dirs.warcs);
    await trimPartialLine(dirs.crawlLog);
    const lines = await replayCrawlLog(dirs.crawlLog, stats, new Set(profile.seeds));
    if (!opts.quiet) {
      const cut = repaired.filter((r) => r.droppedBytes > 0).length;
      opts.stderr.write(`archiver: resuming ${dirs.root}: ${lines} crawl.log lines, ${repaired.length} open WARC file(s) closed (${cut} cut back)\n`);
    }
  }
  const frontier: Frontier = resuming ? await WorkQueueFrontier.open(frontierInit) : new WorkQueueFrontier(frontierInit);
  // The same memory cap for both: in-scope URLs, and refused ones logged once.
  const memoryKeys = profile.frontier.seenMemoryKeys;
  const seen = new LevelUriUniqFilter(new Keyspace(db, 'seen'), { memoryKeys });
  const refusedSeen = new LevelUriUniqFilter(new Keyspace(db, 'refused'), { memoryKeys });
  const fetcher = new Fetcher({
    userAgent: profile.userAgent,
    ...(profile.from ? { from: profile.from } : {}),
    fetchTimeoutMs: profile.limits.fetchTimeoutMs,
    maxFetchDurationMs: profile.limits.maxFetchDurationMs,
    maxBodyBytes: profile.limits.maxBodyBytes,
    tempDir: dirs.tmp,
    connectionsPerOrigin: profile.politeness.maxConnectionsPerHost,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  const writer = new WarcWriter({
    firstSerial,
    dir: dirs.warcs,
    prefix: profile.output.prefix,
    warcVersion: profile.output.warcVersion,
    rotateBytes: profile.output.rotateBytes,
    software: SOFTWARE,
    hostname: os.hostname(),
    info: {
      userAgent: profile.userAgent,
      ...(profile.from ? { from: profile.from } : {}),
      robotsPolicy: profile.robots.policy,
      jobName: profile.name,
      description: `archiver crawl of ${profile.seeds.length} seed(s)`,
    },
  });
  const crawlLog = await CrawlLog.open(dirs.crawlLog);
  const journal = await CaptureJournal.open(captureJournalPath(dirs.root));
  const robots = new RobotsStore();
  const robotsJournal = new RobotsJournal(sub('robots'));
  if (resuming) await robotsJournal.restore(robots);
  const policy = createRobotsPolicy(profile.robots, profile.userAgent);
  const links = new LinkScheduler({
    scope: new Scope(profile.scope),
    seen,
    refusedSeen,
    frontier,
    maxRedirects: profile.limits.maxRedirects,
    onRefused(uri: CrawlUri, status: number, reason: string) {
      stats.rejected(status);
      crawlLog.write({ time: new Date(now()), status, size: null, url: uri.url, hopPath: uri.hopPath, via: uri.via, mime: null, worker: null, fetchStart: null, durationMs: null, digest: null, annotations: [reason] });
    },
  });
  const digestIndex = new LevelDigestIndex(keyspaceLevel(new Keyspace(db, 'digests')));
  const htmlThread = new HtmlExtractThread();
  const processor = new UriProcessor({
    profile, fetcher, writer, journal, crawlLog, robots, robotsJournal, policy, links, stats, now,
    extractHtml: htmlThread.extract,
    dedup: new PayloadDedup(digestIndex, earlier),
    abortSignal: abort.signal,
  });

  const limits = profile.limits;
  const deadline = limits.maxDurationSec > 0 ? setTimeout(() => halt('FINISHED_TIME_LIMIT'), limits.maxDurationSec * 1000) : null;
  deadline?.unref();
  const checkLimits = () => {
    if (limits.maxPages > 0 && stats.succeeded >= limits.maxPages) halt('FINISHED_DOCUMENT_LIMIT');
    if (limits.maxBytes > 0 && stats.bytes >= limits.maxBytes) halt('FINISHED_DATA_LIMIT');
  };

  const progress = new Progress({ out: opts.stderr, now, ...(opts.progressIntervalMs ? { intervalMs: opts.progressIntervalMs } : {}) });
  if (!opts.quiet) progress.start(() => ({ stats, frontier: frontier.stats() }));

  /** One URI from its fetch to finished(); never rejects. `release` is called when its fetch is over. */
  const complete = async (claim: Claim, id: number, release: (delayMs: number) => Promise<void>): Promise<void> => {
    try {
      const outcome = await processor.process(claim, id, release);
      await frontier.finished(claim, outcome);
      checkLimits();
    } catch (err) {
      if (isFatal(err)) {
        // Ours, not the web's (disk full, state unwritable): stop the crawl;
        // the URI stays queued for the resume.
        fatal ??= err;
        halt('ABORTED_FATAL');
        await frontier.finished(claim, { kind: 'retry', delayMs: 0 }).catch(() => {});
        return;
      }
      // Anything else is one URI's problem (Heritrix's -5 runtime error): log it and go on.
      try {
        stats.gaveUp(hostOf(claim.uri.url), -5);
        const code = err instanceof ArchiverError ? err.code : err instanceof Error ? err.name : 'error';
        crawlLog.write({ time: new Date(now()), status: -5, size: null, url: claim.uri.url, hopPath: claim.uri.hopPath, via: claim.uri.via, mime: null, worker: id, fetchStart: null, durationMs: null, digest: null, annotations: [`err:${code}`] });
        await frontier.finished(claim, { kind: 'done', delayMs: 0 });
      } catch (failure) {
        fatal ??= failure;
        halt('ABORTED_FATAL');
      }
    }
  };

  try {
    for (const seed of profile.seeds) if (!stats.seeds.has(seed)) stats.seeds.set(seed, { url: seed, status: null, redirect: null });
    await links.scheduleSeeds(profile.seeds.map(seedUri));
    // A worker takes its next claim as soon as its fetch is over (fetch-workers.ts).
    await runFetchWorkers({ workers: profile.workers }, () => frontier.next(stop.signal), (claim, id, fetchOver) =>
      complete(claim, id, async (delayMs) => {
        await frontier.released(claim, delayMs);
        fetchOver();
      }),
    );
  } finally {
    if (deadline) clearTimeout(deadline);
    progress.stop();
  }
  // Shutdown goes on through failures (a full disk fails several steps at
  // once): each step runs, the first failure is what the operator sees.
  const failures: unknown[] = fatal === null ? [] : [fatal];
  const attempt = async <T>(step: () => Promise<T>): Promise<T | null> => {
    try {
      return await step();
    } catch (err) {
      failures.push(err);
      return null;
    }
  };
  const warcFiles = (await attempt(() => writer.close())) ?? [];
  await attempt(() => journal.close());
  await attempt(() => digestIndex.flush());
  // Exact dates read during the crawl are written back.
  if (earlier) await attempt(() => earlier.flush());
  await attempt(() => crawlLog.close());
  await attempt(() => fetcher.close());
  await attempt(() => htmlThread.close());
  // The CDXJ index and the WACZ cover the whole job (every run of a resumed one).
  const packaged = failures.length === 0 && (warcFiles.length > 0 || resuming)
    ? await attempt(() => finalizeJob({ jobDir: dirs.root, name: profile.name, software: SOFTWARE, seeds: profile.seeds }))
    : null;
  const frontierStats = frontier.stats();
  const queues = frontier.queues();
  const summary = summarize(stats, frontierStats, {
    status: failures.length > 0 && status === 'FINISHED' ? 'ABORTED_FATAL' : status,
    endedAt: now(),
    warcFiles,
    warcDir: dirs.warcs,
    jobDir: dirs.root,
    cdxj: packaged?.cdxj ?? null,
    wacz: packaged?.wacz ?? null,
  });
  await attempt(() => writeReports(dirs.reports, stats, summary, frontierStats, queues));
  await attempt(() => frontier.close());
  await attempt(() => seen.close());
  await attempt(() => refusedSeen.close());
  await attempt(() => db.close());
  if (failures.length > 0) throw asFatal(failures[0], dirs.root);
  if (!opts.quiet) opts.stderr.write(formatSummary(summary) + '\n');
  return summary;
}


/** Failures that stop the crawl: our own storage, not one URI's content. */
function isFatal(err: unknown): boolean {
  if (err instanceof FatalCrawlError) return true;
  if (err instanceof ArchiverError && /STORE|CLOSED|JOURNAL|LOG_WRITE|WARC_WRITE|DIGEST_INDEX/.test(err.code)) return true;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = String((e as NodeJS.ErrnoException).code ?? '');
    if (['ENOSPC', 'EIO', 'EROFS', 'EDQUOT', 'EMFILE'].includes(code) || code.startsWith('LEVEL_')) return true;
  }
  return !(err instanceof Error);
}

/**
 * The one error the operator sees when a crawl stops on its own failure; a
 * full disk says so plainly, with what to do (the state is resumable).
 */
/** strerror(ENOSPC), as LevelDB's errors spell it. */
const ENOSPC_TEXT = 'No space left on device';

function asFatal(err: unknown, jobRoot: string): ArchiverError {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    // LevelDB reports ENOSPC only in its message (`IO error: …: No space left on device`).
    if ((e as NodeJS.ErrnoException).code === 'ENOSPC' || e.message.includes(ENOSPC_TEXT)) {
      return new FatalCrawlError('ARCHIVER_DISK_FULL', `disk full under ${jobRoot}: crawl stopped, state kept; free space and run the same command again to resume`, { cause: err });
    }
  }
  if (err instanceof ArchiverError) return err;
  return new FatalCrawlError('ARCHIVER_CRAWL_FAILED', `crawl aborted: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
