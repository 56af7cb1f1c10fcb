/**
 * One crawl, three processes, a 3-master Redis Cluster (`--store
 * redis+cluster://127.0.0.1:PORT`), judged as on one Redis
 * (distributed-crawl.test.ts): the server's log (one request per host at
 * a time, the minimum gap across nodes), the union of the WARCs (every
 * reachable URL, once). Also what a node says of itself: the summary of
 * the node that packaged the crawl covers the whole crawl and the others
 * say they are their node's share; a node restarted on a finished crawl
 * says the crawl was already finished, with that crawl's figures (it said
 * "FINISHED in 1.7 s" of its own short run); a node left without a host
 * says why; status counts no queue held once every node is gone (it said
 * "held 1"); and one node's console shows the whole crawl.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { inspectStore } from '../../src/store/state-backends.js';
import { fileLines, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { archived, checkPoliteness, checkWarcsWhole } from '../helpers/node-crawl-checks.js';
import { needsRedisCluster, startRedisCluster, type TestRedisCluster } from '../helpers/redis-cluster.js';
import { testProfileJson } from '../helpers/test-profile.js';

const MIN_DELAY_MS = 50;

describe('a crawl of three processes on a 3-master Redis Cluster', needsRedisCluster(), () => {
  let tmp: string;
  let cluster: TestRedisCluster;
  let web: FixtureWeb;
  let crawls = 0;
  const children: CliChild[] = [];
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-cluster-nodes-'));
    cluster = await startRedisCluster();
    web = await FixtureWeb.start({ hosts: 5, pagesPerHost: 14, port: 0, latencyMs: 2 });
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await web?.close();
    await cluster?.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  /** A profile of its own crawl and job directory, and a way to start a node of it (quiet unless told; more arguments after). */
  async function setUp(o: { delayMs?: number; seeds?: readonly string[] } = {}) {
    const name = `cluster${++crawls}`;
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    const delayMs = o.delayMs ?? MIN_DELAY_MS;
    await writeFile(file, JSON.stringify(testProfileJson(name, o.seeds ?? web.seeds, dir, { politeness: { delayFactor: 0, minDelayMs: delayMs, maxDelayMs: delayMs }, limits: { fetchTimeoutMs: 5000, maxRetries: 2, retryDelayMs: 10 }, workers: 3 })));
    web.takeRequests();
    const node = (id: string, quiet = true, ...more: string[]): CliChild => {
      const c = startCli(['run', file, '--store', cluster.spec(), '--node', id, ...(quiet ? ['--quiet'] : []), ...more]);
      children.push(c);
      return c;
    };
    return { name, dir, node };
  }

  it('three nodes: one request per host at a time, the delay across nodes, every page once; one summary is the whole crawl, the others their share; nothing left held', { timeout: 180_000 }, async () => {
    const { name, dir, node } = await setUp();
    const nodes = [node('n1', false), node('n2', false), node('n3', false)];
    assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    const expected = web.expectedUrls().reachable;
    const got = await archived(dir);
    assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    assert.deepEqual([...got].filter(([, n]) => n > 1), [], 'none archived twice');
    await checkPoliteness(web.takeRequests(), MIN_DELAY_MS, dir);
    await checkWarcsWhole(dir);
    // The summary goes to stderr, with the progress lines.
    const heads = nodes.map((n) => n.stderr().split('\n').find((l) => l.startsWith('crawl ')) ?? '');
    assert.equal(heads.filter((h) => /the whole crawl, packaged by node n\d/.test(h)).length, 1, heads.join('\n'));
    assert.equal(heads.filter((h) => /node n\d's share/.test(h)).length, 2, heads.join('\n'));
    const inspector = await inspectStore(cluster.spec());
    try {
      const report = await inspector.report(name);
      assert.deepEqual([report.totals.liveNodes, report.queues.leasedQueues], [0, 0], JSON.stringify(report.queues));
    } finally {
      await inspector.close();
    }
  });

  it('a node killed with SIGKILL mid-crawl: the others finish its queues; restarted, it says the crawl was already finished, with its figures', { timeout: 240_000 }, async () => {
    const { dir, node } = await setUp();
    const ids = ['n1', 'n2', 'n3'];
    const running = new Map(ids.map((id) => [id, node(id)]));
    const logOf = (id: string): string => path.join(dir, 'logs', `crawl-${id}.log`);
    let victimId = '';
    const landed = await waitFor(async () => {
      const counts = await Promise.all(ids.map(async (id) => (await fileLines(logOf(id))).length));
      if (counts.reduce((a, b) => a + b, 0) < 40) return false;
      victimId = ids[counts.indexOf(Math.max(...counts))]!;
      return true;
    }, 90_000);
    const victim = running.get(victimId)!;
    assert.ok(landed && !victim.exited(), `the crawl got going: ${victim.stderr()}`);
    victim.child.kill('SIGKILL');
    assert.equal(await victim.exit, null);
    const others = ids.filter((id) => id !== victimId).map((id) => running.get(id)!);
    assert.deepEqual(await Promise.all(others.map((n) => n.exit)), [0, 0], others.map((n) => n.stderr()).join('\n'));
    await checkPoliteness(web.takeRequests(), MIN_DELAY_MS, dir);
    const again = node(victimId, false);
    assert.equal(await again.exit, 0, again.stderr());
    const head = /crawl was already FINISHED \(crawl time (\d+\.\d) s\)/.exec(again.stderr());
    assert.ok(head !== null && Number(head[1]) >= 1, again.stderr());
    const expected = web.expectedUrls().reachable;
    assert.ok(Number(/URIs +(\d+) /.exec(again.stderr())?.[1]) >= expected.length, `the whole crawl's URIs: ${again.stderr()}`);
    await checkWarcsWhole(dir);
    const got = await archived(dir);
    assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    const twice = [...got].filter(([, n]) => n > 1).map(([u]) => u);
    assert.ok(twice.length <= 3, `archived twice: ${twice.join(' ')}`);
    assert.ok((await readdir(path.join(dir, 'warcs'))).some((n) => n.endsWith(`-${victimId}.warc.gz`)), 'its WARC repaired');
  });

  it('a single-host crawl on two nodes: the node left without a host says why', { timeout: 120_000 }, async () => {
    const one = await FixtureWeb.start({ hosts: 1, pagesPerHost: 8, port: 0, latencyMs: 2 });
    try {
      const { node } = await setUp({ seeds: one.seeds });
      const nodes = [node('n1', false), node('n2', false)];
      assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [0, 0], nodes.map((n) => n.stderr()).join('\n'));
      const idle = nodes.filter((n) => /idle +node n\d fetched nothing: every host with URIs was held by another node/.test(n.stderr()));
      assert.equal(idle.length, 1, nodes.map((n) => n.stderr()).join('\n----\n'));
    } finally {
      await one.close();
    }
  });

  it("one node's console shows the whole crawl: every node, the totals, a log tail of every node; a pause there pauses every node", { timeout: 180_000 }, async () => {
    // Slow (600 ms a host): the crawl is still running while the console is asked.
    const { dir, node } = await setUp({ delayMs: 600 });
    const nodes = [node('n1', true, '--console', '--console-port', '0'), node('n2')];
    let out = '';
    nodes[0]!.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const logs = ['n1', 'n2'].map((n) => path.join(dir, 'logs', `crawl-${n}.log`));
    assert.ok(await waitFor(async () => (await Promise.all(logs.map(fileLines))).every((l) => l.length >= 3), 90_000), 'both nodes crawl');
    const url = /console {2}(http:\/\/\S+)\/#token=(\S+)/.exec(out);
    assert.ok(url !== null, `the console line: ${out}`);
    const api = async (p: string, method = 'GET'): Promise<unknown> =>
      (await fetch(`${url[1]}${p}`, { method, headers: { Authorization: `Bearer ${url[2]}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) }, ...(method === 'POST' ? { body: '{}' } : {}) })).json();
    // Paused first, so the crawl waits for the reads however slowly this machine goes.
    await api('/api/crawl/pause', 'POST');
    assert.ok(await waitFor(async () => {
      const before = (await fileLines(logs[1]!)).length;
      await new Promise((r) => setTimeout(r, 1500));
      return (await fileLines(logs[1]!)).length === before;
    }, 30_000), 'n2 paused too');
    const wide = (await api('/api/crawl')) as { crawl?: { nodes: { node: string; alive: boolean }[]; totals: { liveNodes: number } } };
    assert.deepEqual(wide.crawl?.nodes.map((n) => [n.node, n.alive]), [['n1', true], ['n2', true]], JSON.stringify(wide));
    assert.equal(wide.crawl?.totals.liveNodes, 2);
    const tail = (await api('/api/log?tail=200')) as { node?: string }[];
    assert.deepEqual([...new Set(tail.map((l) => l.node))].sort(), ['n1', 'n2'], 'the log tail merges both nodes');
    await api('/api/crawl/resume', 'POST');
    assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [0, 0], nodes.map((n) => n.stderr()).join('\n'));
  });
});
