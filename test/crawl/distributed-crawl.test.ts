/**
 * One crawl, three processes, one Redis: `archiver run <profile> --store
 * redis://… --node nX` started three times against the loopback fixture
 * web. Judged from outside, as the issue asks: the web server's own log
 * (at most one request in flight per host, and the profile's minimum gap
 * between a host's requests, across all nodes), and the union of the
 * nodes' WARCs (every reachable URL archived, and only once except URIs in
 * flight on a killed node; every gzip member one whole record). Also: a
 * node killed with SIGKILL mid-crawl (the others finish its queues once
 * its leases expire; restarted, it repairs its WARCs and exits 0), and
 * Redis stopped for 5 s mid-crawl (the nodes wait, say so, and finish).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, before, describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { fileLines, sleep, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { finalizeJob } from '../../src/wacz/finalize-job.js';
import { startHeldPage } from '../helpers/held-page.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { archived, checkPoliteness, checkWarcsWhole } from '../helpers/node-crawl-checks.js';

const MIN_DELAY_MS = 50;

/** The parts of `archiver status --json` these tests read. */
interface StatusReport {
  crawl: string;
  finished: string | null;
  stopped: boolean;
  nodes: { node: string; alive: boolean; pages: number }[];
  queues: { queuedUris: number };
  totals: { liveNodes: number; pages: number; inFlight: number };
}

