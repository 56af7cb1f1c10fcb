/**
 * The QueueStore suite on Redis, one Redis and a Redis Cluster: the queue
 * store a shared frontier keeps its URIs in, as one node sees it (it may
 * take on every queue it adds to; another store of the same node and
 * incarnation is that node after a restart).
 */
import { describe } from 'node:test';
import { RedisQueueStore } from '../../src/frontier/redis-queue-store.js';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { queueStoreConformance } from './queue-store-conformance.js';

for (const variant of REDIS_VARIANTS) describe(`Redis queue store (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;
  queueStoreConformance(`RedisQueueStore, ${variant.name}`, async () => {
    const keys = new CrawlKeys(`qs${++crawls}`);
    const make = (): RedisQueueStore =>
      new RedisQueueStore({ link: suite.link, keys, node: 'n1', token: 'n1.1', leaseMs: 60_000, room: () => Number.MAX_SAFE_INTEGER, ordinalBase: 0 });
    return { store: make(), again: make, dispose: async () => {}, shared: true };
  });
});
