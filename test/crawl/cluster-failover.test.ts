/**
 * A master of the Redis Cluster goes away mid-crawl (three nodes crawling
 * the loopback fixture web, `--store redis+cluster://…`):
 * - with a replica per master, the master is SIGKILLed: its replica takes
 *   its slots, the nodes carry on against it, and the crawl ends complete;
 * - without replicas, the master is stopped for 5 s: the nodes wait, say
 *   so, resume when it is back, and the crawl ends complete.
 * The master killed is the one holding the crawl's own hash tag (nodes,
 * heartbeats, flags), so every node meets the loss at once.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { fileLines, sleep, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { needsRedisCluster, startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

describe('a crawl on a Redis Cluster whose master goes away', needsRedisCluster(), () => {
  let tmp: string;
  let web: FixtureWeb;
  const children: CliChild[] = [];
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-failover-'));
    web = await FixtureWeb.start({ hosts: 5, pagesPerHost: 14, port: 0, latencyMs: 2 });
  });
  after(async () => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
    await web?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  /** Three nodes on `cluster`; once they crawl, `outage` runs; then every node must end 0 with every reachable URL archived. */
  async function crawlThrough(name: string, cluster: TestRedisCluster, outage: (master: number) => Promise<void>): Promise<CliChild[]> {
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    await writeFile(file, JSON.stringify(testProfileJson(name, web.seeds, dir, { politeness: { delayFactor: 0, minDelayMs: 50, maxDelayMs: 50 }, limits: { fetchTimeoutMs: 5000, maxRetries: 2, retryDelayMs: 10 }, workers: 3 })));
    web.takeRequests();
    const nodes = ['n1', 'n2', 'n3'].map((id) => {
      const c = startCli(['run', file, '--store', cluster.spec(), '--node', id, '--quiet']);
      children.push(c);
      return c;
    });
    const logs = ['n1', 'n2', 'n3'].map((n) => path.join(dir, 'logs', `crawl-${n}.log`));
    assert.ok(await waitFor(async () => (await Promise.all(logs.map(fileLines))).reduce((s, l) => s + l.length, 0) >= 30, 90_000), 'the crawl got going');
    const master = cluster.ports.indexOf(await cluster.masterOf(`arc:{${name}}:meta`));
    await outage(master);
    const codes = await Promise.all(nodes.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    const got = new Set((await readWarcDir(path.join(dir, 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
    assert.deepEqual(web.expectedUrls().reachable.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    return nodes;
  }

  it('with replicas: the master is SIGKILLed, its replica takes over, the crawl ends complete', { timeout: 300_000 }, async () => {
    const cluster = await startRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1000 });
    try {
      await crawlThrough('failover', cluster, async (master) => {
        await cluster.kill(master);
        // The cluster promotes the replica within a few node timeouts.
        const via = (master + 1) % 3;
        assert.ok(await waitFor(async () => (await cluster.masterOf('arc:{failover}:meta', via).catch(() => 0)) !== 0, 30_000, 200), 'a replica took over');
      });
    } finally {
      await cluster.dispose();
    }
  });

  it('without replicas: the master is stopped for 5 s, the nodes wait, say so, and finish', { timeout: 300_000 }, async () => {
    const cluster = await startRedisCluster();
    try {
      const nodes = await crawlThrough('outage', cluster, async (master) => {
        await cluster.stop(master);
        await sleep(5000);
        await cluster.start(master);
      });
      assert.ok(nodes.some((n) => /Redis at .* unreachable/.test(n.stderr())), 'a node said Redis was gone');
      assert.ok(nodes.some((n) => /Redis at .* is back/.test(n.stderr())), 'and that it was back');
    } finally {
      await cluster.dispose();
    }
  });
});
