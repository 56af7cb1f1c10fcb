/**
 * The crawl's status and controls: GET /api/crawl, its speed history, the
 * queues, the hosts and the tail of crawl.log (a node of a crawl of several
 * processes lists every node's queues and hosts, its own live:
 * node-wide-tables.ts); POST pause, resume, stop, seeds and exclude. A
 * finished job answers the reads from its reports; the controls need the
 * crawl to be running in this process (409 otherwise), or a crawl of other
 * processes watched through its store (`serve --store`, store-job.ts),
 * whose controls act on every node through the store.
 */
import path from 'node:path';
import type { Crawl } from '../crawl/crawl.js';
import type { HostReport } from '../crawl/host-reports.js';
import type { QueueReport } from '../frontier/frontier.js';
import { ExclusionError } from '../crawl/operator-exclusions.js';
import { hostOfQueueKey } from '../crawl/reports.js';
import { ArchiverError } from '../core/errors.js';
import { API_QUEUE_STATES, apiCrawlWide, apiHost, apiQueue, apiStatus, frontierQueueState, type ApiHost, type ApiQueue } from './api-shapes.js';
import type { ConsoleDeps } from './console-deps.js';
import { badRequest, conflict, ConsoleError } from './console-errors.js';
import { jobCrawlLogTail } from './crawl-log-tail.js';
import { readJsonBody, sendJson } from './http-io.js';
import type { JobRef } from './job-catalog.js';
import { reportHosts, reportQueues, reportStatus } from './job-reports.js';
import type { LiveJob } from './live-job.js';
import type { StoreJob } from './store-job.js';
import type { RequestContext, Route } from './router.js';
import { historyFromLogs } from './log-history.js';

const MAX_PAGE = 1000;
const MAX_LOG_TAIL = 1000;
const MAX_SEEDS = 10_000;
const HOST_SORTS = ['host', 'fetched', 'bytes', 'errors'] as const;

export function crawlRoutes(d: ConsoleDeps): Route[] {
  const job = (ctx: RequestContext): Promise<JobRef> => d.catalog.resolve(ctx.query.string('job'));
  const running = async (ctx: RequestContext): Promise<LiveJob> => {
    const ref = await job(ctx);
    if (ref.live === null) throw conflict(`job ${ref.name} is not running in this console`);
    return ref.live;
  };
  const control = (path: string, act: (crawl: Crawl, body: Record<string, unknown>) => string, acrossStore: (store: StoreJob) => Promise<string>): Route => ({
    method: 'POST',
    path,
    access: 'token',
    handler: async (ctx) => {
      const ref = await job(ctx);
      const body = await readJsonBody(ctx.req);
      if (ref.store !== undefined) return sendJson(ctx.res, 200, { state: await acrossStore(ref.store) });
      const live = await running(ctx);
      sendJson(ctx.res, 200, { state: act(live.crawl, body) });
    },
  });
  return [
    {
      method: 'GET',
      path: '/api/crawl',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        if (ref.store !== undefined) return sendJson(ctx.res, 200, await ref.store.status());
        if (ref.live !== null) {
          const wide = await ref.live.crawl.crawlWide();
          return sendJson(ctx.res, 200, { ...apiStatus(ref.name, ref.live.crawl.status()), ...(wide !== null ? { crawl: apiCrawlWide(wide) } : {}) });
        }
        const report = await reportStatus(ref.name, ref.dir);
        if (report === null) throw new ConsoleError(404, 'ARCHIVER_CONSOLE_NO_STATUS', `job ${ref.name} has no crawl report (interrupted: archiver run resumes it)`);
        sendJson(ctx.res, 200, report);
      },
    },
    {
      method: 'GET',
      path: '/api/crawl/history',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        if (ref.store !== undefined) return sendJson(ctx.res, 200, ref.store.history.samples());
        sendJson(ctx.res, 200, ref.live === null ? await historyFromLogs(ref.dir) : ref.live.history.samples());
      },
    },
    control('/api/crawl/pause', (crawl) => crawl.pause(), (store) => store.pause()),
    control('/api/crawl/resume', (crawl) => crawl.resume(), (store) => store.resume()),
    control('/api/crawl/stop', (crawl, body) => crawl.stop({ abandonInFlight: body['abandonInFlight'] === true }), (store) => store.stop()),
    {
      method: 'POST',
      path: '/api/crawl/seeds',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        const urls = (await readJsonBody(ctx.req))['urls'];
        if (!Array.isArray(urls) || !urls.every((u): u is string => typeof u === 'string')) throw badRequest('urls must be a list of strings');
        if (urls.length === 0 || urls.length > MAX_SEEDS) throw badRequest(`give 1 to ${MAX_SEEDS} urls`);
        const trimmed = urls.map((u) => u.trim());
        if (ref.store !== undefined) return sendJson(ctx.res, 200, await ref.store.addSeeds(trimmed));
        sendJson(ctx.res, 200, await (await running(ctx)).crawl.addSeeds(trimmed));
      },
    },
    {
      method: 'POST',
      path: '/api/crawl/exclude',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        const regex = (await readJsonBody(ctx.req))['regex'];
        if (typeof regex !== 'string') throw badRequest('regex must be a string');
        try {
          const result = ref.store !== undefined ? await ref.store.exclude(regex) : await (await running(ctx)).crawl.exclude(regex);
          sendJson(ctx.res, 200, { regex, ...result });
        } catch (err) {
          if (err instanceof ExclusionError) throw badRequest(err.message);
          if (err instanceof ArchiverError && err.code === 'ARCHIVER_CRAWL_ENDING') throw conflict(err.message);
          throw err;
        }
      },
    },
    {
      method: 'GET',
      path: '/api/queues',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        const state = ctx.query.oneOf('state', API_QUEUE_STATES, null);
        const limit = ctx.query.int('limit', 100, 1, MAX_PAGE);
        const after = ctx.query.string('after');
        if (ref.store !== undefined) {
          const all = (await ref.store.queues()).filter((q) => state === null || q.state === state);
          return sendJson(ctx.res, 200, pageAfter(all, (q: ApiQueue) => q.key, after, limit));
        }
        if (ref.live !== null) {
          const crawl = ref.live.crawl;
          const errors = hostErrors(allHosts(crawl));
          if (ref.live.wide !== null) {
            // A node of a shared crawl: its own queues live, every other node's as the store holds them.
            const all = (await ref.live.wide.queues(allQueues(crawl).map((q) => apiQueue(q, errors)))).filter((q) => state === null || q.state === state);
            return sendJson(ctx.res, 200, pageAfter(all, (q: ApiQueue) => q.key, after, limit));
          }
          const queues = crawl.queues({ ...(state !== null ? { state: frontierQueueState(state) } : {}), limit, ...(after !== null ? { after } : {}) });
          return sendJson(ctx.res, 200, queues.map((q) => apiQueue(q, errors)));
        }
        const all = (await reportQueues(ref.dir)).filter((q) => state === null || q.state === state).sort((a, b) => (a.key < b.key ? -1 : 1));
        sendJson(ctx.res, 200, pageAfter(all, (q: ApiQueue) => q.key, after, limit));
      },
    },
    {
      method: 'GET',
      path: '/api/hosts',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        const limit = ctx.query.int('limit', 100, 1, MAX_PAGE);
        const after = ctx.query.string('after');
        const sort = ctx.query.oneOf('sort', HOST_SORTS, 'host');
        const descending = ctx.query.oneOf('order', ['asc', 'desc'] as const, sort === 'host' ? 'asc' : 'desc') === 'desc';
        const offset = ctx.query.int('offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const hosts = ref.store !== undefined ? await ref.store.hosts() : ref.live !== null ? await liveHosts(ref.live) : await reportHosts(ref.dir);
        if (after !== null) {
          if (sort !== 'host') throw badRequest('after pages by host name: use offset with another sort');
          return sendJson(ctx.res, 200, pageAfter(hosts.sort(byHost), (h: ApiHost) => h.host, after, limit));
        }
        const sorted = hosts.sort((a, b) => (sort === 'host' ? byHost(a, b) : a[sort] - b[sort] || byHost(a, b)));
        if (descending) sorted.reverse();
        sendJson(ctx.res, 200, sorted.slice(offset, offset + limit));
      },
    },
    {
      method: 'GET',
      path: '/api/log',
      access: 'token',
      handler: async (ctx) => {
        const ref = await job(ctx);
        const tail = ctx.query.int('tail', 50, 1, MAX_LOG_TAIL);
        sendJson(ctx.res, 200, await jobCrawlLogTail(ref.dir, tail));
      },
    },
  ];
}

