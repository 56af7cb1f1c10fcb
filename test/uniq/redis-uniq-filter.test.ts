/**
 * The Redis seen filter runs the shared conformance suite against a
 * redis-server of its own; and what only a shared filter must do: two
 * nodes agree on what is new, and a dead node's reservations are void.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { RedisUriUniqFilter } from '../../src/uniq/redis-uniq-filter.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { uniqFilterConformance } from './conformance.js';

for (const variant of REDIS_VARIANTS) describe(`Redis seen filter (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;
  const filter = (crawl: string, token: string, dead?: () => string[], memoryKeys = 1000) =>
    new RedisUriUniqFilter({ link: suite.link, keys: new CrawlKeys(crawl), name: 'seen', token, memoryKeys, ...(dead ? { voids: () => ({ dead: dead(), current: [] }) } : {}) });

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
    const dead = filter('resv', 'gone.1');
    let reserved!: () => void;
    const hang = new Promise<void>((r) => (reserved = r));
    // The node reserves, then "dies" inside beforeCommit (never records).
    void dead.addMany(['http://x.test/a'], async () => {
      reserved();
      await new Promise(() => {});
    });
    await hang;
    const alive = filter('resv', 'alive.1', () => []);
    assert.deepEqual(await alive.addMany(['http://x.test/a']), [false], 'taken while its node lives');
    const restarted = filter('resv', 'gone.2', () => []);
    assert.deepEqual(await restarted.addMany(['http://x.test/b']), [true]);
    const after = filter('resv', 'alive.1', () => ['gone.1']);
    assert.deepEqual(await after.addMany(['http://x.test/a']), [true], 'new once its node is dead');
    assert.equal(await after.count(), 2);
  });
});
