/**
 * The Redis seen filter runs the shared conformance suite against a
 * redis-server of its own; and what only a shared filter must do: two
 * nodes agree on what is new, and a dead node's reservations are void;
 * and a reservation whose answer was lost (Redis stopped right after
 * running it) is sent again and still reserves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { RedisLink } from '../../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { RedisUriUniqFilter } from '../../src/uniq/redis-uniq-filter.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { redisBehindCuttingProxy } from '../helpers/reply-cutting-proxy.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { uniqFilterConformance } from './conformance.js';

/** `node` reserves `url`, then "dies" inside beforeCommit: the reservation is made and never recorded. Resolves once it is made. */
function reservedForever(node: RedisUriUniqFilter, url: string): Promise<void> {
  return new Promise<void>((reserved) => {
    void node.addMany([url], async () => {
      reserved();
      await new Promise(() => {});
    });
  });
}

for (const variant of REDIS_VARIANTS) describe(`Redis seen filter (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;
  const filter = (crawl: string, token: string, dead?: () => string[], memoryKeys = 1000, current: string[] = []) =>
    new RedisUriUniqFilter({ link: suite.link, keys: new CrawlKeys(crawl), name: 'seen', token, memoryKeys, ...(dead ? { voids: () => ({ dead: dead(), current }) } : {}) });

  // Each test gets a crawl of its own in the one server; a tiny local table makes most answers come from Redis.
  uniqFilterConformance('redis', async () => filter(`c${++crawls}`, 'n1.1', undefined, 4));

  it('two nodes of one crawl agree: a URL is new for one of them only', async () => {
    const a = filter('shared', 'a.1');
    const b = filter('shared', 'b.1', () => []);
    const urls = Array.from({ length: 300 }, (_, i) => `http://h${i % 5}.test/${i % 120}`);
    const [ra, rb] = await Promise.all([a.addMany(urls), b.addMany([...urls].reverse())]);
    const wins = new Map<string, number>();
    ra.forEach((n, i) => n && wins.set(urls[i]!, (wins.get(urls[i]!) ?? 0) + 1));
    rb.forEach((n, i) => n && wins.set(urls[urls.length - 1 - i]!, (wins.get(urls[urls.length - 1 - i]!) ?? 0) + 1));
    assert.equal(wins.size, 120);
    assert.ok([...wins.values()].every((w) => w === 1));
    assert.equal(await b.count(), 120);
  });

  it("a dead node's reservation is void: the URL is new again for a live node", async () => {
    await reservedForever(filter('resv', 'gone.1'), 'http://x.test/a');
    const alive = filter('resv', 'alive.1', () => []);
    assert.deepEqual(await alive.addMany(['http://x.test/a']), [false], 'taken while its node lives');
    const restarted = filter('resv', 'gone.2', () => []);
    assert.deepEqual(await restarted.addMany(['http://x.test/b']), [true]);
    const after = filter('resv', 'alive.1', () => ['gone.1']);
    assert.deepEqual(await after.addMany(['http://x.test/a']), [true], 'new once its node is dead');
    assert.equal(await after.count(), 2);
  });

  it("a live node's earlier incarnation's reservation is void, and a later one's holds though this node has not heard of it yet", async () => {
    // b restarted as b.7 (incarnations are numbered as nodes join) and reserved; a's view of b is stale (b.3) or current (b.9, a later restart).
    await reservedForever(filter('incarnations', 'b.7'), 'http://y.test/a');
    const stale = filter('incarnations', 'a.5', () => [], 1000, ['b.3']);
    assert.deepEqual(await stale.addMany(['http://y.test/a']), [false], 'b.7 is later than the b.3 a knows of: its reservation holds');
    const known = filter('incarnations', 'a.5', () => [], 1000, ['b.7']);
    assert.deepEqual(await known.addMany(['http://y.test/a']), [false], 'b.7 is the b a knows of');
    const later = filter('incarnations', 'a.5', () => [], 1000, ['b.9']);
    assert.deepEqual(await later.addMany(['http://y.test/a']), [true], 'b restarted since (b.9): b.7 is void');
  });
});

describe('Redis seen filter, an answer lost on the way back', needsRedis(), () => {
  const r = redisBehindCuttingProxy();

  // Seen under load (distributed-crawl, "Redis stopped for 5 s"): a stylesheet fetched as Redis stopped had
  // its one link, an image, reserved by a script Redis ran and never answered. The link sent it again; the
  // script found the key holding this very batch's marker, answered "taken", and the image was neither
  // queued nor recorded: its node skips a link it has put through the filter, and the other nodes took the
  // marker for a live reservation. No node ever fetched it.
  it('a reservation that ran but whose answer was lost is the batch\'s own when sent again: the URL is queued and recorded', { timeout: 30_000 }, async () => {
    const keys = new CrawlKeys('cut');
    const node = new RedisUriUniqFilter({ link: r.link, keys, name: 'seen', token: 'cut.1', memoryKeys: 1000 });
    const urls = ['http://x.test/img/footer.gif', 'http://x.test/img/footer.gif', 'http://x.test/next.html'];
    // The first batch of token cut.1 reserves with the marker `pcut.1:1:`: the reservation is the first command holding it.
    const cut = r.proxy.cutAfter('pcut.1:1:');
    let queued: boolean[] = [];
    const fresh = await node.addMany(urls, async (f) => {
      queued = [...f];
    });
    await cut;
    assert.equal(r.proxy.cuts, 1, 'the reservation ran and its answer was lost');
    assert.deepEqual(fresh, [true, false, true], 'new once each, as if answered the first time');
    assert.deepEqual(queued, [true, false, true], 'queued before being recorded');
    assert.equal(await node.count(), 2, 'recorded');
    const other = new RedisUriUniqFilter({ link: r.link, keys, name: 'seen', token: 'other.1', memoryKeys: 1000 });
    assert.deepEqual(await other.addMany(urls.slice(0, 1)), [false], 'and taken for another node');
  });
});