/** Every row of a list a running crawl hands out a page at a time (crawl.hosts(), crawl.queues()), keyed for `after`. */
function everyPage<T>(page: (after: string | undefined) => T[], keyOf: (row: T) => string): T[] {
  const out: T[] = [];
  for (;;) {
    const last = out[out.length - 1];
    const rows = page(last !== undefined ? keyOf(last) : undefined);
    out.push(...rows);
    if (rows.length < PAGE_ROWS) return out;
  }
}

const PAGE_ROWS = 10_000;

/** Every host of a running crawl. */
function allHosts(crawl: Crawl): HostReport[] {
  return everyPage((after) => crawl.hosts({ limit: PAGE_ROWS, ...(after !== undefined ? { after } : {}) }), (h) => h.host);
}

/** Every queue of a running crawl. */
function allQueues(crawl: Crawl): QueueReport[] {
  return everyPage((after) => crawl.queues({ limit: PAGE_ROWS, ...(after !== undefined ? { after } : {}) }), (q) => q.key);
}

/** A running crawl's hosts; a node of a shared crawl adds every other node's as the store holds them. */
function liveHosts(live: LiveJob): Promise<ApiHost[]> | ApiHost[] {
  const own = allHosts(live.crawl).map(apiHost);
  return live.wide !== null ? live.wide.hosts(own) : own;
}

function hostErrors(hosts: HostReport[]): (key: string) => number | null {
  const byHost = new Map(hosts.map((h) => [h.host, h.errors]));
  return (key) => {
    const host = hostOfQueueKey(key);
    return host === null ? null : (byHost.get(host) ?? 0);
  };
}

function byHost(a: ApiHost, b: ApiHost): number {
  return a.host < b.host ? -1 : a.host > b.host ? 1 : 0;
}

function pageAfter<T>(items: T[], key: (item: T) => string, after: string | null, limit: number): T[] {
  const start = after === null ? 0 : items.findIndex((i) => key(i) > after);
  return start < 0 ? [] : items.slice(start, start + limit);
}

