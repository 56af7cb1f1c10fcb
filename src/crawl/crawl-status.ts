/**
 * The crawl's status as one plain object: what `Crawl.status()` returns, the
 * progress display and the end-of-crawl summary print, and the web
 * console's `/api/crawl` serves. Counts cover the whole job (every run of a
 * resumed one); rates are this run's counts over this run's time, so a
 * resumed crawl does not claim the earlier runs' work as its own speed.
 */
import type { FrontierStats } from '../frontier/frontier.js';
import type { WaitingHost } from '../politeness/host-health.js';
import type { CrawlStats } from './crawl-stats.js';

export type CrawlState = 'running' | 'paused' | 'stopping' | 'finished';

export interface QueueCounts {
  ready: number;
  inProcess: number;
  snoozed: number;
  inactive: number;
  retired: number;
  exhausted: number;
}

/** Browser capture under way (src/browser/): its tabs and what it rendered so far this run. */
export interface BrowserStatus {
  tabs: number;
  busyTabs: number;
  pagesRendered: number;
  subrequests: number;
}

export interface CrawlStatus {
  job: string;
  state: CrawlState;
  /** FINISHED, ABORTED, FINISHED_DOCUMENT_LIMIT…; null while running. */
  endReason: string | null;
  /** Captures: every response or revisit written (robots.txt, images, 404s included). */
  uris: number;
  /** Of those, 2xx HTML pages. */
  pages: number;
  bytes: number;
  /** URIs given up on (negative status). */
  errors: number;
  /** URIs refused by scope. */
  disregarded: number;
  retries: number;
  /** URIs queued and not finished, in-process ones included. */
  queued: number;
  inProcess: number;
  queues: QueueCounts;
  /** This run's captures per second. */
  urisPerSec: number;
  /** This run's kilobytes per second. */
  kbPerSec: number;
  /** Crawl time of the whole job: every run, this one included. */
  elapsedSec: number;
  /** This run's time. */
  runElapsedSec: number;
  /** Hosts waiting out a failure, soonest first. */
  waiting: WaitingHost[];
  /** Present when the crawl renders pages. */
  browser?: BrowserStatus;
}

/** Where this run started: its time and the job's counts then. */
export interface RunStart {
  at: number;
  uris: number;
  bytes: number;
  /** Crawl time of the earlier runs. */
  priorMs: number;
}

export interface StatusInputs {
  job: string;
  state: CrawlState;
  endReason: string | null;
  stats: CrawlStats;
  frontier: FrontierStats;
  waiting: WaitingHost[];
  run: RunStart;
  now: number;
  browser?: BrowserStatus | null;
}

export function buildStatus(i: StatusInputs): CrawlStatus {
  const runMs = Math.max(0, i.now - i.run.at);
  const runSec = Math.max(runMs / 1000, 0.001);
  const q = i.frontier.queuesByState;
  return {
    job: i.job,
    state: i.state,
    endReason: i.endReason,
    uris: i.stats.succeeded,
    pages: i.stats.pages,
    bytes: i.stats.bytes,
    errors: i.stats.failed,
    disregarded: i.stats.disregarded,
    retries: i.stats.retries,
    queued: i.frontier.queued,
    inProcess: i.frontier.inProcess,
    queues: { ready: q.ready, inProcess: q['in-process'], snoozed: q.snoozed, inactive: q.inactive, retired: q.retired, exhausted: q.exhausted },
    urisPerSec: round2((i.stats.succeeded - i.run.uris) / runSec),
    kbPerSec: round2((i.stats.bytes - i.run.bytes) / 1024 / runSec),
    elapsedSec: round3((i.run.priorMs + runMs) / 1000),
    runElapsedSec: round3(runMs / 1000),
    waiting: i.waiting,
    ...(i.browser ? { browser: i.browser } : {}),
  };
}

/** Queue counts by state, non-zero ones, as `ready 3, snoozed 1`. */
export function describeQueues(q: QueueCounts): string {
  const names: Record<keyof QueueCounts, string> = { ready: 'ready', inProcess: 'in-process', snoozed: 'snoozed', inactive: 'inactive', retired: 'retired', exhausted: 'exhausted' };
  const parts = (Object.keys(names) as Array<keyof QueueCounts>).filter((k) => q[k] > 0).map((k) => `${names[k]} ${q[k]}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
