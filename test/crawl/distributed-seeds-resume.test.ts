/**
 * Promises of a crawl of several processes that no test kept (issue 29 §4,
 * Redis): seeds added on one node while the crawl runs are crawled by the
 * crawl as a whole, exactly once; a two-node crawl stopped with `archiver
 * stop` and resumed by starting its nodes again fetches every URI exactly
 * once overall. Judged from outside: the fixture servers' request logs and
 * the job's WARCs read back with warcio. Real redis-server, real
 * `archiver run` processes; the crawl is held open by a page answered only
 * when the test lets go (held-page.ts), so nothing waits on a guessed time.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { FixtureWeb, type RequestLogEntry } from '../../src/demo/fixture-web.js';
import { fileLines, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { startHeldPage, type HeldPage } from '../helpers/held-page.js';
import { needsRedis, startRedis, type TestRedis } from '../helpers/redis-server.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

/** How many times each URL was asked for, from a server's request log. */
function requestCounts(requests: readonly RequestLogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const url = `http://${r.host}${r.path}`;
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

/** Every URL of `expected` asked for exactly once, and nothing else asked for. */
function assertEachOnce(requests: readonly RequestLogEntry[], expected: readonly string[], what: string): void {
  const counts = requestCounts(requests);
  assert.deepEqual(expected.filter((u) => !counts.has(u)), [], `${what}: every reachable URL asked for`);
  assert.deepEqual([...counts].filter(([, n]) => n > 1), [], `${what}: none asked for twice`);
  const wanted = new Set(expected);
  assert.deepEqual([...counts.keys()].filter((u) => !wanted.has(u)), [], `${what}: nothing else asked for`);
}

/** Captures (response, or revisit of a payload seen before) in the job's WARCs (warcio), by URL → count; and no WARC left open. */
async function archived(dir: string): Promise<Map<string, number>> {
  const names = await readdir(path.join(dir, 'warcs'));
  assert.deepEqual(names.filter((n) => n.endsWith('.open')), [], 'no WARC left open');
  const counts = new Map<string, number>();
  for (const r of await readWarcDir(path.join(dir, 'warcs'))) {
    if (r.type !== 'response' && r.type !== 'revisit') continue;
    assert.ok(r.status !== null && r.status >= 100, `${r.url}: a ${r.type} record with an HTTP status`);
    counts.set(r.url, (counts.get(r.url) ?? 0) + 1);
  }
  return counts;
}

describe('a crawl of two processes on one Redis: seeds added while it runs, and a stop then a resume', needsRedis(), () => {
  let tmp = '';
  let redis: TestRedis;
  let crawls = 0;
  const children: CliChild[] = [];
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-seeds-resume-'));
    redis = await startRedis();
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (!c.exited()) c.child.kill('SIGKILL');
  });
  after(async () => {
    await redis?.dispose();
    await rm(tmp, { recursive: true, force: true });
  });

  /** A profile of its own (crawl name, job directory, Redis database) and a way to start a node of it. */
  async function setUp(seeds: readonly string[], delayMs: number) {
    const name = `seeds${++crawls}`;
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    const spec = redis.spec(crawls);
    const profile = testProfileJson(name, seeds, dir, {
      politeness: { delayFactor: 0, minDelayMs: delayMs, maxDelayMs: delayMs },
      // The held page is answered only when the test lets go.
      limits: { fetchTimeoutMs: 300_000, maxRetries: 2, retryDelayMs: 10 },
      workers: 3,
    });
    await writeFile(file, JSON.stringify(profile));
    const node = (id: string, args: string[] = []): CliChild => {
      const c = startCli(['run', file, '--store', spec, '--node', id, '--quiet', ...args]);
      children.push(c);
      return c;
    };
    const logOf = (id: string): string => path.join(dir, 'logs', `crawl-${id}.log`);
    return { name, dir, spec, node, logOf };
  }

  /** The console line of a node started with `--console --console-port 0`, as a JSON API caller. */
  async function consoleOf(c: CliChild): Promise<(p: string, body?: unknown) => Promise<unknown>> {
    let out = '';
    c.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    assert.ok(await waitFor(() => /console {2}http:\/\/\S+\/#token=\S+/.test(out) || c.exited(), 60_000), 'the console line');
    const m = /console {2}(http:\/\/\S+)\/#token=(\S+)/.exec(out);
    assert.ok(m !== null, `the console line: ${out} ${c.stderr()}`);
    return async (p, body) => {
      const res = await fetch(`${m[1]}${p}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { Authorization: `Bearer ${m[2]}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.equal(res.status, 200, `${p}: HTTP ${res.status}`);
      return res.json();
    };
  }

  it("seeds added through one node's console are crawled by the crawl as a whole, each URI once", { timeout: 240_000 }, async (t) => {
    const held = await startHeldPage();
    // The added seeds' web: nothing of the crawl links to it (other addresses, other port).
    const added = await FixtureWeb.start({ hosts: 3, pagesPerHost: 6, port: 0, firstAddress: 40, latencyMs: 2 });
    try {
      const { dir, node, logOf } = await setUp([held.url], 20);
      const n1 = node('n1', ['--console', '--console-port', '0']);
      const n2 = node('n2');
      const api = await consoleOf(n1);
      await held.arrival();
      // Both nodes are in the crawl before the seeds come (n1 holds the one host so far; n2 waits for work).
      const alive = async (): Promise<string[]> => ((await api('/api/crawl')) as { crawl?: { nodes: { node: string; alive: boolean }[] } }).crawl?.nodes.filter((n) => n.alive).map((n) => n.node) ?? [];
      assert.ok(await waitFor(async () => (await alive()).length === 2 || n2.exited(), 120_000, 100), `n2 joins: ${n2.stderr()}`);
      assert.ok(!n2.exited(), `n2 still in the crawl: ${n2.stderr()}`);
      const answer = (await api('/api/crawl/seeds', { urls: added.seeds })) as { added: string[]; rejected: unknown[] };
      assert.deepEqual([answer.added, answer.rejected], [added.seeds, []], JSON.stringify(answer));
      // Every seed's web crawled while the held page still holds the crawl open: the added seeds did not wait for its end.
      const expected = added.expectedUrls().reachable;
      const allAsked = (): boolean => {
        const counts = requestCounts(added.requests);
        return expected.every((u) => counts.has(u));
      };
      if (!(await waitFor(allAsked, 120_000, 50))) {
        const logs = (await Promise.all(['n1', 'n2'].map(async (id) => (await fileLines(logOf(id))).map((l) => `${id} ${l.slice(0, 140)}`)))).flat();
        assert.fail(`the added seeds' web crawled while the crawl was held open; asked for: ${[...requestCounts(added.requests).keys()].join(' ')}\n${logs.join('\n')}\n${n1.stderr()}\n${n2.stderr()}`);
      }
      held.release();
      assert.deepEqual(await Promise.all([n1.exit, n2.exit]), [0, 0], `${n1.stderr()}\n${n2.stderr()}`);
      assertEachOnce(added.takeRequests(), expected, 'the added seeds\' web');
      assert.equal(held.requests(), 1, 'the held page asked for once');
      const got = await archived(dir);
      assert.deepEqual(expected.filter((u) => got.get(u) !== 1), [], 'each added seed\'s URI archived once');
      const lines = await Promise.all(['n1', 'n2'].map(async (id) => (await fileLines(logOf(id))).filter((l) => expected.includes(l.split(/\s+/)[3]!)).map((l) => `${id} ${l}`)));
      const byNode = lines.map((l) => l.length);
      const urlOf = (l: string): string => l.split(/\s+/)[4]!;
      const twice = lines.flat().filter((l, _, all) => all.filter((m) => urlOf(m) === urlOf(l)).length > 1);
      assert.deepEqual(twice, [], `crawl.log lines of a URI logged more than once (lines by node: ${byNode.join(', ')})`);
      assert.equal(byNode[0]! + byNode[1]!, expected.length, `crawl.log lines of the added web by node: ${byNode.join(', ')}`);
      t.diagnostic(`the added web's URIs fetched by n1, n2: ${byNode.join(', ')}`);
    } finally {
      await added.close();
      await held.close();
    }
  });

  it('stopped with `archiver stop` and resumed by starting both nodes again: every URI fetched once overall, WARCs whole', { timeout: 240_000 }, async (t) => {
    const held: HeldPage = await startHeldPage();
    const web = await FixtureWeb.start({ hosts: 4, pagesPerHost: 10, port: 0, firstAddress: 60, latencyMs: 2 });
    try {
      // Two pages of the held host wait behind it (one connection per host): work surely left at the stop.
      const behind = [`${held.origin}/behind-1`, `${held.origin}/behind-2`];
      const { dir, spec, name, node, logOf } = await setUp([held.url, ...behind, ...web.seeds], 300);
      const first = [node('n1', ['--console', '--console-port', '0']), node('n2', ['--console', '--console-port', '0'])];
      const apis = await Promise.all(first.map(consoleOf));
      await held.arrival();
      assert.ok(await waitFor(async () => (await fileLines(logOf('n1'))).length > 0 && (await fileLines(logOf('n2'))).length > 0, 120_000), 'both nodes crawl');
      const stop = startCli(['stop', spec, '--crawl', name]);
      assert.equal(await stop.exit, 0, stop.stderr());
      // Every node follows the crawl's stop flag (within a second): only then is the held fetch, in
      // flight at the stop, let finish (and archived); released earlier, a node not yet stopping went on.
      // A node with nothing in flight ends at once: its console, which answered before, closes
      // as it shuts down (the connection refused before the process is seen to exit).
      const stateOf = async (i: number): Promise<string> => {
        if (first[i]!.exited()) return 'exited';
        try {
          return ((await apis[i]!('/api/crawl')) as { state: string }).state;
        } catch (err) {
          const code = (err as { cause?: { code?: string } }).cause?.code ?? '';
          if (['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code) || first[i]!.exited()) return 'closing';
          throw err;
        }
      };
      const stopping = async (): Promise<boolean> => (await Promise.all([0, 1].map(stateOf))).every((s) => s === 'stopping' || s === 'closing' || s === 'exited');
      assert.ok(await waitFor(stopping, 60_000, 100), 'both nodes stopping');
      held.release();
      assert.deepEqual(await Promise.all(first.map((n) => n.exit)), [130, 130], first.map((n) => n.stderr()).join('\n'));
      const firstRun = web.requests.length;
      assert.equal(held.requests(), 1);
      const fetchedBehind = (await Promise.all(['n1', 'n2'].map((id) => fileLines(logOf(id))))).flat().filter((l) => behind.includes(l.split(/\s+/)[3]!));
      assert.deepEqual(fetchedBehind, [], 'the pages behind the held one were not fetched before the stop');

      const again = [node('n1'), node('n2')];
      assert.deepEqual(await Promise.all(again.map((n) => n.exit)), [0, 0], again.map((n) => n.stderr()).join('\n'));
      const expected = web.expectedUrls().reachable;
      t.diagnostic(`${firstRun} of the fixture web's ${expected.length} URLs asked for before the stop`);
      assertEachOnce(web.takeRequests(), expected, 'over both runs');
      assert.equal(held.requests(), 1, 'the held page not asked for again on resume');
      const got = await archived(dir);
      const all = [...expected, held.url, ...behind];
      assert.deepEqual(all.filter((u) => got.get(u) !== 1), [], 'every URI archived exactly once over both runs');
    } finally {
      await web.close();
      await held.close();
    }
  });
});
