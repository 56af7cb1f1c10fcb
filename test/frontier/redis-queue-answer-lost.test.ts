/**
 * The Redis queue store when Redis runs a call and its answer never comes
 * back (Redis stopped right after running it, as distributed-crawl's
 * "Redis stopped for 5 s" does): the link sends the call again, and what the
 * first run took out of the shared sets must reach the node all the same.
 * A proxy between the node's link and a real redis-server lets the call
 * through and cuts the connection instead of passing its answer on.
 *
 * Before the fix a drain sent again popped an inbox already emptied by its
 * first run: the URIs another node had scheduled into this node's queue
 * were in the queue on Redis and in no node's memory (the crawl could never
 * end, or their queue ran dry here without them). An adoption sent again
 * found the pending set emptied: the queue was leased to a node that did not
 * know it held it, left untouched until the lease ran out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { QueueEntry } from '../../src/frontier/queue-store.js';
import { RedisQueueStore } from '../../src/frontier/redis-queue-store.js';
import { CrawlKeys, shardOf } from '../../src/store/redis/crawl-keys.js';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startReplyCuttingProxy, type ReplyCuttingProxy } from '../helpers/reply-cutting-proxy.js';
import { uri } from './harness.js';

/** A queue key of shard 0 (the first an adoption looks at), from `base`. */
function shard0Key(base: string): string {
  for (let i = 0; i < 10_000; i++) if (shardOf(`${base}${i}.test:80`) === 0) return `${base}${i}.test:80`;
  throw new Error('no queue key of shard 0');
}

const entry = (queueKey: string, n: number): QueueEntry => ({
  queueKey,
  sortKey: Buffer.from(String(n).padStart(6, '0')),
  value: { o: n, u: uri(`http://${queueKey}/${n}`, 'L') },
});

describe('Redis queue store, an answer lost on the way back', needsRedis(), () => {
  let redis: TestRedis;
  let proxy: ReplyCuttingProxy;
  /** Through the proxy: the node whose answers are lost. */
  let cutLink: RedisLink;
  /** Straight to Redis: the other node. */
  let link: RedisLink;
  let crawls = 0;
  before(async () => {
    redis = await startRedis();
    proxy = await startReplyCuttingProxy(redis.port);
    cutLink = await RedisLink.open(parseRedisSpec(proxy.spec()), { log: null });
    link = await RedisLink.open(parseRedisSpec(redis.spec()), { log: null });
  });
  after(async () => {
    await cutLink?.close();
    await link?.close();
    await proxy?.close();
    await redis?.dispose();
  });

  /** Two nodes of one crawl: `cut` (its link loses answers) and `other`; each may take on any queue unless `room` says not. */
  async function nodes(room = 1e9) {
    const keys = new CrawlKeys(`lost${++crawls}`);
    const cut = new RedisQueueStore({ link: cutLink, keys, node: 'node-cut', token: 'node-cut.1', leaseMs: 60_000, room: () => room, ordinalBase: 0 });
    const other = new RedisQueueStore({ link, keys, node: 'node-other', token: 'node-other.1', leaseMs: 60_000, room: () => room, ordinalBase: 0 });
    await cut.load();
    await other.load();
    return { cut, other };
  }

  it("a drain that ran but whose answer was lost hands over, sent again, the URIs its first run took from the node's inbox", { timeout: 30_000 }, async () => {
    const { cut, other } = await nodes();
    const q = 'drained.test:80';
    assert.deepEqual([...(await cut.addShared([entry(q, 1)])).adopted.keys()], [q], 'the node holds the queue');
    assert.deepEqual([...(await other.addShared([entry(q, 2), entry(q, 3)])).foreign], [q], "the other node's URIs go to its inbox");
    // Every command of the drain names the node (its inbox): the first one's answer is lost.
    const cutDone = proxy.cutAfter('node-cut');
    const before = proxy.cuts;
    const arrived = await cut.drain();
    await cutDone;
    assert.equal(proxy.cuts, before + 1, "the drain ran and its answer was lost");
    assert.deepEqual(arrived.map((e) => e.value.u.url).sort(), [`http://${q}/2`, `http://${q}/3`], 'handed over all the same');
    assert.deepEqual(await cut.drain(), [], 'and once');
    assert.deepEqual((await cut.readAfter(q, null, 10)).map((e) => e.value.o), [1, 2, 3], 'in the queue on Redis');
  });

  it('an adoption that ran but whose answer was lost hands over, sent again, the queue its first run took', { timeout: 30_000 }, async () => {
    const { cut, other } = await nodes(0);
    const q = shard0Key('adopted');
    assert.deepEqual([...(await other.addShared([entry(q, 1), entry(q, 2)])).foreign], [q], 'no room: the queue waits for a node');
    const cutDone = proxy.cutAfter('node-cut');
    const before = proxy.cuts;
    const adopted = await cut.adopt(1);
    await cutDone;
    assert.equal(proxy.cuts, before + 1, 'the adoption ran and its answer was lost');
    assert.deepEqual([...adopted].map(([k, s]) => [k, s.count]), [[q, 2]], 'handed over all the same, with its URIs');
    assert.deepEqual((await cut.renew([])).lost, [], 'held under the epoch it was handed over with');
    assert.equal((await other.adopt(1)).size, 0, 'and by this node only');
  });
});
