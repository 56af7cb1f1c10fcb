/**
 * The coordination of a crawl's nodes (CrawlCoordination on Redis), on one
 * Redis and on a 3-master Redis Cluster (its scripts keep to the crawl's
 * own hash tag): joining (a live id and another profile refused), the run
 * flags every node hears with its heartbeat, each node's figures, and the
 * end — the last node to leave a finished crawl packages it. And a join
 * whose answer was lost (Redis stopped right after running it) and which
 * the link sends again is the node's own, not another live node's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { RedisCoordination } from '../../src/backends/redis-coordination.js';
import type { RunFlags } from '../../src/backends/crawl-coordination.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { redisBehindCuttingProxy } from '../helpers/reply-cutting-proxy.js';

const FIGURES = { pages: 3, bytes: 300, pagesPerSec: 1.5, inFlight: 1, busyQueues: 2, elapsedMs: 2000 };

for (const variant of REDIS_VARIANTS) describe(`crawl coordination (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;
  const node = (crawl: string, id: string): RedisCoordination => new RedisCoordination(suite.link, new CrawlKeys(crawl), id);

  it('joins with an incarnation each; a live id and another profile are refused', async () => {
    const crawl = `coord${++crawls}`;
    const a = node(crawl, 'a');
    const b = node(crawl, 'b');
    const ja = await a.join('p1');
    const jb = await b.join('p1');
    assert.deepEqual([ja.finished, jb.finished], [false, false]);
    assert.ok(jb.incarnation > ja.incarnation);
    await assert.rejects(node(crawl, 'a').join('p1'), { code: 'ARCHIVER_USAGE' });
    await assert.rejects(node(crawl, 'c').join('p2'), { code: 'ARCHIVER_USAGE' });
    await a.close();
    await b.close();
  });

  it("a flag set by one node reaches another with its heartbeat; each node's figures are read back", async () => {
    const crawl = `coord${++crawls}`;
    const a = node(crawl, 'a');
    const b = node(crawl, 'b');
    await a.join('p');
    await b.join('p');
    const heard: RunFlags[] = [];
    a.start(() => FIGURES, () => {});
    b.start(() => ({ ...FIGURES, pages: 5 }), (f) => heard.push(f));
    await a.setFlag('paused', true);
    const deadline = Date.now() + 5000;
    while (!heard.some((f) => f.paused) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(heard.some((f) => f.paused), 'b heard the pause');
    await new Promise((r) => setTimeout(r, 1200));
    const nodes = await a.nodes();
    assert.deepEqual(nodes.map((n) => [n.node, n.alive, n.pages]), [['a', true, 3], ['b', true, 5]]);
    await a.close();
    await b.close();
  });

  it('the last node to leave a finished crawl packages it; a node joining later finds it finished', async () => {
    const crawl = `coord${++crawls}`;
    const a = node(crawl, 'a');
    const b = node(crawl, 'b');
    await a.join('p');
    await b.join('p');
    a.start(() => FIGURES, () => {});
    b.start(() => FIGURES, () => {});
    assert.equal(await a.leave(true), false, 'b is still alive');
    assert.equal(await b.leave(true), true, 'b is the last');
    await b.packaged();
    const c = node(crawl, 'c');
    assert.equal((await c.join('p')).finished, true);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  // Before, one node's seeded() let every node end: a node whose seeds another had reserved in the seen
  // filter, but not yet queued, found no queue holding anything and ended with nothing fetched.
  it('the crawl may end once every live node has queued its seeds: not while one that joined has not, nor while one queues added seeds', async () => {
    const crawl = `coord${++crawls}`;
    const a = node(crawl, 'a');
    const b = node(crawl, 'b');
    await a.join('p');
    await b.join('p');
    const may = async (): Promise<[number | null, number | null]> => [await a.view().mayFinish(), await b.view().mayFinish()];
    assert.deepEqual(await may(), [null, null], 'nobody seeded');
    await a.seeding();
    await a.seeded();
    assert.deepEqual(await may(), [null, null], 'b joined (no heartbeat yet) and has not seeded');
    await b.seeding();
    await b.seeded();
    const [first] = await may();
    assert.ok(first !== null && first >= 2, `both seeded: ${first}`);
    // Seeds added later (the console's): the end waits while a node queues them, and the count moves on,
    // so a node that looked before and looks again after sees that seeding began in between.
    await a.seeding();
    assert.deepEqual(await may(), [null, null], 'a is queueing added seeds');
    await a.seeded();
    const [again] = await may();
    assert.ok(again !== null && again > first, `another seeding counted: ${first} → ${again}`);
    // A node joining later holds the end until it has seeded; one that left holds nothing.
    const c = node(crawl, 'c');
    await c.join('p');
    assert.equal(await a.view().mayFinish(), null, 'c joined');
    await c.leave(false);
    assert.equal(await a.view().mayFinish(), again, 'c left');
    // b restarted under its id: its earlier incarnation's seeding does not count for the new one.
    await b.leave(false);
    const b2 = node(crawl, 'b');
    await b2.join('p');
    assert.equal(await a.view().mayFinish(), null, 'b is back and has not seeded in this run');
    await b2.seeding();
    await b2.seeded();
    assert.notEqual(await a.view().mayFinish(), null);
    await Promise.all([a.close(), b.close(), c.close(), b2.close()]);
  });
});

describe('crawl coordination, an answer lost on the way back', needsRedis(), () => {
  const r = redisBehindCuttingProxy();

  // Before the fix the join sent again found the heartbeat its first run wrote and refused the node as
  // alive already: a node starting as Redis restarted exited with a usage error.
  it('a join that ran but whose answer was lost is the same join when sent again: joined, once, with its incarnation', { timeout: 30_000 }, async () => {
    const keys = new CrawlKeys('joined');
    const first = new RedisCoordination(r.link, keys, 'joiner');
    // The join is the first command naming the node.
    const cut = r.proxy.cutAfter('joiner');
    const joined = await first.join('p');
    await cut;
    assert.equal(r.proxy.cuts, 1, 'the join ran and its answer was lost');
    assert.deepEqual([joined.incarnation, joined.finished, first.token], [1, false, 'joiner.1']);
    await assert.rejects(new RedisCoordination(r.link, keys, 'joiner').join('p'), { code: 'ARCHIVER_USAGE' }, 'another process under the id is still refused');
    const other = new RedisCoordination(r.link, keys, 'other');
    assert.equal((await other.join('p')).incarnation, 2);
    await first.close();
    await other.close();
  });
});
