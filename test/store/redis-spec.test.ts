/**
 * The store addresses `--store`, a profile's `store` and status/stop take:
 * one Redis (`redis://HOST:PORT/DB`) or a Redis Cluster
 * (`redis+cluster://HOST:PORT[,HOST:PORT…]`, any one seed node enough);
 * anything else a usage error (exit 2) naming what was given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRedisSpec, parseRedisSpec } from '../../src/store/redis/redis-spec.js';
import { backendRow } from '../../src/backends/state-backends.js';

describe('Redis store addresses', () => {
  it('reads a cluster of one or several seed nodes, default port 6379, database 0', () => {
    const one = parseRedisSpec('redis+cluster://127.0.0.1:7000');
    assert.deepEqual([one.cluster, one.seeds, one.db, one.url], [true, [{ host: '127.0.0.1', port: 7000 }], 0, 'redis://127.0.0.1:7000']);
    const several = parseRedisSpec('redis+cluster://a.example:7000,b.example,[::1]:7002');
    assert.deepEqual(several.seeds, [{ host: 'a.example', port: 7000 }, { host: 'b.example', port: 6379 }, { host: '::1', port: 7002 }]);
    assert.ok(isRedisSpec('redis+cluster://h:1') && backendRow('redis+cluster://h:1').shared);
  });

  it('reads one Redis as before', () => {
    const r = parseRedisSpec('redis://10.0.0.5:6380/3');
    assert.deepEqual([r.cluster, r.host, r.port, r.db], [false, '10.0.0.5', 6380, 3]);
  });

  it('refuses a cluster address with a database, an empty or bad node, with a usage error', () => {
    for (const bad of ['redis+cluster://', 'redis+cluster://h:1/2', 'redis+cluster://h:1,,h:2', 'redis+cluster://h:99999', 'redis+cluster://h:x']) {
      assert.throws(() => parseRedisSpec(bad), { code: 'ARCHIVER_USAGE' }, bad);
    }
  });
});
