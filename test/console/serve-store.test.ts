/**
 * `archiver serve --store … --crawl …`: the console of a crawl run by
 * other processes, with no crawl of its own (issue 27: "archiver serve
 * pointed at the store shows the whole crawl"; before, serve showed only
 * crawls it ran itself, and a node's console its own queues). Two real
 * `archiver run` nodes crawl the loopback fixture web through a real
 * redis-server, held open by a page answered only once the test lets go;
 * serve, started apart on a free port, must show both nodes alive, totals
 * that sum them, every node's queues, a log tail merging both nodes'
 * crawl-<node>.log, and act on every node: a seed it adds is fetched, a
 * pause quiets the web server's request log while pages are left, and a
 * stop ends both nodes (130). Bad options: one line naming the option,
 * exit 2.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { main } from '../../src/cli/main.js';
import { JobRecords } from '../../src/crawl/job-records.js';
import { inspectStore } from '../../src/backends/state-backends.js';
import { fileLines, sleep, startCli, waitFor, type CliChild } from '../helpers/cli-child.js';
import { needsRedis } from '../helpers/redis-server.js';
import { nodesWeb } from '../helpers/nodes-web.js';
import { needs } from '../helpers/programs.js';
import { closedPort } from '../helpers/closed-port.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { captureIo } from '../analysis/cli-io.js';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../replay/browser.js';

interface WideStatus {
  state: string;
  pages: number;
  crawl: { nodes: { node: string; alive: boolean; pages: number }[]; totals: { pages: number; liveNodes: number; inFlight: number }; queues: { queuedUris: number } };
}

const needsBoth = (): { skip?: string } => needsRedis().skip !== undefined ? needsRedis() : needs('chromium', 'chromium');

describe('archiver serve --store: the console of a crawl run by other processes', needsBoth(), () => {
  // Pages enough, a second apart on each host, that the crawl is far from done when the test pauses it, however loaded the machine.
  const nw = nodesWeb('archiver-serve-store-', 80);

  const cli = (args: string[]): CliChild => {
    const c = startCli(args);
    nw.children.push(c);
    return c;
  };

  it('shows both nodes, the totals, every queue and the merged log tail; seeds, pause and stop act on both nodes', { timeout: 240_000 }, async () => {
    const { tmp, redis, web, held, children } = nw;
    const name = 'served';
    const dir = path.join(tmp, name);
    const file = path.join(tmp, `${name}.json`);
    const spec = redis.spec(0);
    // A seed nobody answers: its host is closed after its transport failures.
    const dead = `127.0.0.1:${await closedPort()}`;
    await writeFile(
      file,
      JSON.stringify(
        testProfileJson(name, [held.url, ...web.seeds, `http://${dead}/`], dir, {
          politeness: { delayFactor: 0, minDelayMs: 1000, maxDelayMs: 1000 },
          limits: { fetchTimeoutMs: 300_000, maxRetries: 1, retryDelayMs: 10 },
          workers: 3,
        }),
      ),
    );
    const nodes = ['n1', 'n2'].map((id) => cli(['run', file, '--store', spec, '--node', id, '--quiet']));
    const logs = ['n1', 'n2'].map((id) => path.join(dir, 'logs', `crawl-${id}.log`));
    await held.arrival();
    const counts = async () => (await Promise.all(logs.map(fileLines))).map((l) => l.length);
    if (!(await waitFor(async () => (await counts()).every((n) => n >= 1), 120_000))) {
      // Once seen in CI (0 and 560 lines): a node ended while the other was queueing the seeds (nodes-seeding.test.ts). Should it come back, say what each node was doing.
      const io = captureIo();
      await main(['status', '--store', spec, '--crawl', name, '--json'], io).catch(() => {});
      const states = nodes.map((n) => (n.exited() ? `exited ${n.child.exitCode ?? n.child.signalCode}` : 'running'));
      assert.fail(`both nodes crawl: ${(await counts()).join(', ')}; ${states.join(', ')}; ${nodes.map((n) => n.stderr()).join(' | ')}; status ${io.stdout.text} ${io.stderr.text}`);
    }

    const serve = cli(['serve', '--store', spec, '--crawl', name, '--job', dir, '--port', '0']);
    let out = '';
    serve.child.stdout!.removeAllListeners('data');
    serve.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    assert.ok(await waitFor(() => /console {2}http/.test(out) || serve.exited(), 60_000), `serve printed its address: ${serve.stderr()}`);
    const m = /console {2}(http:\/\/\S+)\/#token=(\S+)/.exec(out);
    assert.ok(m !== null, `${out} ${serve.stderr()}`);
    const call = async (p: string, method = 'GET', body?: unknown): Promise<{ status: number; json: any }> => {
      const res = await fetch(`${m[1]}${p}`, {
        method,
        headers: { Authorization: `Bearer ${m[2]}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
      });
      return { status: res.status, json: await res.json() };
    };
    const api = async (p: string, method = 'GET', body?: unknown): Promise<any> => {
      const r = await call(p, method, body);
      assert.equal(r.status, 200, `${method} ${p}: ${JSON.stringify(r.json)}`);
      return r.json;
    };

    // Both nodes alive, with pages, and totals that sum them (heartbeats come each second). Each node's
    // figures are sampled at its last heartbeat, which may predate the held claim (a node's robots.txt
    // fetch counts as a page first), so the held fetch shows in flight from the next beat on.
    const settled = (w: WideStatus): boolean => w.crawl.nodes.filter((n) => n.alive && n.pages >= 1).length === 2 && w.crawl.totals.inFlight >= 1;
    assert.ok(await waitFor(async () => settled((await api('/api/crawl')) as WideStatus), 30_000), JSON.stringify(await api('/api/crawl')));
    const wide = (await api('/api/crawl')) as WideStatus;
    assert.equal(wide.state, 'running');
    assert.deepEqual(wide.crawl.nodes.map((n) => [n.node, n.alive]), [['n1', true], ['n2', true]]);
    assert.equal(wide.crawl.totals.liveNodes, 2);
    assert.equal(wide.crawl.totals.pages, wide.crawl.nodes.reduce((s, n) => s + n.pages, 0), 'totals sum the nodes');
    assert.equal(wide.pages, wide.crawl.totals.pages, 'the status is the whole crawl\'s');
    assert.ok(wide.crawl.totals.inFlight >= 1, 'the held fetch is in flight');
    assert.ok(wide.crawl.queues.queuedUris > 0, 'URIs queued');
    // status takes the store as --store too, as serve does: the same crawl.
    const statusIo = captureIo();
    assert.equal(await main(['status', '--store', spec, '--crawl', name, '--json'], statusIo), 0, statusIo.stderr.text);
    assert.deepEqual((JSON.parse(statusIo.stdout.text) as WideStatus['crawl']).nodes.map((n) => n.node), ['n1', 'n2']);
    const jobs = (await api('/api/jobs')) as { name: string; state: string }[];
    assert.deepEqual(jobs.map((j) => [j.name, j.state]), [[name, 'running']]);
    const tail = (await api('/api/log?tail=500')) as { node?: string }[];
    assert.deepEqual([...new Set(tail.map((l) => l.node))].sort(), ['n1', 'n2'], 'the log tail merges both nodes\' logs');
    const queues = (await api('/api/queues?limit=1000')) as { key: string; node?: string | null; state: string }[];
    // Queue keys are host#port.
    const heldQueue = queues.find((q) => q.key === new URL(held.url).host.replace(':', '#'));
    assert.ok(heldQueue !== undefined && (heldQueue.node === 'n1' || heldQueue.node === 'n2'), `the held host's queue, held by a node: ${JSON.stringify(queues)}`);
    const holders = new Set(queues.map((q) => q.node).filter((n) => n !== null));
    assert.deepEqual([...holders].sort(), ['n1', 'n2'], `queues of both nodes: ${JSON.stringify(queues)}`);
    const hosts = async () => (await api('/api/hosts?limit=1000')) as { host: string; fetched: number; closed: { status: number } | null }[];
    assert.ok((await hosts()).some((h) => h.host === new URL(web.origins[0]!).host), JSON.stringify(await hosts()));
    assert.ok(await waitFor(async () => (await hosts()).find((h) => h.host === dead)?.closed?.status === -2, 30_000), `the dead host closed: ${JSON.stringify(await hosts())}`);
    assert.ok(await waitFor(async () => ((await api('/api/crawl/history')) as unknown[]).length >= 2, 10_000), 'a speed sample a second');

    // The page (Chromium): the Nodes card lists both nodes, alive, and the log table has both nodes' lines.
    const browserDir = await mkdtemp(path.join(os.tmpdir(), 'archiver-chromium-'));
    const context = await chromium.launchPersistentContext(browserDir, { executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const outside: string[] = [];
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.origin === m[1] || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
        outside.push(url.href);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      await page.goto(`${m[1]}/#token=${m[2]}`);
      await page.locator('#nodes tr').nth(1).waitFor({ timeout: 30_000 });
      const cells = async (n: number) => page.locator(`#nodes tr td:nth-child(${n})`).allTextContents();
      assert.deepEqual([await cells(1), await cells(2)], [['n1', 'n2'], ['yes', 'yes']]);
      assert.match((await page.textContent('#nodes-totals')) ?? '', /^2 alive/);
      for (const node of ['n1', 'n2']) await page.locator('#log-table td', { hasText: `node ${node}` }).first().waitFor({ timeout: 30_000 });
      assert.deepEqual(outside, [], 'the page asked only the console');
    } finally {
      await context.close();
      await rm(browserDir, { recursive: true, force: true });
    }

    // A seed added through serve is fetched by whichever node holds its host.
    const seed = `${web.origins[1]}/added-through-serve`;
    assert.deepEqual(await api('/api/crawl/seeds', 'POST', { urls: [seed, 'ftp://x/'] }), { added: [seed], rejected: [{ url: 'ftp://x/', reason: 'not an absolute http(s) URL' }] });
    assert.ok(await waitFor(() => web.requests.some((r) => r.path === "/added-through-serve"), 120_000), "the added seed was fetched");
    // An exclusion is kept with the crawl's records (every node follows them: crawl-wide.test.ts).
    assert.deepEqual(await api('/api/crawl/exclude', 'POST', { regex: '/never-linked/' }), { regex: '/never-linked/', added: true, dropped: 0 });
    assert.deepEqual((await api('/api/crawl/exclude', 'POST', { regex: '/never-linked/' })).added, false);
    assert.equal((await call('/api/crawl/exclude', 'POST', { regex: '(' })).status, 400);
    const store = await inspectStore(spec);
    try {
      const records = new JobRecords(store.records(name, 'job'));
      assert.deepEqual(await records.exclusions(), ['/never-linked/']);
      assert.deepEqual(await records.addedSeeds(), [seed]);
    } finally {
      await store.close();
    }

    // Pause through serve: both nodes stop claiming; the web server's log goes quiet while pages are left.
    assert.deepEqual(await api('/api/crawl/pause', 'POST'), { state: 'paused' });
    const quiet = await waitFor(async () => {
      const before = web.requests.length;
      await sleep(2000);
      return web.requests.length === before;
    }, 30_000, 0);
    assert.ok(quiet, 'the request log went quiet');
    const fetched = new Set(web.requests.map((r) => `${r.host}${r.path}`));
    const left = web.expectedUrls().reachable.filter((u) => !fetched.has(new URL(u).host + new URL(u).pathname));
    assert.ok(left.length > 20, `quiet because paused, not done: ${left.length} pages left`);
    const paused = (await api('/api/crawl')) as WideStatus;
    assert.equal(paused.state, 'paused');
    assert.equal(paused.crawl.totals.liveNodes, 2, 'both nodes alive, paused');

    // Stop through serve: both nodes end cleanly once their fetch in flight is answered.
    assert.deepEqual(await api('/api/crawl/stop', 'POST'), { state: 'stopping' });
    held.release();
    assert.deepEqual(await Promise.all(nodes.map((n) => n.exit)), [130, 130], nodes.map((n) => n.stderr()).join('\n'));
    assert.ok(await waitFor(async () => ((await api('/api/crawl')) as WideStatus).crawl.totals.liveNodes === 0, 30_000), 'no node alive');
    assert.deepEqual(((await api('/api/jobs')) as { state: string }[]).map((j) => j.state), ['interrupted']);
    // serve outlives the crawl and stops on SIGTERM.
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exit, 0, serve.stderr());
  });

  it('bad options: one line naming the option, exit 2', { timeout: 60_000 }, async () => {
    const { tmp, redis, web, held, children } = nw;
    const spec = redis.spec(5);
    const cases: [string[], RegExp][] = [
      [['serve', '--crawl', 'x'], /--crawl goes with --store/],
      [['serve', '--job', tmp], /--job goes with --store/],
      [['serve', '--store', 'level'], /--store: "level": .*shared by several processes/],
      [['serve', '--store', 'nonsense'], /--store: unknown state store/],
      [['serve', '--store', spec, '--profiles', tmp], /--profiles .* --store/],
      [['serve', '--store', spec, '--crawl', 'none-such'], /--crawl: .* holds no crawl "none-such"/],
      [['serve', '--store', spec], /--crawl: .* holds no crawl/],
      [['status', spec, '--store', spec], /status takes one store, .* as its argument or as --store/],
      [['stop'], /stop takes one store/],
    ];
    for (const [argv, said] of cases) {
      const io = captureIo();
      assert.equal(await main(argv, io), 2, `${argv.join(' ')}: ${io.stderr.text}`);
      assert.match(io.stderr.text, said);
      assert.equal(io.stderr.text.trim().split('\n').length, 1, `one line: ${io.stderr.text}`);
    }
  });
});
