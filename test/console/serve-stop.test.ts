/**
 * `archiver serve` stops the crawls it runs on Ctrl-C (its help: "running
 * crawls stop cleanly first (their state is kept; a second Ctrl-C abandons
 * their fetches in flight)"). Each crawl is held open by a page the test
 * answers only when it chooses, so the crawl is surely running when the
 * signal comes. The first case waits for the held fetch; the second
 * abandons it with a second Ctrl-C. Either way the job is left
 * interrupted and resumable, with WARCs a parser reads to the end.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { packageRoot } from '../../src/core/package-root.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { startHeldPage, type HeldPage } from '../helpers/held-page.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { ConsoleClient, until } from './console-harness.js';

const LINE = /^console {2}(http:\/\/127\.0\.0\.1:(\d+))\/#token=([A-Za-z0-9_-]+)$/m;

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-serve-stop-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 30, port: 0, latencyMs: 10 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Served {
  child: ChildProcess;
  stderr: () => string;
  exit: Promise<number | null>;
  api: ConsoleClient;
}

/** `archiver serve jobs --port 0` in `cwd`, once it prints its console line. */
async function serve(cwd: string): Promise<Served> {
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const child = spawn(process.execPath, [bin, 'serve', 'jobs', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await until(() => LINE.test(out), `the console line (stderr: ${err.slice(-300)})`, 30_000);
  const m = LINE.exec(out)!;
  return { child, stderr: () => err, exit, api: new ConsoleClient(m[1]!, m[3]!) };
}

/** A served directory with one profile whose crawl holds on `held` while it crawls the fixture web. */
async function servedDir(name: string, held: HeldPage): Promise<string> {
  const cwd = path.join(tmp, name);
  await mkdir(path.join(cwd, 'profiles'), { recursive: true });
  const profile = testProfileJson(name, [held.url, ...web.seeds], 'unused', { workers: 2, limits: { fetchTimeoutMs: 120_000, maxRetries: 1, retryDelayMs: 10 } });
  await writeFile(path.join(cwd, 'profiles', `${name}.json`), JSON.stringify(profile));
  return cwd;
}

async function startHeld(s: Served, name: string, held: HeldPage): Promise<void> {
  const started = await s.api.post('/api/jobs', { profile: `${name}.json` });
  assert.equal(started.status, 201, started.text);
  await held.arrival();
  // Captures written beside the held fetch: the stop comes to a crawl under way.
  await until(async () => ((await s.api.get(`/api/crawl?job=${name}`)).json as { uris?: number } | null)?.uris! > 3, `${name} to capture`, 60_000);
}

async function assertLeftInterrupted(cwd: string, name: string): Promise<void> {
  const info = await new JobCatalog({ root: path.join(cwd, 'jobs') }).info(name);
  assert.equal(info.state, 'finished', 'the crawl ended and wrote its report');
  assert.equal(info.ending, 'interrupted');
  assert.equal(info.resumable, true);
  const records = await readWarcDir(path.join(cwd, 'jobs', name, 'warcs'));
  assert.ok(records.some((r) => r.type === 'response'), 'captures were written before the stop');
}

describe('archiver serve on Ctrl-C', () => {
  it('stops its running crawl cleanly: the fetch in flight is waited for, the job left resumable', { timeout: 120_000 }, async () => {
    const held = await startHeldPage();
    try {
      const cwd = await servedDir('cleanstop', held);
      const s = await serve(cwd);
      await startHeld(s, 'cleanstop', held);
      s.child.kill('SIGINT');
      await until(() => s.stderr().includes('archiver serve: stopping 1 crawl(s)'), `the stop notice (stderr: ${s.stderr().slice(-300)})`, 30_000);
      // A clean stop finishes the fetch in flight: serve is still there while the page is held.
      assert.equal(s.child.exitCode, null, 'serve waits for the crawl it stops');
      held.release();
      assert.equal(await s.exit, 0, s.stderr());
      await assertLeftInterrupted(cwd, 'cleanstop');
      const records = await readWarcDir(path.join(cwd, 'jobs', 'cleanstop', 'warcs'));
      assert.ok(records.some((r) => r.type === 'response' && r.url === held.url), 'the held page, fetched to its end, was archived');
    } finally {
      await held.close();
    }
  });

  it('a second Ctrl-C abandons the fetch in flight and exits without it', { timeout: 120_000 }, async () => {
    const held = await startHeldPage();
    try {
      const cwd = await servedDir('abandoned', held);
      const s = await serve(cwd);
      await startHeld(s, 'abandoned', held);
      s.child.kill('SIGINT');
      await until(() => s.stderr().includes('archiver serve: stopping 1 crawl(s)'), `the stop notice (stderr: ${s.stderr().slice(-300)})`, 30_000);
      s.child.kill('SIGINT');
      // The page is never answered: serve ends anyway.
      assert.equal(await s.exit, 0, s.stderr());
      assert.equal(held.requests(), 1);
      await assertLeftInterrupted(cwd, 'abandoned');
      const records = await readWarcDir(path.join(cwd, 'jobs', 'abandoned', 'warcs'));
      assert.ok(!records.some((r) => r.url === held.url), 'the abandoned fetch left no record');
    } finally {
      await held.close();
    }
  });
});
