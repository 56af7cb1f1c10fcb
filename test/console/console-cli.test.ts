/**
 * The console from the command line, as an operator starts it:
 * `archiver run <profile> --console --console-port 0` prints one
 * `console  http://127.0.0.1:<port>/#token=<token>` line, serves the crawl
 * while it runs and exits with it; with --keep-console it serves the
 * finished job until SIGTERM. `archiver serve DIR --port 0` prints the same
 * line, lists the jobs and starts one from a profile under profiles/, which
 * it crawls in its own process. Another --host is said out loud; console
 * options without --console are a usage error.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serveMain } from '../../src/cli/serve-command.js';
import { runMain } from '../../src/cli/run-command.js';
import { packageRoot } from '../../src/core/package-root.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { startHeldPage } from '../helpers/held-page.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { ConsoleClient, rawRequest, until } from './console-harness.js';

const LINE = /^console {2}(http:\/\/127\.0\.0\.1:(\d+))\/#token=([A-Za-z0-9_-]+)$/m;

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-cli-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 30, port: 0, latencyMs: 10 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Child {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function archiver(args: string[], cwd: string): Child {
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, stdout: () => out, stderr: () => err, exit };
}

async function consoleOf(child: Child): Promise<ConsoleClient> {
  await until(() => LINE.test(child.stdout()), `the console line (stderr: ${child.stderr().slice(-300)})`, 30_000);
  const m = LINE.exec(child.stdout())!;
  return new ConsoleClient(m[1]!, m[3]!);
}

async function profileFile(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(tmp, `${name}.json`);
  await writeFile(file, JSON.stringify(testProfileJson(name, web.seeds, path.join(tmp, 'jobs', name), { workers: 2, ...extra })));
  return file;
}

describe('archiver run --console', () => {
  it('prints the console line, serves the running crawl, and exits with it', async () => {
    // The crawl is held open by a page that answers only when the checks are done, so it cannot end before them.
    const held = await startHeldPage();
    try {
      const file = path.join(tmp, 'cli-run.json');
      await writeFile(file, JSON.stringify(testProfileJson('cli-run', [...web.seeds, held.url], path.join(tmp, 'jobs', 'cli-run'), { workers: 2, limits: { fetchTimeoutMs: 120_000, maxRetries: 1, retryDelayMs: 10 } })));
      const child = archiver(['run', file, '--console', '--console-port', '0', '--quiet'], tmp);
      const api = await consoleOf(child);
      await held.arrival();
      const status = await api.get('/api/crawl');
      assert.equal(status.status, 200, status.text);
      assert.equal((status.json as { job: string; state: string }).job, 'cli-run');
      assert.equal((status.json as { state: string }).state, 'running');
      assert.equal((await new ConsoleClient(api.origin, null).get('/api/crawl')).status, 401);
      held.release();
      assert.equal(await child.exit, 0, child.stderr());
      assert.equal(child.stdout().match(/^console /gm)?.length, 1, 'one console line');
    } finally {
      await held.close();
    }
  });

  it('with --keep-console serves the finished job until SIGTERM', async () => {
    const child = archiver(['run', await profileFile('cli-keep'), '--console', '--console-port', '0', '--keep-console', '--quiet'], tmp);
    const api = await consoleOf(child);
    await until(async () => ((await api.get('/api/crawl')).json as { state?: string } | null)?.state === 'finished', 'the crawl to finish', 60_000);
    await until(() => child.stderr().includes('keeps serving'), 'the keep-console notice');
    const jobs = (await api.get('/api/jobs')).json as Array<{ name: string; state: string; wacz: string | null }>;
    assert.deepEqual(jobs.map((j) => [j.name, j.state]), [['cli-keep', 'finished']]);
    assert.ok(jobs[0]!.wacz?.endsWith('.wacz'));
    assert.equal((await api.get('/api/captures?pages=1')).status, 200);
    child.process.kill('SIGTERM');
    assert.equal(await child.exit, 0, child.stderr());
  });

  it('listens on --console-host when told, says so, and serves the crawl there', async () => {
    const held = await startHeldPage();
    try {
      const file = path.join(tmp, 'cli-host.json');
      await writeFile(file, JSON.stringify(testProfileJson('cli-host', [held.url], path.join(tmp, 'jobs', 'cli-host'), { limits: { fetchTimeoutMs: 120_000, maxRetries: 1, retryDelayMs: 10 } })));
      const child = archiver(['run', file, '--console', '--console-port', '0', '--console-host', '127.0.0.9', '--quiet'], tmp);
      await until(() => /^console {2}http:\/\/127\.0\.0\.9:\d+\/#token=/m.test(child.stdout()), `the console line on 127.0.0.9 (stderr: ${child.stderr().slice(-300)})`, 30_000);
      const [, origin, token] = /^console {2}(http:\/\/127\.0\.0\.9:\d+)\/#token=([A-Za-z0-9_-]+)$/m.exec(child.stdout())!;
      await held.arrival();
      const answer = await rawRequest(origin!, { path: '/api/crawl', headers: { Host: new URL(origin!).host, Authorization: `Bearer ${token}` } });
      assert.equal(answer.status, 200, answer.body);
      assert.equal((JSON.parse(answer.body) as { state: string }).state, 'running');
      assert.match(child.stderr(), /warning: the console listens on 127\.0\.0\.9/);
      held.release();
      assert.equal(await child.exit, 0, child.stderr());
    } finally {
      await held.close();
    }
  });

  it('refuses console options without --console', async () => {
    const io = captureIo();
    await assert.rejects(runMain([await profileFile('cli-usage'), '--console-port', '0'], io), { code: 'ARCHIVER_USAGE' });
  });
});

describe('archiver serve', () => {
  it('prints the console line, lists the jobs and crawls a job started from a profile', async () => {
    const cwd = path.join(tmp, 'serve');
    await mkdir(path.join(cwd, 'profiles'), { recursive: true });
    await writeFile(path.join(cwd, 'profiles', 'started.json'), JSON.stringify(testProfileJson('started', web.seeds, 'elsewhere/started', { workers: 2 })));
    const child = archiver(['serve', '--port', '0'], cwd);
    const api = await consoleOf(child);
    assert.deepEqual((await api.get('/api/jobs')).json, []);
    assert.deepEqual((await api.get('/api/profiles')).json, ['started.json']);
    assert.equal((await api.post('/api/jobs', { profile: '../started.json' })).status, 404);
    const started = await api.post('/api/jobs', { profile: 'started.json' });
    assert.equal(started.status, 201, started.text);
    assert.equal((started.json as { job: string }).job, 'started');
    assert.equal((await api.post('/api/jobs', { profile: 'started.json' })).status, 409, 'running already');
    await until(async () => ((await api.get('/api/crawl?job=started')).json as { uris?: number } | null)?.uris! > 5, 'the started crawl to capture');
    await until(async () => ((await api.get('/api/jobs')).json as Array<{ state: string }>)[0]?.state === 'finished', 'the started crawl to finish', 60_000);
    const jobs = (await api.get('/api/jobs')).json as Array<{ name: string; pages: number }>;
    assert.equal(jobs[0]!.name, 'started', 'crawled into the served jobs directory, not the profile output.dir');
    assert.ok(jobs[0]!.pages > 10);
    child.process.kill('SIGTERM');
    assert.equal(await child.exit, 0, child.stderr());
  });

  it('reads the profiles from --profiles DIR', async () => {
    const cwd = path.join(tmp, 'serve-profiles');
    const elsewhere = path.join(tmp, 'elsewhere-profiles');
    await mkdir(path.join(cwd, 'profiles'), { recursive: true });
    await mkdir(elsewhere, { recursive: true });
    await writeFile(path.join(cwd, 'profiles', 'default.json'), JSON.stringify(testProfileJson('default', web.seeds, 'd', { workers: 2 })));
    await writeFile(path.join(elsewhere, 'chosen.json'), JSON.stringify(testProfileJson('chosen', web.seeds, 'c', { workers: 2 })));
    const child = archiver(['serve', 'jobs', '--port', '0', '--profiles', elsewhere], cwd);
    const api = await consoleOf(child);
    assert.deepEqual((await api.get('/api/profiles')).json, ['chosen.json'], 'the given directory, not profiles/');
    const started = await api.post('/api/jobs', { profile: 'chosen.json' });
    assert.equal(started.status, 201, started.text);
    assert.equal((await api.post('/api/jobs', { profile: 'default.json' })).status, 404);
    await until(async () => ((await api.get('/api/jobs')).json as Array<{ state: string }>)[0]?.state === 'finished', 'the started crawl to finish', 60_000);
    child.process.kill('SIGTERM');
    assert.equal(await child.exit, 0, child.stderr());
  });

  it('says so when its jobs folder does not exist yet, and serves all the same', async () => {
    const missing = path.join(tmp, 'not-yet');
    for (const [dir, said] of [[missing, true], [tmp, false]] as const) {
      const io = captureIo();
      const code = serveMain([dir, '--port', '0'], io, { until: Promise.resolve() });
      assert.equal(await code, 0);
      assert.match(io.stdout.text, /^console {2}http:\/\/127\.0\.0\.1:\d+\/#token=/);
      assert.equal(io.stderr.text.includes(`archiver serve: ${dir} does not exist yet: no jobs to show`), said, io.stderr.text);
    }
  });

  it('listens on another --host only when told, and says so', async () => {
    const io = captureIo();
    let stop!: () => void;
    const until = new Promise<void>((resolve) => (stop = resolve));
    // The checks run while serve serves; their promise is awaited below, and serve is stopped
    // whether they pass or fail, so a failing check fails the test instead of leaving it hanging.
    let checked: Promise<void> | undefined;
    const code = serveMain([path.join(tmp, 'jobs'), '--port', '0', '--host', '127.0.0.9'], io, {
      until,
      onListening: (server) => {
        checked = (async () => {
          assert.match(server.origin, /^http:\/\/127\.0\.0\.9:\d+$/);
          const answer = await rawRequest(server.origin, { path: '/api/jobs', headers: { Host: new URL(server.origin).host, Authorization: `Bearer ${server.token}` } });
          assert.equal(answer.status, 200);
        })().finally(stop);
      },
    });
    assert.equal(await code, 0);
    assert.ok(checked !== undefined, 'serve called onListening');
    await checked;
    assert.match(io.stdout.text, /^console {2}http:\/\/127\.0\.0\.9:\d+\/#token=/);
    assert.match(io.stderr.text, /warning: the console listens on 127\.0\.0\.9/);
  });
});
