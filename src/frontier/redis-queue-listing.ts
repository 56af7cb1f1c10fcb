/**
 * The queues of a Redis crawl as the store holds them, read from outside
 * (no crawl joined, nothing written): for `archiver serve --store`, whose
 * console lists the queues of every node. Per queue: its URIs waiting, its
 * figures (URIs finished, snoozed until), the node holding its lease, and
 * whether it is retired. Which node holds a queue is all the store knows
 * of its state on that node (ready, in process or snoozed lives in the
 * node's memory). One script per shard (keys as in redis-queue-scripts.ts),
 * each answering at most `limitPerShard` queues: held ones first, then
 * those waiting for a node, then the rest.
 */
import { SHARDS, type CrawlKeys } from '../store/redis/crawl-keys.js';
import { redisScript, type RedisLink } from '../store/redis/redis-link.js';
import { parseMeta } from './queue-meta.js';

export interface StoredQueueView {
  key: string;
  /** URIs in the queue's sorted set (a held queue's head may be in its node's memory, in flight). */
  queued: number;
  /** URIs finished, as its figures were last saved. */
  finished: number;
  /** Epoch ms before which it hands out nothing (0: not snoozed). */
  wakeAt: number;
  /** The node holding its lease (alive or not), or null. */
  node: string | null;
  retired: boolean;
}

/** ARGV: T, limit → per queue: key, count, meta, lease (`node|epoch` or ''), retired (0|1). */
const LIST = redisScript(
  'frontier-list',
  `
local T, limit = ARGV[1], tonumber(ARGV[2])
local seen, out, n = {}, {}, 0
local function add(qk)
  if seen[qk] or n >= limit then return end
  seen[qk] = true
  n = n + 1
  table.insert(out, qk)
  table.insert(out, redis.call('ZCARD', T .. ':q:' .. qk))
  table.insert(out, redis.call('HGET', T .. ':meta', qk) or '')
  table.insert(out, redis.call('HGET', T .. ':lease', qk) or '')
  table.insert(out, redis.call('SISMEMBER', T .. ':retired', qk))
end
for _, qk in ipairs(redis.call('HKEYS', T .. ':lease')) do add(qk) end
for _, qk in ipairs(redis.call('SMEMBERS', T .. ':pending')) do add(qk) end
if n < limit then for _, qk in ipairs(redis.call('HKEYS', T .. ':meta')) do add(qk) end end
return out`,
);

/** Every shard's queues (at most `limitPerShard` each), sorted by key. */
export async function crawlQueueListing(link: RedisLink, keys: CrawlKeys, limitPerShard: number): Promise<StoredQueueView[]> {
  const out: StoredQueueView[] = [];
  await Promise.all(
    Array.from({ length: SHARDS }, async (_, shard) => {
      const tag = keys.shardTag(shard);
      const r = await link.eval<(string | number)[]>(LIST, [`${tag}:lease`], [tag, limitPerShard]);
      for (let i = 0; i + 4 < r.length; i += 5) {
        const metaText = String(r[i + 2]);
        const meta = metaText === '' ? null : parseMeta(metaText);
        const lease = /^(.*)\|\d+$/.exec(String(r[i + 3]));
        out.push({ key: String(r[i]), queued: Number(r[i + 1]), finished: meta?.f ?? 0, wakeAt: meta?.w ?? 0, node: lease === null ? null : lease[1]!, retired: Number(r[i + 4]) === 1 });
      }
    }),
  );
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
