/**
 * The digest index on Redis, as the backend table builds it for a crawl of
 * several processes (every miss asked of Redis): a payload one node
 * remembered is found by another node's index, so it becomes a revisit there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoredDigestIndex } from '../../src/dedup/digest-index.js';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { redisByteMap } from '../../src/store/redis/redis-records.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';

for (const variant of REDIS_VARIANTS) describe(`digest index shared through Redis (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();

  it('a payload remembered by one node is found by another', async () => {
    const keys = new CrawlKeys('dedup');
    const a = new StoredDigestIndex(redisByteMap(suite.link, keys, 'digests'), { memoryDigests: 0 });
    const b = new StoredDigestIndex(redisByteMap(suite.link, keys, 'digests'), { memoryDigests: 0 });
    assert.equal(await b.lookup('sha1:SHARED'), null);
    await a.remember('sha1:SHARED', 'http://a.test/logo.png', '2026-12-01T10:00:00.000Z');
    await a.flush();
    assert.deepEqual(await b.lookup('sha1:SHARED'), { url: 'http://a.test/logo.png', date: '2026-12-01T10:00:00.000Z' });
    assert.equal(await b.lookup('sha1:OTHER'), null);
  });
});
