/**
 * Stopping `archiver run` from outside (README "Stopping, crashing,
 * resuming"), on a real process: Ctrl-C (SIGINT) and SIGTERM stop taking
 * URIs, let the fetches in flight finish (a page the test holds unanswered
 * until the stop notice is archived whole, and by the server's own request
 * log every other request in flight when the signal was sent was served
 * whole and is archived), close the WARCs, write the reports and exit 130;
 * the same command resumes to a complete crawl. A second Ctrl-C abandons
 * in-flight fetches: a body that would take 20 s is not waited for (it is
 * absent from the WARCs, where waiting would have put it, truncated), and
 * it is fetched again on resume. `--fresh` moves the old job aside, whole.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { fileLines, nowMs, startCli, waitFor } from '../helpers/cli-child.js';
import { startHeldPage, type HeldPage } from '../helpers/held-page.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-signals-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function profileFile(name: string, seeds: readonly string[], extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(tmp, `${name}.json`);
  await writeFile(file, JSON.stringify(testProfileJson(name, seeds, path.join(tmp, name), extra)));
  return file;
}

const capturedUrls = async (jobDir: string): Promise<string[]> =>
  (await readWarcDir(path.join(jobDir, 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url);

describe('the first signal: in-flight fetches finish, exit 130, the crawl resumes', () => {
  let web: FixtureWeb;
  before(async () => {
    // Every answer takes 250 ms: at almost any moment each host has a fetch in flight.
    web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 1, port: 0, latencyMs: 250 });
  });
  after(async () => {
    await web.close();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal}`, async () => {
      // A page held unanswered until the stop notice: surely in flight at the signal.
      const held = await startHeldPage();
      try {
        await stopDuringHeldFetch(signal, held);
      } finally {
        await held.close();
      }
    });
  }

  async function stopDuringHeldFetch(signal: 'SIGINT' | 'SIGTERM', held: HeldPage): Promise<void> {
    const name = `stopped-${signal}`;
    const file = await profileFile(name, [held.url, ...web.seeds], { workers: 6, limits: { fetchTimeoutMs: 120_000, maxRetries: 1, retryDelayMs: 10 } });
    const jobDir = path.join(tmp, name);
    const crawlLog = path.join(jobDir, 'logs', 'crawl.log');
    web.takeRequests();
    const run = startCli(['run', file, '--quiet']);
    await held.arrival();
    assert.ok(await waitFor(async () => run.exited() || (await fileLines(crawlLog)).length >= 6), 'six lines logged');
    assert.equal(run.exited(), false, run.stderr());
    const linesAtSignal = (await fileLines(crawlLog)).length;
    const signalAt = nowMs();
    run.child.kill(signal);
    assert.ok(await waitFor(() => run.exited() || run.stderr().includes('archiver: stopping')), `the stop notice: ${run.stderr()}`);
    assert.equal(run.exited(), false, 'the crawl waits for the fetch in flight');
    held.release();
    assert.equal(await run.exit, 130, run.stderr());

    const requests = web.takeRequests();
    const inFlight = requests.filter((r) => r.startMs < signalAt && r.endMs > signalAt);
    const archived = new Set(await capturedUrls(jobDir));
    const logged = (await fileLines(crawlLog)).map((l) => l.trim().split(/\s+/)[3]);
    assert.ok(archived.has(held.url), `${held.url}, in flight at the signal, is archived`);
    assert.ok(logged.includes(held.url), `${held.url} is in crawl.log`);
    for (const r of inFlight) {
      const url = `http://${r.host}${r.path}`;
      assert.ok(r.status > 0, `${url} was served whole, not dropped (status ${r.status})`);
      assert.ok(archived.has(url), `${url}, in flight at the signal, is archived`);
      assert.ok(logged.includes(url), `${url} is in crawl.log`);
    }
    // It stopped taking URIs: a few more lines at most (what was in flight, one per host), not the rest of the crawl.
    const linesAfter = (await fileLines(crawlLog)).length - linesAtSignal;
    assert.ok(linesAfter <= 2 * (web.origins.length + 1), `${linesAfter} lines after the signal`);
    assert.ok(archived.size < web.expectedUrls().reachable.length, 'the crawl was cut short');

    const names = await readdir(path.join(jobDir, 'warcs'));
    assert.ok(names.length > 0 && names.every((n) => n.endsWith('.warc.gz')), names.join(' '));
    const report = JSON.parse(await readFile(path.join(jobDir, 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
    assert.equal(report.status, 'ABORTED');

    // SIGTERM takes the same path from here on: one resume is enough.
    if (signal === 'SIGTERM') return;
    const done = startCli(['run', file, '--quiet']);
    assert.equal(await done.exit, 0, done.stderr());
    const all = new Set(await capturedUrls(jobDir));
    assert.deepEqual(web.expectedUrls().reachable.filter((u) => !all.has(u)), []);
  }
});

describe('the second Ctrl-C', () => {
  // One page linking to a body that trickles a byte every 100 ms for ever,
  // and to a few ordinary pages. The server's own log says what was asked.
  const asked: Array<{ path: string; aborted: boolean }> = [];
  let server: http.Server;
  let origin: string;
  before(async () => {
    server = http.createServer((req, res) => {
      const entry = { path: req.url ?? '', aborted: false };
      asked.push(entry);
      res.on('close', () => (entry.aborted = !res.writableFinished));
      if (req.url === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<a href="/slow">slow</a> <a href="/a">a</a> <a href="/b">b</a>');
      } else if (req.url === '/slow') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        const timer = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/a' || req.url === '/b') {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<p>page ${req.url}</p>`);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('abandons in-flight fetches, which the resume fetches again', async () => {
    // Two connections to the host, so /slow stays in flight while /a and /b are fetched.
    const limits = { fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10, maxFetchDurationMs: 20_000 };
    const file = await profileFile('abandoned', [`${origin}/`], { politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 2 }, limits });
    const jobDir = path.join(tmp, 'abandoned');
    const crawlLog = path.join(jobDir, 'logs', 'crawl.log');
    const run = startCli(['run', file, '--quiet']);
    const slowLine = (lines: string[]) => lines.some((l) => l.includes(`${origin}/slow `));
    assert.ok(await waitFor(async () => run.exited() || (asked.some((r) => r.path === '/slow') && (await fileLines(crawlLog)).length >= 4)), 'the slow body is being fetched');
    assert.equal(run.exited(), false, run.stderr());
    run.child.kill('SIGINT');
    assert.ok(await waitFor(() => run.exited() || run.stderr().includes('Ctrl-C again')), 'the first Ctrl-C is acknowledged');
    assert.equal(run.exited(), false, 'the first Ctrl-C waits for the slow body');
    run.child.kill('SIGINT');
    assert.equal(await run.exit, 130, run.stderr());

    // Had it waited, /slow would be archived, truncated at maxFetchDurationMs.
    assert.equal((await capturedUrls(jobDir)).includes(`${origin}/slow`), false, '/slow is not archived');
    assert.equal(slowLine(await fileLines(crawlLog)), false, '/slow is not logged as done');
    assert.ok(await waitFor(() => asked.find((r) => r.path === '/slow')?.aborted === true, 10_000), 'the server saw the client go away');
    const report = JSON.parse(await readFile(path.join(jobDir, 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
    assert.equal(report.status, 'ABORTED');

    // The resume fetches it again; a short deadline this time keeps the test short.
    await writeFile(file, JSON.stringify(testProfileJson('abandoned', [`${origin}/`], jobDir, { limits: { ...limits, maxFetchDurationMs: 500 } })));
    const resumed = startCli(['run', file, '--quiet']);
    assert.equal(await resumed.exit, 0, resumed.stderr());
    assert.equal(asked.filter((r) => r.path === '/slow').length, 2, 'fetched again on resume');
    const slow = (await readWarcDir(path.join(jobDir, 'warcs'))).find((r) => r.type === 'response' && r.url === `${origin}/slow`);
    assert.equal(slow?.warc.get('warc-truncated'), 'time');
  });
});

describe('--fresh', () => {
  let web: FixtureWeb;
  before(async () => {
    web = await FixtureWeb.start({ hosts: 1, pagesPerHost: 2, port: 0 });
  });
  after(async () => {
    await web.close();
  });

  /** Every file under `dir` with its sha256: what "moved whole" is checked against. */
  async function tree(dir: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      out.set(path.relative(dir, full), createHash('sha256').update(await readFile(full)).digest('hex'));
    }
    return out;
  }

  test('moves the old job aside, never deleting a file, and crawls anew', async () => {
    const file = await profileFile('fresh', web.seeds);
    const jobDir = path.join(tmp, 'fresh');
    assert.equal(await main(['run', file, '--quiet'], captureIo()), 0);
    const old = await tree(jobDir);
    assert.ok([...old.keys()].some((k) => k.startsWith('warcs/')) && old.has('logs/crawl.log'), [...old.keys()].join(' '));

    const io = captureIo();
    assert.equal(await main(['run', file, '--quiet', '--fresh'], io), 0);
    const moved = /moved the earlier crawl aside to (\S+)/.exec(io.stderr.text)?.[1];
    assert.ok(moved, io.stderr.text);
    assert.equal(path.dirname(moved), tmp);
    assert.match(path.basename(moved), /^fresh\.\d{8}T\d{6}$/);
    assert.deepEqual(await tree(moved), old, 'the old job is there whole, byte for byte');

    // The new job is a crawl of its own: its WARC serials start again at 0, its log has only its lines.
    const fresh = await tree(jobDir);
    const warcs = [...fresh.keys()].filter((k) => k.startsWith('warcs/'));
    assert.ok(warcs.some((k) => /-00000-\d+~/.test(k)), warcs.join(' '));
    const lines = await fileLines(path.join(jobDir, 'logs', 'crawl.log'));
    assert.equal(lines.length, (await fileLines(path.join(moved, 'logs', 'crawl.log'))).length, 'one crawl\'s lines, not two');
    assert.ok((await stat(moved)).isDirectory());
  });
});
