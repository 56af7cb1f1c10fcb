/**
 * The quick start as a user runs it: `archiver demo` (a real process, in a
 * scratch directory, on a free port) serves the demo web, crawls it, prints
 * where the WARCs are and the link-graph report; the crawl must hold every
 * URL the demo web itself says is reachable. Then `archiver replay` on that
 * job serves the viewer and the WACZ (byte ranges, as ReplayWeb.page reads
 * it) until Ctrl-C, which ends it with exit 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { validateProfile } from '../../src/config/load-profile.js';
import { startDemoWeb } from '../../src/demo/demo-web-cli.js';
import { startCli, waitFor } from '../helpers/cli-child.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-demo-cmd-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A port free on 127.0.0.2, .3 and .4 alike (the demo web's hosts). */
async function freeDemoPort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const servers: net.Server[] = [];
    try {
      const first = net.createServer();
      servers.push(first);
      await new Promise<void>((resolve, reject) => first.once('error', reject).listen(0, '127.0.0.2', resolve));
      const port = (first.address() as net.AddressInfo).port;
      for (const host of ['127.0.0.3', '127.0.0.4']) {
        const s = net.createServer();
        servers.push(s);
        await new Promise<void>((resolve, reject) => s.once('error', reject).listen(port, host, resolve));
      }
      return port;
    } catch {
      // Taken on one of the hosts: try another.
    } finally {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  }
  throw new Error('no port free on 127.0.0.2-4');
}

describe('archiver demo, then archiver replay', () => {
  const jobDir = () => path.join(tmp, 'jobs', 'demo');

  test('demo crawls the whole demo web into ./jobs/demo and prints the WARCs and the graph report', async () => {
    const port = await freeDemoPort();
    const run = startCli(['demo', '--port', String(port), '--quiet'], { cwd: tmp });
    let stdout = '';
    run.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    assert.equal(await run.exit, 0, run.stderr());
    assert.match(run.stderr(), new RegExp(`demo web serving http://127\\.0\\.0\\.2:${port}, http://127\\.0\\.0\\.3:${port}, http://127\\.0\\.0\\.4:${port}`));

    const warcDir = path.join(jobDir(), 'warcs');
    assert.ok(stdout.includes(`WARCs written to ${warcDir}\n`), stdout);
    const names = await readdir(warcDir);
    assert.ok(names.length > 0);
    for (const n of names) assert.ok(stdout.includes(`  ${n}\n`), `${n} listed`);

    // What the demo web says is reachable, from the same generator on the same port, now free again.
    const web = await startDemoWeb(port);
    let reachable: string[];
    try {
      reachable = web.expectedUrls().reachable;
    } finally {
      await web.close();
    }
    const records = await readWarcDir(warcDir);
    const captured = new Set(records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
    assert.deepEqual(reachable.filter((u) => !captured.has(u)), [], 'reachable URLs the demo did not capture');
    assert.deepEqual([...captured].filter((u) => !reachable.includes(u)), [], 'captures the demo web does not have');

    // The analysis report follows: every WARC record read, and a PageRank top 10.
    assert.match(stdout, new RegExp(`read ${names.length} WARC file\\(s\\), ${records.length} records`));
    const top = stdout.slice(stdout.indexOf('top 10 by PageRank')).split('\n').filter((l) => /^\s+\d+\s+\d\.\d+e-?\d+/.test(l));
    assert.equal(top.length, 10, stdout);
    for (const row of top) assert.ok(captured.has(row.trim().split(/\s+/).at(-1)!), `ranked ${row} was captured`);
    const report = JSON.parse(await readFile(path.join(jobDir(), 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
    assert.equal(report.status, 'FINISHED');
    // It analysed the job directory (no warning about its other files), and says what to try next.
    assert.doesNotMatch(run.stderr(), /warning/);
    for (const next of ['archiver replay jobs/demo', 'archiver analyze jobs/demo', 'archiver demo --serve-only']) assert.ok(stdout.includes(next), next);
  });

  test('demo --serve-only serves the demo web until Ctrl-C, with a profile to start from that validates', async () => {
    const port = await freeDemoPort();
    const run = startCli(['demo', '--serve-only', '--port', String(port)], { cwd: tmp });
    let stdout = '';
    run.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      assert.ok(await waitFor(() => run.exited() || /^\}$/m.test(stdout), 30_000), 'prints its profile');
      assert.equal(run.exited(), false, run.stderr());
      const home = await fetch(`http://127.0.0.3:${port}/`);
      assert.equal(home.status, 200);
      const profile = JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>;
      const valid = validateProfile(profile, 'printed', tmp);
      assert.deepEqual(valid.seeds, [`http://127.0.0.2:${port}/`]);
    } finally {
      run.child.kill('SIGINT');
    }
    assert.equal(await run.exit, 0, run.stderr());
    assert.ok(!existsSync(path.join(tmp, 'jobs', 'mine')), 'nothing crawled');
  });

  test('replay serves the viewer and the job\'s WACZ by byte ranges until Ctrl-C', async () => {
    const wacz = path.join(jobDir(), 'demo.wacz');
    const bytes = await readFile(wacz);
    const run = startCli(['replay', jobDir()], { cwd: tmp });
    let stdout = '';
    run.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      assert.ok(await waitFor(() => run.exited() || /Open (http:\S+)/.test(stdout), 30_000), 'replay prints where to open it');
      assert.equal(run.exited(), false, run.stderr());
      assert.match(stdout, /^Replaying 1 file\(s\):\n  \S*demo\.wacz\n/, stdout);
      const viewer = new URL(/Open (http:\S+)/.exec(stdout)![1]!);
      assert.equal(viewer.hostname, '127.0.0.1');
      const page = await fetch(viewer);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script[^>]+ui\.js/);
      const source = new URLSearchParams(viewer.search).get('source');
      assert.ok(source, `the viewer URL names its archive: ${viewer.href}`);
      const part = await fetch(source, { headers: { Range: 'bytes=100-1123' } });
      assert.equal(part.status, 206);
      assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1124)), 'the range is the file\'s bytes');
      const whole = Buffer.from(await (await fetch(source)).arrayBuffer());
      assert.ok(whole.equals(bytes), 'the whole WACZ as on disk');
      for (const asset of ['/ui.js', '/sw.js']) assert.equal((await fetch(new URL(asset, viewer))).status, 200, asset);
    } finally {
      run.child.kill('SIGINT');
    }
    assert.equal(await run.exit, 0, run.stderr());
  });
});
