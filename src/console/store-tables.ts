/**
 * The queue and host tables of a crawl of several processes as its store
 * holds them, read from outside through an inspector (no crawl joined):
 * every node's queues with the node holding each, and every host with what
 * the store knows of it. `archiver serve --store` shows these as they are
 * (store-job.ts); a node's own console shows its own rows live and these
 * for the rest (node-wide-tables.ts).
 */
import type { StoreInspector } from '../backends/state-backend.js';
import { hostOfQueueKey } from '../crawl/reports.js';
import type { StoredQueueView } from '../frontier/redis-queue-listing.js';
import type { HostRecord } from '../politeness/host-health.js';
import type { ApiHost, ApiQueue, ApiQueueState } from './api-shapes.js';
import { iso } from './http-io.js';

/** Queues read from each of the store's shards for the queue and host tables. */
const QUEUES_PER_SHARD = 10_000;

/** Every node's queues, sorted by key, as the API shows them. */
export async function storeQueues(store: StoreInspector, crawl: string, now: number): Promise<ApiQueue[]> {
  return (await store.queues(crawl, QUEUES_PER_SHARD)).map((q) => ({
    key: q.key,
    state: storedQueueState(q, now),
    queued: q.queued,
    fetched: q.finished,
    errors: null,
    wakeAt: q.wakeAt > now ? iso(q.wakeAt) : null,
    node: q.node,
  }));
}

/**
 * The crawl's hosts with what the store holds of them: the URIs finished
 * in their queues, the node holding a queue of theirs (null: none), and
 * whether a node closed them (the hosts' health records every node
 * shares); bytes, errors, delays and robots.txt verdicts live in each
 * node's memory. In no particular order.
 */
export async function storeHosts(store: StoreInspector, crawl: string): Promise<ApiHost[]> {
  const byHost = new Map<string, ApiHost>();
  const host = (name: string): ApiHost =>
    byHost.get(name) ?? byHost.set(name, { host: name, fetched: 0, bytes: 0, errors: 0, delayMs: null, robots: null, waiting: null, closed: null, node: null }).get(name)!;
  for (const q of await store.queues(crawl, QUEUES_PER_SHARD)) {
    const name = hostOfQueueKey(q.key);
    if (name === null) continue;
    const h = host(name);
    h.fetched += q.finished;
    h.node ??= q.node;
  }
  for await (const [name, raw] of store.records(crawl, 'health').entries()) {
    const r = JSON.parse(raw.toString('utf8')) as HostRecord;
    if (r.closed !== null) host(name).closed = { status: r.closed.status, cause: r.cause };
  }
  return [...byHost.values()];
}

/** What the store tells of a queue's state: retired, empty, waiting for a node, or held (snoozed when its figures say so). */
function storedQueueState(q: StoredQueueView, now: number): ApiQueueState {
  if (q.retired) return 'retired';
  if (q.queued === 0 && q.node === null) return 'exhausted';
  if (q.node === null) return 'inactive';
  return q.wakeAt > now ? 'snoozed' : 'ready';
}
