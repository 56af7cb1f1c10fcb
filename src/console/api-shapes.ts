/**
 * The JSON the console's API answers with — a contract other tools and the
 * tests use — built from the crawl's own objects: times as ISO 8601 in UTC,
 * queue states as the API spells them.
 *
 * The API writes every name in camelCase, keys and values alike, so the
 * frontier's queue state `in-process` (Heritrix's word, kept in the crawl,
 * its reports and crawl.log) is `inProcess` here: the same word as its count
 * in `queues: {ready, inProcess, …}`, so a client looks a state's count up
 * by the state's name. On purpose, then; apiQueueState and
 * frontierQueueState are the one place that translates.
 */
import type { HostReport } from '../crawl/host-reports.js';
import type { BrowserStatus, CrawlState, CrawlStatus, QueueCounts } from '../crawl/crawl-status.js';
import type { QueueReport, QueueState } from '../frontier/frontier.js';
import type { CrawlReport } from '../backends/redis-inspect.js';
import { iso } from './http-io.js';

export interface ApiWaiting {
  host: string;
  reason: string;
  until: string | null;
}

export interface ApiCrawlStatus {
  job: string;
  state: CrawlState;
  endReason: string | null;
  uris: number;
  pages: number;
  bytes: number;
  errors: number;
  queued: number;
  inProcess: number;
  disregarded: number;
  queues: QueueCounts;
  urisPerSec: number;
  kbPerSec: number;
  elapsedSec: number;
  runElapsedSec: number;
  waiting: ApiWaiting[];
  /**
   * A crawl of several processes: the whole crawl as the store holds it —
   * every node (alive, pages, rate, in flight), the totals, and the queues
   * of every node (by state as the live nodes count them; waiting for a
   * node, held, retired, URIs queued). The figures above are this node's.
   */
  crawl?: ApiCrawlWide;
  /** Browser capture: tabs, tabs rendering now, pages rendered and their subrequests this run; absent when nothing is rendered. */
  browser?: BrowserStatus;
}

export interface ApiCrawlWide {
  nodes: { node: string; alive: boolean; pages: number; bytes: number; pagesPerSec: number; inFlight: number; lastHeartbeat: string }[];
  totals: { pages: number; bytes: number; inFlight: number; pagesPerSec: number; liveNodes: number };
  queues: { byState: Record<string, number>; waitingForNode: number; held: number; retired: number; queuedUris: number };
  finished: string | null;
}

export function apiCrawlWide(r: CrawlReport): ApiCrawlWide {
  return {
    nodes: r.nodes.map((n) => ({ node: n.node, alive: n.alive, pages: n.pages, bytes: n.bytes, pagesPerSec: n.pagesPerSec, inFlight: n.inFlight, lastHeartbeat: new Date(n.lastHeartbeat).toISOString() })),
    totals: r.totals,
    queues: { byState: r.queues.byState, waitingForNode: r.queues.pendingQueues, held: r.queues.leasedQueues, retired: r.queues.retiredQueues, queuedUris: r.queues.queuedUris },
    finished: r.finished,
  };
}

/**
 * A crawl run by other processes, as `archiver serve --store` shows it:
 * the whole crawl's figures in the shape of a node's status (captures are
 * what the nodes count as pages; errors, refusals and waiting hosts stay in
 * each node's memory, so they read 0 and none), with the crawl itself in
 * `crawl`. Its state follows the crawl's flags.
 */
export function apiStoreStatus(name: string, r: CrawlReport): ApiCrawlStatus {
  const by = r.queues.byState;
  const count = (k: keyof QueueCounts): number => by[k] ?? 0;
  const state: CrawlState = r.finished !== null ? 'finished' : r.stopped ? 'stopping' : r.paused ? 'paused' : 'running';
  const elapsedSec = Math.max(0, ...r.nodes.map((n) => n.elapsedMs / 1000));
  return {
    job: name,
    state,
    endReason: r.finished !== null ? 'FINISHED' : null,
    uris: r.totals.pages,
    pages: r.totals.pages,
    bytes: r.totals.bytes,
    errors: 0,
    queued: r.queues.queuedUris,
    inProcess: r.totals.inFlight,
    disregarded: 0,
    queues: { ready: count('ready'), inProcess: count('inProcess'), snoozed: count('snoozed'), inactive: count('inactive'), retired: count('retired'), exhausted: count('exhausted') },
    urisPerSec: r.totals.pagesPerSec,
    kbPerSec: 0,
    elapsedSec,
    runElapsedSec: elapsedSec,
    waiting: [],
    crawl: apiCrawlWide(r),
  };
}

export type ApiQueueState = 'ready' | 'inProcess' | 'snoozed' | 'inactive' | 'retired' | 'exhausted';
export const API_QUEUE_STATES: readonly ApiQueueState[] = ['ready', 'inProcess', 'snoozed', 'inactive', 'retired', 'exhausted'];

export interface ApiQueue {
  key: string;
  state: ApiQueueState;
  queued: number;
  fetched: number;
  /** Failures of the queue's host (hostname queues); null when the key is not a host. */
  errors: number | null;
  wakeAt: string | null;
  /**
   * A crawl of several processes (`archiver serve --store`, a node's own
   * console): the node holding the queue (null: none; of another node's
   * queue the store knows no more than that of its state there).
   */
  node?: string | null;
}

export interface ApiHost {
  host: string;
  fetched: number;
  bytes: number;
  errors: number;
  delayMs: number | null;
  robots: string | null;
  waiting: { reason: string; until: string | null; retry: number; of: number } | null;
  closed: { status: number; cause: string } | null;
  /**
   * A crawl of several processes: the node whose figures these are — on a
   * node's own console that node, for the hosts it fetched (live detail);
   * else the node holding a queue of the host as the store says (null:
   * none), with only what the store holds (store-tables.ts).
   */
  node?: string | null;
}

export function apiStatus(name: string, s: CrawlStatus): ApiCrawlStatus {
  return {
    job: name,
    state: s.state,
    endReason: s.endReason,
    uris: s.uris,
    pages: s.pages,
    bytes: s.bytes,
    errors: s.errors,
    queued: s.queued,
    inProcess: s.inProcess,
    disregarded: s.disregarded,
    queues: s.queues,
    urisPerSec: s.urisPerSec,
    kbPerSec: s.kbPerSec,
    elapsedSec: s.elapsedSec,
    runElapsedSec: s.runElapsedSec,
    waiting: s.waiting.map((w) => ({ host: w.host, reason: w.reason, until: iso(w.untilMs) })),
    ...(s.browser ? { browser: s.browser } : {}),
  };
}

export function apiQueueState(state: QueueState | string): ApiQueueState {
  return state === 'in-process' ? 'inProcess' : (state as ApiQueueState);
}

export function frontierQueueState(state: ApiQueueState): QueueState {
  return state === 'inProcess' ? 'in-process' : state;
}

export function apiQueue(q: QueueReport, hostErrors: (key: string) => number | null): ApiQueue {
  return { key: q.key, state: apiQueueState(q.state), queued: q.queued, fetched: q.finished, errors: hostErrors(q.key), wakeAt: iso(q.wakeAt) };
}

export function apiHost(h: HostReport): ApiHost {
  return {
    host: h.host,
    fetched: h.fetched,
    bytes: h.bytes,
    errors: h.errors,
    delayMs: h.delayMs,
    robots: h.robots,
    waiting: h.waiting === null ? null : { reason: h.waiting.reason, until: iso(h.waiting.untilMs), retry: h.waiting.retry, of: h.waiting.of },
    closed: h.closed === null ? null : { status: h.closed.status, cause: h.closed.cause },
  };
}
