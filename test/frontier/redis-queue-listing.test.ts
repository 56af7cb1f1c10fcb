/**
 * The queues of a Redis crawl read from outside (`archiver serve --store`
 * lists every node's queues with it), on one Redis and on a Redis Cluster:
 * a queue a node holds shows that node, its URIs and its saved figures
 * (URIs finished, wake time); a queue no node could take on shows none;
 * URIs routed to a holder's inbox are not yet the queue's. Nothing is
 * written by the reading.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crawlQueueListing } from '../../src/frontier/redis-queue-listing.js';
import { RedisQueueStore } from '../../src/frontier/redis-queue-store.js';
import type { QueueEntry } from '../../src/frontier/queue-store.js';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { uri } from './harness.js';

const entry = (queueKey: string, n: number): QueueEntry => ({ queueKey, sortKey: Buffer.of(n), value: { o: n, u: uri(`http://${queueKey.replace('#', ':')}/${n}`) } });

for (const variant of REDIS_VARIANTS) describe(`Redis queue listing (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();

  it('every queue with its holder, URIs and figures; a pending queue has no holder', async () => {
    const keys = new CrawlKeys('listing1');
    const store = (node: string, room: number): RedisQueueStore =>
      new RedisQueueStore({ link: suite.link, keys, node, token: `${node}.1`, leaseMs: 60_000, room: () => room, ordinalBase: 0 });
    const n1 = store('n1', 100);
    const n2 = store('n2', 0);
    await n1.load();
    await n2.load();
    await n1.add([entry('a.test#80', 1), entry('a.test#80', 2), entry('a.test#80', 3)]);
    await n2.add([entry('b.test#80', 1), entry('b.test#80', 2), entry('a.test#80', 4)]);
    await n1.commit({ ops: [{ type: 'del', ref: { queueKey: 'a.test#80', sortKey: Buffer.of(1) } }], queues: [['a.test#80', { f: 1, t: 1, s: 1, w: 4_000_000_000_000, a: true, n: 0 }]], hosts: [] });
    const listed = await crawlQueueListing(suite.link, keys, 100);
    assert.deepEqual(listed, [
      { key: 'a.test#80', queued: 2, finished: 1, wakeAt: 4_000_000_000_000, node: 'n1', retired: false },
      { key: 'b.test#80', queued: 2, finished: 0, wakeAt: 0, node: null, retired: false },
    ]);
    assert.deepEqual(await crawlQueueListing(suite.link, keys, 100), listed, 'reading changed nothing');
    assert.deepEqual(await crawlQueueListing(suite.link, new CrawlKeys('listing-none'), 100), []);
  });
});
