/**
 * What `archiver run` says and returns at the end (issue 17): seeds that all
 * fail exit 5 and are named with why; a finished job is left untouched; a
 * job that stopped on a limit resumes, and a raised --max-pages continues it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/capture.js';
import { closedPort } from '../helpers/closed-port.js';
import { startHeldPage } from '../helpers/held-page.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const fx = fixtureWebSuite('archiver-runout-', { hosts: 1, pagesPerHost: 6, port: 0 });

/** This process's threads named arch-page (the page thread, src/core/thread-name.ts), half a second on and once those ending have ended (within 5 s more). */
async function pageThreadsAfterExit(): Promise<number> {
  const count = async (): Promise<number> => {
    let n = 0;
    for (const tid of await readdir('/proc/self/task')) {
      const name = await readFile(`/proc/self/task/${tid}/comm`, 'utf8').catch(() => '');
      if (name.trim() === 'arch-page') n++;
    }
    return n;
  };
  // A thread that was left running has named itself by then (it does so as it loads).
  await new Promise((resolve) => setTimeout(resolve, 500));
  const until = Date.now() + 5000;
  let n = await count();
  while (n > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    n = await count();
  }
  return n;
}

async function profileFile(name: string, seeds: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(fx.tmp, `${name}.json`);
  await writeFile(file, JSON.stringify(testProfileJson(name, seeds, path.join(fx.tmp, name), extra)));
  return file;
}

