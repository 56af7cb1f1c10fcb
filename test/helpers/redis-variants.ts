/**
 * The two shapes of Redis a shared crawl runs on, for suites that must pass
 * on both: one redis-server, and a 3-master Redis Cluster (every script on
 * one hash tag's keys, so no cross-slot error). Each gives a link for its
 * describe() block.
 */
import type { RedisLink } from '../../src/store/redis/redis-link.js';
import { needsRedisCluster, useSuiteCluster } from './redis-cluster.js';
import { needsRedis, useSuiteRedis } from './redis-server.js';

export interface RedisVariant {
  name: string;
  needs: () => { skip?: string };
  use: () => { readonly link: RedisLink };
}

export const REDIS_VARIANTS: readonly RedisVariant[] = [
  { name: 'one Redis', needs: needsRedis, use: useSuiteRedis },
  { name: 'Redis Cluster', needs: needsRedisCluster, use: useSuiteCluster },
];