describe('a crawl of three processes on Redis', needsRedis(), () => {
  let tmp: string;
  let redis: TestRedis;
  let web: FixtureWeb;
  let crawls = 0;
  const children: CliChild[] = [];
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-nodes-'));
    redis = await startRedis();
    web = await FixtureWeb.start({ hosts: 5, pagesPerHost: 14, port: 0, latencyMs: 2 });
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await web?.close();
    await redis?.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  /**
   * A profile (its own crawl name and job directory) and a way to start a node of it; `db` is
   * the Redis database, `seeds` the fixture's by default, `fetchTimeoutMs` 5 s unless a test
   * holds a fetch open longer.
   */
  async function setUp(delayMs = MIN_DELAY_MS, opts: { db?: number; seeds?: readonly string[]; fetchTimeoutMs?: number; storeInProfile?: boolean } = {}) {
    const name = `nodes${++crawls}`;
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    const spec = redis.spec(opts.db ?? 0);
    await writeFile(
      file,
      JSON.stringify(
        testProfileJson(name, opts.seeds ?? web.seeds, dir, {
          politeness: { delayFactor: 0, minDelayMs: delayMs, maxDelayMs: delayMs },
          limits: { fetchTimeoutMs: opts.fetchTimeoutMs ?? 5000, maxRetries: 2, retryDelayMs: 10 },
          workers: 3,
          ...(opts.storeInProfile === true ? { store: spec } : {}),
        }),
      ),
    );
    web.takeRequests();
    const node = (id: string, ...more: string[]): CliChild => {
      const c = startCli(['run', file, ...(opts.storeInProfile === true ? [] : ['--store', spec]), '--node', id, '--quiet', ...more]);
      children.push(c);
      return c;
    };
    return { name, dir, file, node, spec };
  }

  /** `archiver status SPEC ARGS…`: its exit code, stdout and stderr. */
  async function statusOf(spec: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const c = startCli(['status', spec, ...args]);
    let out = '';
    c.child.stdout!.removeAllListeners('data');
    c.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    return { code: await c.exit, out, err: c.stderr() };
  }

  /** Every key of Redis database `db`, through redis-cli's own connection. */
  async function redisKeys(db: number): Promise<string[]> {
    const { stdout } = await promisify(execFile)('redis-cli', ['-p', String(redis.port), '-n', String(db), '--scan']);
    return stdout.split('\n').filter((k) => k !== '');
  }

  it('three nodes: one request per host at a time, the delay across nodes, every page once, one package', { timeout: 120_000 }, async () => {
    const { dir, node } = await setUp();
    const nodes = [node('n1'), node('n2'), node('n3')];
    const codes = await Promise.all(nodes.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    const expected = web.expectedUrls().reachable;
    const got = await archived(dir);
    assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    assert.deepEqual([...got].filter(([, n]) => n > 1), [], 'none archived twice');
    const requests = web.takeRequests();
    await checkPoliteness(requests, MIN_DELAY_MS, dir);
    // robots.txt fetched once per host, whichever node got there first.
    const robots = requests.filter((r) => r.path === '/robots.txt').map((r) => r.host).sort();
    assert.deepEqual(robots, web.origins.map((o) => new URL(o).host).sort(), 'robots.txt once per host across the nodes');
    await checkWarcsWhole(dir);
    const logs = (await readdir(path.join(dir, 'logs'))).sort();
    assert.deepEqual(logs, ['crawl-n1.log', 'crawl-n2.log', 'crawl-n3.log']);
    const perNode = await Promise.all(logs.map(async (l) => (await fileLines(path.join(dir, 'logs', l))).length));
    assert.ok(perNode.filter((n) => n > 0).length >= 2, `work spread over the nodes: ${perNode.join(', ')} crawl.log lines`);
    const nodesReport = JSON.parse(await readFile(path.join(dir, 'reports', 'nodes.json'), 'utf8')) as { nodes: { node: string; pages: number }[] };
    assert.deepEqual(nodesReport.nodes.map((n) => n.node), ['n1', 'n2', 'n3']);
    assert.equal(nodesReport.nodes.reduce((s, n) => s + n.pages, 0), expected.length, `${await readFile(path.join(dir, 'reports', 'nodes.txt'), 'utf8')} ${perNode}`);
    const report = JSON.parse(await readFile(path.join(dir, 'reports', 'crawl-report.json'), 'utf8')) as { uris: number; status: string };
    assert.equal(report.status, 'FINISHED');
    assert.equal(report.uris, expected.length, 'the crawl report sums every node');
    assert.ok((await readdir(dir)).some((n) => n.endsWith('.wacz')));
  });

  it('a node killed with SIGKILL mid-crawl: the others finish its queues; restarted, it repairs its WARCs and exits 0', { timeout: 180_000 }, async () => {
    const { dir, node } = await setUp();
    const ids = ['n1', 'n2', 'n3'];
    const running = new Map(ids.map((id) => [id, node(id)]));
    const logOf = (id: string): string => path.join(dir, 'logs', `crawl-${id}.log`);
    // The victim is whichever node has crawled most once the crawl is under way (it surely holds queues).
    let victimId = '';
    const landed = await waitFor(async () => {
      const counts = await Promise.all(ids.map(async (id) => (await fileLines(logOf(id))).length));
      if (counts.reduce((a, b) => a + b, 0) < 40) return false;
      victimId = ids[counts.indexOf(Math.max(...counts))]!;
      return true;
    }, 60_000);
    const victim = running.get(victimId)!;
    assert.ok(landed && !victim.exited(), `the crawl got going: ${victim.stderr()}`);
    victim.child.kill('SIGKILL');
    assert.equal(await victim.exit, null);
    const victimLog = logOf(victimId);
    const killedLines = (await fileLines(victimLog)).length;
    const others = ids.filter((id) => id !== victimId).map((id) => running.get(id)!);
    const codes = await Promise.all(others.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0], others.map((n) => n.stderr()).join('\n'));
    await checkPoliteness(web.takeRequests(), MIN_DELAY_MS, dir);
    assert.ok((await readdir(path.join(dir, 'warcs'))).some((n) => n.endsWith(`-${victimId}.warc.gz.open`)), "the killed node's WARC is left open");

    const again = node(victimId);
    assert.equal(await again.exit, 0, again.stderr());
    assert.ok((await fileLines(victimLog)).length >= killedLines - 1, 'its crawl.log kept (a cut line dropped)');
    assert.deepEqual(web.takeRequests().map((r) => `${r.host}${r.path}`), [], 'the restarted node fetched nothing, not even a robots.txt: the crawl was finished');
    await checkWarcsWhole(dir);
    // The union of the WARCs, the repaired one included: everything, and twice only what the
    // killed node had in flight (3 workers, whose records may have reached its WARC), fetched again by another.
    const expected = web.expectedUrls().reachable;
    const got = await archived(dir);
    assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived');
    const twice = [...got].filter(([, n]) => n > 1).map(([u]) => u);
    assert.ok(twice.length <= 3, `archived twice: ${twice.join(' ')}`);
    const index = await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8');
    const repaired = (await readdir(path.join(dir, 'warcs'))).filter((n) => n.endsWith(`-${victimId}.warc.gz`));
    assert.ok(repaired.length > 0 && repaired.every((n) => index.includes(n)), 'the package rebuilt over the repaired WARCs');
    // Packaged from the nodes' journals (and the WARCs they do not cover): the same index as from every WARC's bytes.
    await finalizeJob({ jobDir: dir, name: 'check', software: 'test', seeds: [], ignoreJournal: true });
    assert.equal(index, await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8'), 'index.cdxj from the journals = from the WARCs');
  });

  it('Redis stopped for 5 s mid-crawl and started again: the nodes wait, say so, and finish; nothing is lost', { timeout: 180_000 }, async () => {
    const { dir, node } = await setUp();
    const nodes = [node('n1'), node('n2'), node('n3')];
    const logs = ['n1', 'n2', 'n3'].map((n) => path.join(dir, 'logs', `crawl-${n}.log`));
    const lines = async () => (await Promise.all(logs.map(fileLines))).reduce((s, l) => s + l.length, 0);
    assert.ok(await waitFor(async () => (await lines()) >= 30, 60_000), 'the crawl got going');
    await redis.stop();
    await sleep(5000);
    await redis.start();
    const codes = await Promise.all(nodes.map((n) => n.exit));
    assert.deepEqual(codes, [0, 0, 0], nodes.map((n) => n.stderr()).join('\n'));
    assert.ok(nodes.some((n) => /Redis at .* unreachable/.test(n.stderr())), 'a node said Redis was gone');
    assert.ok(nodes.some((n) => /Redis at .* is back/.test(n.stderr())), 'and that it was back');
    const expected = web.expectedUrls().reachable;
    const got = await archived(dir);
    const missing = expected.filter((u) => !got.has(u));
    const parents = await Promise.all(missing.slice(0, 3).map(async (u) => `${u} <- ${(await Promise.all(logs.map(fileLines))).flat().filter((l) => l.includes(u)).map((l) => l.slice(0, 160)).join(' | ')}`));
    assert.deepEqual(missing, [], `every reachable URL archived: ${parents.join('\n')}`);
    await checkWarcsWhole(dir);
  });

  it('status (JSON and text, with or without --crawl) shows every node and the queues; stop stops every node (130); --fresh is refused meanwhile; the same commands resume', { timeout: 300_000 }, async () => {
    // Held open by a page answered only once stop was sent, with two more pages of its host queued
    // behind it (one connection a host): the crawl can neither end nor run out of work while the
    // twin, the stranger, --fresh and status start (a 300 ms delay alone raced five process
    // starts). Database 1 holds this crawl alone, so status and stop may leave out --crawl.
    const held = await startHeldPage();
    try {
      const behind = [`${held.origin}/behind-1`, `${held.origin}/behind-2`];
      const { name, dir, file, node, spec } = await setUp(300, { db: 1, seeds: [held.url, ...behind, ...web.seeds], fetchTimeoutMs: 300_000 });
      const nodes = [node('n1'), node('n2')];
      const logs = ['n1', 'n2'].map((n) => path.join(dir, 'logs', `crawl-${n}.log`));
      await held.arrived;
      const counts = async () => (await Promise.all(logs.map(fileLines))).map((l) => l.length);
      const both = await waitFor(async () => (await counts()).every((n) => n >= 1), 120_000);
      assert.ok(both, `both nodes crawl: ${(await counts()).join(', ')} crawl.log lines; ${nodes.map((n) => n.stderr()).join(' | ')}`);
      const bare = await statusOf(spec, ['--json']);
      assert.equal(bare.code, 0, bare.err);
      const report = JSON.parse(bare.out) as StatusReport;
      assert.equal(report.crawl, name);
      assert.deepEqual(report.nodes.map((n) => [n.node, n.alive]), [['n1', true], ['n2', true]]);
      assert.equal(report.totals.liveNodes, 2);
      assert.equal(report.finished, null);
      assert.equal(report.stopped, false);
      assert.ok(report.totals.inFlight >= 1, `the held fetch is in flight: ${bare.out}`);
      assert.equal(report.totals.pages, report.nodes.reduce((sum, n) => sum + n.pages, 0), 'totals sum the nodes');
      assert.ok(report.nodes.every((n) => n.pages >= 1), `both nodes have pages: ${bare.out}`);
      assert.ok(report.queues.queuedUris > 0, `URIs still queued (300 ms a host): ${bare.out}`);
      const named = await statusOf(spec, ['--crawl', name, '--json']);
      assert.equal(named.code, 0, named.err);
      assert.equal((JSON.parse(named.out) as StatusReport).crawl, name);
      const text = await statusOf(spec, []);
      assert.equal(text.code, 0, text.err);
      assert.match(text.out, new RegExp(`^crawl ${name}: running$`, 'm'));
      assert.match(text.out, /^nodes 2 alive of 2$/m);
      assert.match(text.out, /^ {2}n1 {4}yes {4}\d{4}-\d\d-\d\dT[\d:.]+Z +\d+ +[\d.]+ +\d+$/m);
      assert.match(text.out, /^ {2}n2 {4}yes /m);
      assert.match(text.out, /^queues .*; waiting for a node \d+, held \d+, retired \d+$/m);
      assert.match(text.out, /^queued URIs [1-9]\d*$/m);

      const twin = node('n1');
      assert.equal(await twin.exit, 2, 'a node id alive in the crawl is refused');
      assert.match(twin.stderr(), /node "n1" is alive/);
      const otherProfile = path.join(tmp, `${name}-other.json`);
      await writeFile(otherProfile, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), workers: 7 }));
      const stranger = startCli(['run', otherProfile, '--store', spec, '--node', 'n8', '--quiet']);
      children.push(stranger);
      assert.equal(await stranger.exit, 2, 'a node with another profile is refused');
      assert.match(stranger.stderr(), /different profile/);

      const fresh = node('n9', '--fresh');
      assert.equal(await fresh.exit, 2, 'a fresh start is refused while nodes are alive');
      assert.match(fresh.stderr(), /live nodes/);
      assert.equal(held.requests(), 1, 'the held page asked for once');

      const stop = startCli(['stop', spec]);
      assert.equal(await stop.exit, 0, stop.stderr());
      held.release();
      assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [130, 130], nodes.map((n) => n.stderr()).join('\n'));

      const again = [node('n1'), node('n2')];
      assert.deepEqual(await Promise.all(again.map((n) => n.exit)), [0, 0], again.map((n) => n.stderr()).join('\n'));
      const expected = [...web.expectedUrls().reachable, held.url, ...behind];
      const got = await archived(dir);
      assert.deepEqual(expected.filter((u) => !got.has(u)), [], 'every reachable URL archived over both runs');
      const twice = [...got].filter(([, n]) => n > 1);
      // On failure: which node fetched each such URL, and when (two nodes holding one host at once showed so).
      const all = twice.length === 0 ? [] : (await Promise.all(logs.map(async (l) => (await fileLines(l)).map((x) => `${path.basename(l)} ${x}`)))).flat();
      const told = twice.slice(0, 3).map(([u]) => all.filter((l) => l.includes(` ${u} `)).join('\n'));
      assert.deepEqual(twice, [], `none twice: the stop let fetches in flight finish\n${told.join('\n')}`);

      // A second crawl in the database: now status and stop must be told which one.
      const second = await setUp(0, { db: 1, seeds: [held.url] });
      assert.equal(await second.node('n1').exit, 0);
      for (const command of ['status', 'stop']) {
        const several = startCli([command, spec]);
        assert.equal(await several.exit, 2, `${command} without --crawl`);
        assert.match(several.stderr(), new RegExp(`several crawls; name one with --crawl: (${name}, ${second.name}|${second.name}, ${name})`));
      }
    } finally {
      await held.close();
    }
  });

  it('--fresh with no node alive deletes the crawl\'s keys in Redis and crawls again from the seeds (the store named in the profile)', { timeout: 120_000 }, async () => {
    const held = await startHeldPage();
    try {
      held.release();
      // The profile's own store: "redis://…", no --store on the command line.
      const { name, node, spec } = await setUp(0, { db: 2, seeds: [held.url], storeInProfile: true });
      assert.equal(await node('n1').exit, 0);
      assert.equal(held.requests(), 1);
      const keysOf = async () => (await redisKeys(2)).filter((k) => k.includes(name));
      assert.ok((await keysOf()).length > 0, 'the crawl keeps its state in Redis');
      const finished = node('n1');
      assert.equal(await finished.exit, 0, finished.stderr());
      assert.equal(held.requests(), 1, 'a finished crawl fetches nothing more');
      const fresh = node('n1', '--fresh');
      assert.equal(await fresh.exit, 0, fresh.stderr());
      assert.match(fresh.stderr(), new RegExp(`deleted crawl "${name}" from ${spec.replace(/[/.]/g, '\\$&')}`));
      assert.equal(held.requests(), 2, 'with --fresh the seed is fetched again');
    } finally {
      await held.close();
    }
  });
});