describe('archiver run, at the end', () => {
  it('exits 5 when no seed could be crawled, naming each seed and why, and still writes the reports', async () => {
    const port = await closedPort();
    const file = await profileFile('noseed', [`http://127.0.0.1:${port}/`], { robots: { policy: 'ignore' }, limits: { fetchTimeoutMs: 2000, maxRetries: 0, retryDelayMs: 10 } });
    const io = captureIo();
    assert.equal(await main(['run', file, '--quiet'], io), 5);
    assert.match(io.stderr.text, new RegExp(`seed http://127\\.0\\.0\\.1:${port}/ was not crawled: connection refused \\(-2\\)`));
    assert.match(io.stderr.text, /no seed could be crawled/);
    const report = JSON.parse(await readFile(path.join(fx.tmp, 'noseed', 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
    assert.equal(report.status, 'FINISHED');
  });

  it('leaves a finished job untouched and says how to start over', async () => {
    const file = await profileFile('finished', fx.web.seeds);
    assert.equal(await main(['run', file, '--quiet'], captureIo()), 0);
    const reportFile = path.join(fx.tmp, 'finished', 'reports', 'crawl-report.json');
    const before = (await stat(reportFile)).mtimeMs;
    const io = captureIo();
    assert.equal(await main(['run', file, '--quiet'], io), 0);
    assert.match(io.stderr.text, /is a finished crawl .*--fresh/);
    assert.equal((await stat(reportFile)).mtimeMs, before, 'the reports were not rewritten');
    // The page thread the CLI started ahead of a crawl that never began is not left running.
    if (process.platform === 'linux') assert.equal(await pageThreadsAfterExit(), 0, 'no arch-page thread left');
  });

  it('refuses a bad profile with exit 3, closing the page thread it started on the JSON\'s word', async () => {
    // The JSON follows links (maxHops is not 0), so the CLI starts the page thread before it validates.
    const file = await profileFile('badworkers', fx.web.seeds, { workers: 0 });
    const io = captureIo();
    assert.equal(await main(['run', file, '--quiet'], io), 3);
    assert.match(io.stderr.text, /workers/);
    if (process.platform === 'linux') assert.equal(await pageThreadsAfterExit(), 0, 'no arch-page thread left');
  });

  it('a crawl stopped by --max-pages resumes under a raised --max-pages; the report lists every WARC of the job', async () => {
    const file = await profileFile('limited', fx.web.seeds, { workers: 1 });
    const first = captureIo();
    assert.equal(await main(['run', file, '--max-pages', '5'], first), 0);
    assert.match(first.stderr.text, /crawl FINISHED_DOCUMENT_LIMIT/);
    assert.match(first.stderr.text, /run the same command to resume/);
    const again = captureIo();
    assert.equal(await main(['run', file, '--quiet', '--max-pages', '1000'], again), 0);
    const report = JSON.parse(await readFile(path.join(fx.tmp, 'limited', 'reports', 'crawl-report.json'), 'utf8')) as {
      status: string;
      uris: number;
      warcFiles: string[];
      runWarcFiles: string[];
      elapsedSec: number;
      runElapsedSec: number;
    };
    assert.equal(report.status, 'FINISHED');
    assert.ok(report.uris > 5, `${report.uris} URIs`);
    assert.equal(report.warcFiles.length, 2, 'both runs\' WARCs');
    assert.equal(report.runWarcFiles.length, 1);
    assert.ok(report.elapsedSec > report.runElapsedSec, 'the job time covers both runs');
  });

  it('--max-bytes stops the crawl once the bodies captured reach it (FINISHED_DATA_LIMIT)', async () => {
    const file = await profileFile('maxbytes', fx.web.seeds, { workers: 1 });
    fx.web.takeRequests();
    const io = captureIo();
    assert.equal(await main(['run', file, '--quiet', '--max-bytes', '3000'], io), 0, io.stderr.text);
    const report = JSON.parse(await readFile(path.join(fx.tmp, 'maxbytes', 'reports', 'crawl-report.json'), 'utf8')) as { status: string; bytes: number; uris: number };
    assert.equal(report.status, 'FINISHED_DATA_LIMIT');
    assert.ok(report.bytes >= 3000, `${report.bytes} bytes`);
    assert.ok(report.uris < fx.web.expectedUrls().reachable.length, `${report.uris} URIs of ${fx.web.expectedUrls().reachable.length}`);
    // Judged from the WARCs too: the bodies they hold (a revisit's is its original's) reach 3000
    // bytes, and the capture that reached it is the last but for the ones already in flight.
    const records = (await readWarcDir(path.join(fx.tmp, 'maxbytes', 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit');
    const byDigest = new Map(records.filter((r) => r.type === 'response').map((r) => [r.warc.get('warc-payload-digest'), r.payload.length]));
    const sizes = records.map((r) => (r.type === 'response' ? r.payload.length : byDigest.get(r.warc.get('warc-payload-digest'))!));
    let sum = 0;
    const reachedAt = sizes.findIndex((n) => (sum += n) >= 3000);
    assert.ok(reachedAt >= 0, `the WARCs' bodies reach 3000 bytes: ${sizes.join('+')}`);
    assert.ok(records.length - 1 - reachedAt <= 1, `at most the one fetch in flight captured after 3000 bytes: ${sizes.join('+')}`);
    // And the server saw the crawl stop: not every page of the web was asked for.
    const asked = new Set(fx.web.takeRequests().map((r) => r.path));
    const unasked = fx.web.expectedUrls().reachable.filter((u) => !asked.has(new URL(u).pathname + new URL(u).search));
    assert.ok(unasked.length > 0, 'pages the server was never asked for');
  });

  it('--max-duration stops a crawl that could not end by itself (FINISHED_TIME_LIMIT)', { timeout: 120_000 }, async () => {
    // The held page (the only seed) keeps the crawl from ending by itself until it is answered,
    // 1.5 s after the start, so that a stop (which lets a fetch in flight finish) can complete.
    // Were the limit ignored, the crawl would end FINISHED after that. On a loaded machine the
    // limit may come before the crawl reached the page: then no seed was crawled (exit 5).
    const held = await startHeldPage();
    try {
      const file = await profileFile('maxduration', [held.url], { limits: { fetchTimeoutMs: 60_000, maxRetries: 1, retryDelayMs: 10 } });
      const io = captureIo();
      const started = Date.now();
      const run = main(['run', file, '--quiet', '--max-duration', '1'], io);
      setTimeout(held.release, 1500);
      const code = await run;
      assert.ok(code === 0 || (code === 5 && held.requests() === 0), `exit ${code}, ${held.requests()} request(s) for the held page: ${io.stderr.text}`);
      assert.ok(Date.now() - started >= 1000);
      const report = JSON.parse(await readFile(path.join(fx.tmp, 'maxduration', 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
      assert.equal(report.status, 'FINISHED_TIME_LIMIT');
    } finally {
      await held.close();
    }
  });

  it('rejects bad limit overrides as usage errors', async () => {
    const file = await profileFile('badflag', fx.web.seeds);
    const io = captureIo();
    assert.equal(await main(['run', file, '--max-pages', 'lots'], io), 2);
    assert.match(io.stderr.text, /--max-pages must be a whole number of URIs/);
  });
});
