/**
 * The Redis rows: the crawl's state in Redis 7 under keys prefixed by the
 * profile's name, shared by any number of processes (nodes) on one machine
 * or several — the frontier with a lease per host, the seen filter, the
 * digest index and robots.txt results are common to all; each node writes
 * its own files in the job directory.
 * - `redis://HOST:PORT/DB`: one Redis.
 * - `redis+cluster://HOST:PORT[,HOST:PORT…]`: a Redis Cluster (any one
 *   seed node is enough); the keys of one hash tag per script, so the
 *   crawl's per-host keys spread over the masters by host.
 */
import { UsageError } from '../core/errors.js';
import { RedisFrontier } from '../frontier/redis-frontier.js';
import { crawlQueueListing } from '../frontier/redis-queue-listing.js';
import { machineLoadSlack } from '../politeness/load-slack.js';
import { CrawlKeys, crawlKeyPattern } from '../store/redis/crawl-keys.js';
import { RedisLink } from '../store/redis/redis-link.js';
import { redisByteMap, redisRecords } from '../store/redis/redis-records.js';
import { isRedisSpec, parseRedisSpec } from '../store/redis/redis-spec.js';
import { RedisUriUniqFilter } from '../uniq/redis-uniq-filter.js';
import { checkNodeId, defaultNodeId } from './node-id.js';
import { RedisCoordination } from './redis-coordination.js';
import { crawlReport, liveNodeCount, pickCrawl } from './redis-inspect.js';
import type { RunFlags } from './crawl-coordination.js';
import type { BackendRow, BackendTarget, StateBackend, StoreInspector } from './state-backend.js';

export const REDIS_ROW: BackendRow = {
  name: 'redis',
  specs: 'redis://HOST:PORT/DB, redis+cluster://HOST:PORT[,HOST:PORT…]',
  matches: isRedisSpec,
  shared: true,
  inspect: inspectRedis,
  open: openRedisBackend,
  reset: resetRedisCrawl,
};

async function openRedisBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  const link = await RedisLink.open(parseRedisSpec(spec), { log: target.log });
  try {
    const keys = new CrawlKeys(target.crawl);
    const node = checkNodeId(target.node ?? defaultNodeId());
    const coordination = new RedisCoordination(link, keys, node);
    const joined = await coordination.join(target.profileHash);
    const token = coordination.token;
    return {
      name: spec,
      shared: true,
      coordination,
      joined,
      clock: coordination.clock,
      frontier: (init) =>
        RedisFrontier.open({
          ...init,
          link,
          keys,
          node,
          ordinalTag: joined.incarnation,
          // Counters start at the time in 10 ms steps: URIs of a later node sort after an earlier one's, roughly.
          ordinalBase: Math.max(0, Math.floor((joined.at - 1.6e12) / 10)),
          view: coordination.view(),
          delaySlackMs: machineLoadSlack(),
        }),
      seenFilter: (which, memoryKeys) =>
        new RedisUriUniqFilter({ link, keys, name: which, token, memoryKeys, voids: () => ({ dead: coordination.view().deadIncarnations(), current: coordination.currentTokens() }) }),
      records: (name) => redisRecords(link, keys, name),
      digests: () => redisByteMap(link, keys, 'digests'),
      earlier: () => redisByteMap(link, keys, 'earlier'),
      crawlReport: () => crawlReport(link, target.crawl),
      async close() {
        await coordination.close();
        await link.close();
      },
    };
  } catch (err) {
    await link.close();
    throw err;
  }
}

/** A Redis crawl's keys go; refused while a node of it is alive. */
async function resetRedisCrawl(spec: string, crawl: string): Promise<void> {
  const link = await RedisLink.open(parseRedisSpec(spec), { log: null, connectWaitMs: 5000 });
  try {
    const keys = new CrawlKeys(crawl);
    const t = await link.time(keys.meta);
    const alive = await link.command<string[]>(['ZRANGE', keys.nodes, String(t - 10_000), '+inf', 'BYSCORE']);
    if (alive.length > 0) throw new UsageError(`crawl ${JSON.stringify(crawl)} in ${spec} has live nodes (${alive.join(', ')}): stop them first (archiver stop ${spec} --crawl ${crawl})`);
    for (const pattern of crawlKeyPattern(crawl)) {
      // One UNLINK per key: the keys of a crawl span many slots of a cluster.
      for await (const found of link.scan(pattern)) await Promise.all(found.map((key) => link.command(['UNLINK', key])));
    }
  } finally {
    await link.close();
  }
}

/** Who sets a flag from outside the crawl (`archiver stop`, `archiver serve --store`): no node joins under it. */
const OUTSIDE_NODE = 'archiver-stop';

async function inspectRedis(spec: string): Promise<StoreInspector> {
  const link = await RedisLink.open(parseRedisSpec(spec), { log: null, connectWaitMs: 5000 });
  const setFlag = async (crawl: string, flag: keyof RunFlags, on: boolean): Promise<number> => {
    // The handle's way: the crawl's coordination sets the flag every node hears with its next heartbeat (nothing is joined to set it).
    await new RedisCoordination(link, new CrawlKeys(crawl), OUTSIDE_NODE).setFlag(flag, on);
    return liveNodeCount(link, crawl);
  };
  return {
    pick: (crawl) => pickCrawl(link, crawl),
    report: (crawl) => crawlReport(link, crawl),
    stop: (crawl) => setFlag(crawl, 'stopped', true),
    setFlag,
    records: (crawl, name) => redisRecords(link, new CrawlKeys(crawl), name),
    queues: (crawl, limitPerShard) => crawlQueueListing(link, new CrawlKeys(crawl), limitPerShard),
    close: () => link.close(),
  };
}
