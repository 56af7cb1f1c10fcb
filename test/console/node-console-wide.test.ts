/**
 * A node's own console (`archiver run --console` of a node of a shared
 * crawl) lists every node's queues and hosts (issue 27: "any node's console
 * … shows the whole crawl: … queues and hosts across nodes"). Before, its
 * /api/crawl showed the whole crawl but /api/queues and /api/hosts only the
 * node's own: a queue held by the other node, and a host only the other
 * node fetched, were missing. Two real `archiver run` nodes crawl the
 * loopback fixture web through a real redis-server, held open by a page
 * answered only once the test lets go; n2 starts first, and n1, which has
 * the console, joins once n2 has fetched from every host. n1's
 * /api/queues must list n2's queues with n2's id beside its own with their
 * live detail (a host's error count, which the store does not keep), its
 * /api/hosts the hosts only n2 fetched beside its own with their bytes
 * (live too), each row once, and paging with `after` must walk each list
 * whole without repeats; the page's host table shows the node column.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { fileLines, sleep, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { needs } from '../helpers/programs.js';
import { needsRedis } from '../helpers/redis-server.js';
import { nodesWeb } from '../helpers/nodes-web.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { CHROMIUM } from '../replay/browser.js';

interface Queue {
  key: string;
  state: string;
  errors: number | null;
  node?: string | null;
}

interface Host {
  host: string;
  fetched: number;
  bytes: number;
  delayMs: number | null;
  node?: string | null;
}

const needsBoth = (): { skip?: string } => (needsRedis().skip !== undefined ? needsRedis() : needs('chromium', 'chromium'));

/** The hosts (as URLs write them) a node fetched: those of its crawl.log's captures (a status above 0; refusals are not fetches). */
async function loggedHosts(file: string): Promise<Set<string>> {
  const hosts = new Set<string>();
  for (const line of await fileLines(file)) {
    const [, status, , url] = line.trim().split(/\s+/);
    if (Number(status) > 0 && url !== undefined && /^https?:\/\//.test(url)) hosts.add(new URL(url).host);
  }
  return hosts;
}

/** Queue keys are host#port (a default https port left out). */
const queueKeyOf = (host: string): string => host.replace(':', '#');

describe("a node's own console lists every node's queues and hosts", needsBoth(), () => {
  // Pages enough that, 400 ms apart per host, the crawl is far from done while the lists are read.
  const nw = nodesWeb('archiver-node-console-', 40);

  it("n1's /api/queues and /api/hosts: n2's rows with n2's id, its own live, each once, paged whole with after; the host table's node column", { timeout: 240_000 }, async () => {
    const { tmp, redis, web, held, children } = nw;
    const name = 'wide';
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    const spec = redis.spec(0);
    await writeFile(
      file,
      JSON.stringify(
        testProfileJson(name, [held.url, ...web.seeds], dir, {
          politeness: { delayFactor: 0, minDelayMs: 400, maxDelayMs: 400 },
          limits: { fetchTimeoutMs: 300_000, maxRetries: 1, retryDelayMs: 10 },
          workers: 3,
        }),
      ),
    );
    const start = (id: string, args: string[] = []): CliChild => {
      const c = startCli(['run', file, '--store', spec, '--node', id, '--quiet', ...args]);
      children.push(c);
      return c;
    };
    // n2 first, alone until it has fetched from every host; then n1, to which n2 hands on the queues
    // beyond its share: the hosts n2 keeps are fetched by n2 only (started together, either node
    // could take every queue first and fetch from every host before handing some on).
    const logs = ['n1', 'n2'].map((id) => path.join(dir, 'logs', `crawl-${id}.log`));
    const n2 = start('n2');
    await held.arrival();
    const webHosts = web.origins.map((o) => new URL(o).host);
    let n2Hosts = new Set<string>();
    const everyHost = async (): Promise<boolean> => {
      n2Hosts = await loggedHosts(logs[1]!);
      return webHosts.every((h) => n2Hosts.has(h));
    };
    assert.ok(await waitFor(async () => (await everyHost()) || n2.exited(), 60_000, 250) && !n2.exited(), `n2 fetched from every host: ${JSON.stringify([...n2Hosts])} ${n2.stderr()}`);
    const nodes = [start('n1', ['--console', '--console-port', '0']), n2];
    let out = '';
    nodes[0]!.child.stdout!.removeAllListeners('data');
    nodes[0]!.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    assert.ok(await waitFor(() => /console {2}http/.test(out) || nodes[0]!.exited(), 60_000), `n1 printed its console: ${nodes[0]!.stderr()}`);
    const m = /console {2}(http:\/\/\S+)\/#token=(\S+)/.exec(out);
    assert.ok(m !== null, `${out} ${nodes[0]!.stderr()}`);
    const api = async (p: string, method = 'GET'): Promise<any> => {
      const res = await fetch(`${m[1]}${p}`, { method, headers: { Authorization: `Bearer ${m[2]}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) }, ...(method === 'POST' ? { body: '{}' } : {}) });
      const json = await res.json();
      assert.equal(res.status, 200, `${method} ${p}: ${JSON.stringify(json)}`);
      return json;
    };

    // Wait until each node holds queues and n2 has fetched a host n1 never fetched.
    const onlyN2 = async (): Promise<string[]> => {
      const [mine, theirs] = await Promise.all(logs.map(loggedHosts));
      return [...theirs!].filter((h) => !mine!.has(h));
    };
    const holders = async (): Promise<Set<unknown>> => new Set(((await api('/api/queues?limit=1000')) as Queue[]).map((q) => q.node));
    // n1's own host rows carry the bytes it downloaded (kept in its memory; the store keeps none).
    const ownBytes = async (): Promise<boolean> => ((await api('/api/hosts?limit=1000')) as Host[]).some((h) => h.node === 'n1' && h.bytes > 0);
    const ready = await waitFor(async () => (await onlyN2()).length > 0 && (await loggedHosts(logs[0]!)).size > 0 && (await holders()).has('n2') && (await holders()).has('n1') && (await ownBytes()), 120_000, 250);
    assert.ok(ready, `both nodes hold queues, n2 alone fetched a host: only n2 ${JSON.stringify(await onlyN2())}; queues ${JSON.stringify(await api('/api/queues?limit=1000'))}; ${nodes.map((n) => n.stderr()).join(' | ')}`);
    // Paused from n1's console (every node pauses): the lists hold still while they are walked.
    assert.deepEqual(await api('/api/crawl/pause', 'POST'), { state: 'paused' });
    assert.ok(await waitFor(async () => {
      const before = web.requests.length;
      await sleep(1500);
      return web.requests.length === before;
    }, 30_000, 0), 'both nodes paused');

    // Queues: n2's with n2's id as the store holds them; n1's with their live detail; each key once.
    const queues = (await api('/api/queues?limit=1000')) as Queue[];
    const keys = queues.map((q) => q.key);
    assert.equal(new Set(keys).size, keys.length, `each queue once: ${JSON.stringify(queues)}`);
    assert.deepEqual(keys, [...keys].sort(), 'in key order');
    const theirs = queues.filter((q) => q.node === 'n2');
    const mine = queues.filter((q) => q.node === 'n1');
    assert.ok(theirs.length > 0 && theirs.every((q) => q.errors === null), `n2's queues, from the store: ${JSON.stringify(queues)}`);
    // (A queue n1's lease holds in the store while its frontier takes it in or hands it on is a store row: some, not every.)
    assert.ok(mine.some((q) => typeof q.errors === 'number'), `n1's own queues, live (their host's errors): ${JSON.stringify(queues)}`);
    const n2Only = await onlyN2();
    assert.ok(n2Only.some((h) => theirs.some((q) => q.key === queueKeyOf(h))), `a queue of a host only n2 fetched, held by n2: ${JSON.stringify(n2Only)} ${JSON.stringify(theirs)}`);
    const n1Hosts = await loggedHosts(logs[0]!);
    assert.ok(mine.some((q) => [...n1Hosts].some((h) => q.key === queueKeyOf(h))), `a queue of a host n1 fetched among its own: ${JSON.stringify([...n1Hosts])} ${JSON.stringify(mine)}`);
    // The state filter applies to every node's rows. Paused nodes still hand queues on and take them in
    // (a queue seen inactive may be another node's pending one a moment later: seen once in CI), so each
    // filtered list is compared with a full list read just after it, until the two agree.
    let filtered = 0;
    for (const state of new Set(queues.map((q) => q.state))) {
      let only: Queue[] = [];
      let all: Queue[] = [];
      const agree = async (): Promise<boolean> => {
        only = (await api(`/api/queues?limit=1000&state=${state}`)) as Queue[];
        all = (await api('/api/queues?limit=1000')) as Queue[];
        const want = all.filter((q) => q.state === state).map((q) => q.key);
        return only.every((q) => q.state === state) && JSON.stringify(only.map((q) => q.key)) === JSON.stringify(want);
      };
      assert.ok(await waitFor(agree, 15_000, 200), `state=${state}: ${JSON.stringify(only)} against ${JSON.stringify(all)}`);
      filtered += only.length;
    }
    assert.ok(filtered > 0, 'the filtered lists hold the queues');

    // Hosts: every host only n2 fetched is there; n1's own with their bytes (kept in n1's memory only); each host once.
    const hosts = (await api('/api/hosts?limit=1000')) as Host[];
    const names = hosts.map((h) => h.host);
    assert.equal(new Set(names).size, names.length, `each host once: ${JSON.stringify(hosts)}`);
    for (const h of n2Only) assert.ok(names.includes(h), `${h}, fetched only by n2, is listed: ${JSON.stringify(hosts)}`);
    for (const h of n1Hosts) {
      const row = hosts.find((r) => r.host === h);
      assert.ok(row !== undefined && row.node === 'n1' && row.fetched > 0, `${h}, fetched by n1, is its own row: ${JSON.stringify(row)}`);
    }
    assert.ok(hosts.some((r) => r.node === 'n1' && r.bytes > 0), `n1's rows carry bytes: ${JSON.stringify(hosts)}`);
    const byFetched = (await api('/api/hosts?limit=1000&sort=fetched')) as Host[];
    assert.deepEqual(byFetched.map((h) => h.host).sort(), [...names].sort(), 'sorted by fetched: the same hosts');
    assert.ok(byFetched.every((h, i) => i === 0 || byFetched[i - 1]!.fetched >= h.fetched), 'most fetched first');

    // Paging with after walks each whole list, without repeats.
    const walk = async (route: string, key: (row: any) => string): Promise<string[]> => {
      const seen: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const last = seen[seen.length - 1];
        const page = (await api(`${route}?limit=2${last !== undefined ? `&after=${encodeURIComponent(last)}` : ''}`)) as unknown[];
        if (page.length === 0) return seen;
        assert.ok(page.length <= 2, 'a page holds at most limit rows');
        seen.push(...page.map(key));
      }
      throw new Error(`${route}: no end after 1000 pages`);
    };
    assert.deepEqual(await walk('/api/queues', (q: Queue) => q.key), keys, 'the queues, page by page');
    assert.deepEqual(await walk('/api/hosts', (h: Host) => h.host), [...names].sort(), 'the hosts, page by page');

    // The page: the host table has a node column, with n2 beside a host only n2 fetched.
    const browserDir = await mkdtemp(path.join(os.tmpdir(), 'archiver-chromium-'));
    const context = await chromium.launchPersistentContext(browserDir, { executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const page = await context.newPage();
      await page.goto(`${m[1]}/#token=${m[2]}`);
      // Host and node, row by row.
      const table = async (): Promise<string[][]> => {
        const [host, node] = await Promise.all([1, 2].map((n) => page.locator(`#hosts-table tbody tr td:nth-child(${n})`).allTextContents()));
        return host!.map((h, i) => [h, node![i] ?? '']);
      };
      const first = n2Only[0]!;
      assert.ok(await waitFor(async () => (await table()).some((r) => r[0] === first), 30_000, 250), `the host table lists ${first}: ${JSON.stringify(await table())}`);
      assert.ok(await page.locator('#hosts-node').isVisible(), 'the node column is shown');
      const rows = await table();
      assert.equal(rows.find((r) => r[0] === first)![1], hosts.find((h) => h.host === first)!.node ?? '–', `${first}'s node: ${JSON.stringify(rows)}`);
      const ownHost = [...n1Hosts][0]!;
      assert.equal(rows.find((r) => r[0] === ownHost)?.[1], 'n1', `${ownHost} is n1's: ${JSON.stringify(rows)}`);
    } finally {
      await context.close();
      await rm(browserDir, { recursive: true, force: true });
    }

    // Stopped from n1's console: both nodes end once the held fetch is answered.
    assert.deepEqual(await api('/api/crawl/stop', 'POST'), { state: 'stopping' });
    held.release();
    assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [130, 130], nodes.map((n) => n.stderr()).join('\n'));
  });
});
