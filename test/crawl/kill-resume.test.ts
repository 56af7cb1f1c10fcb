/**
 * Crash safety, the hard way: a crawl of the fixture web is killed with
 * SIGKILL at many random moments, resumed each time, and finally compared
 * with an uninterrupted crawl of the same web. Heritrix users report
 * checkpoints that break after one resume (heritrix3 #277, #392); this test
 * resumes over and over.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateProfile } from '../../src/config/load-profile.js';
import { packageRoot } from '../../src/core/package-root.js';
import { runCrawl } from '../../src/crawl/crawler.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

const KILLS = 12;
let tmp: string;
let web: FixtureWeb;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-kill-'));
  web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 8, port: 0, latencyMs: 4 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

function rawProfile(name: string) {
  return testProfileJson(name, web.seeds, path.join(tmp, name), {
    politeness: { delayFactor: 0, minDelayMs: 15, maxDelayMs: 15 },
    limits: { fetchTimeoutMs: 5000, maxRetries: 2, retryDelayMs: 10 },
  });
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

async function logLines(file: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    return text.split('\n').length - 1;
  } catch {
    return 0;
  }
}

/**
 * Runs `archiver run` in a child. With `killAfterLines`, kills it with SIGKILL
 * once crawl.log has grown by that many lines (so every kill lands mid-crawl,
 * not during start-up), plus a random few milliseconds.
 */
async function runChild(
  profileFile: string,
  crawlLog: string,
  killAfterLines: number | null,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<{ killed: boolean; code: number | null; stderr: string }> {
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const startLines = await logLines(crawlLog);
  const child = spawn(process.execPath, [bin, 'run', profileFile, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => {
    exited = true;
    resolve(code);
  }));
  if (killAfterLines === null) return { killed: false, code: await exit, stderr };
  // Bounded: the whole crawl is a few hundred lines; give up waiting after 60 s.
  for (let waited = 0; !exited && waited < 60_000; waited += 10) {
    if ((await logLines(crawlLog)) >= startLines + killAfterLines) break;
    await sleep(10);
  }
  if (exited) return { killed: false, code: await exit, stderr };
  await sleep(Math.floor(Math.random() * 15));
  child.kill(signal);
  const code = await exit;
  return { killed: true, code, stderr };
}

test(`killed with SIGKILL ${KILLS} times and resumed, the crawl captures what an uninterrupted one does`, async (t) => {
  const baseline = await runCrawl({ profile: validateProfile(rawProfile('baseline')), stderr: captureIo().stderr, quiet: true });
  const baselineUrls = new Set((await readWarcDir(baseline.warcDir)).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
  assert.ok(baselineUrls.size > 100, `baseline captured ${baselineUrls.size}`);

  const profileFile = path.join(tmp, 'killed.json');
  await writeFile(profileFile, JSON.stringify(rawProfile('killed')));
  const crawlLog = path.join(tmp, 'killed', 'logs', 'crawl.log');
  web.takeRequests();
  let kills = 0;
  for (let attempt = 0; attempt < KILLS * 3 && kills < KILLS; attempt++) {
    const r = await runChild(profileFile, crawlLog, 1 + Math.floor(Math.random() * 8));
    if (r.killed) kills++;
    else {
      assert.equal(r.code, 0, `run ended early with ${r.code}: ${r.stderr}`);
      break;
    }
  }
  assert.ok(kills >= 10, `only ${kills} kills landed`);
  const last = await runChild(profileFile, crawlLog, null);
  assert.equal(last.code, 0, last.stderr);

  const warcDir = path.join(tmp, 'killed', 'warcs');
  const names = await readdir(warcDir);
  assert.equal(names.filter((n) => n.endsWith('.open')).length, 0, 'no .open files remain');
  // Every gzip member of every file inflates on its own, and warcio reads every record.
  for (const name of names) {
    const bytes = await readFile(path.join(warcDir, name));
    assert.ok(gunzipSync(bytes).subarray(0, 5).toString() === 'WARC/', `${name} inflates`);
  }
  const records = await readWarcDir(warcDir);
  const captures = records.filter((r) => r.type === 'response' || r.type === 'revisit');
  const urls = new Set(captures.map((r) => r.url));
  assert.deepEqual([...baselineUrls].filter((u) => !urls.has(u)), [], 'URLs the interrupted crawl lost');
  assert.deepEqual([...urls].filter((u) => !baselineUrls.has(u)), [], 'URLs only the interrupted crawl has');
  // Only URIs in flight at a kill may be fetched twice: at most `workers` per kill.
  const duplicates = captures.length - urls.size;
  t.diagnostic(`${kills} kills, ${urls.size} URLs captured (baseline ${baselineUrls.size}), ${duplicates} captured twice, ${names.length} WARC files`);
  assert.ok(duplicates <= kills * 4, `${duplicates} duplicate captures after ${kills} kills`);
  for (const r of records) {
    if (r.type === 'response' || r.type === 'revisit') assert.ok(r.warc.get('warc-payload-digest'), r.url);
  }
});

test('SIGINT stops cleanly: exit 130, WARCs closed, reports written, and the crawl resumes to completion', async () => {
  const profileFile = path.join(tmp, 'interrupted.json');
  await writeFile(profileFile, JSON.stringify(rawProfile('interrupted')));
  const jobDir = path.join(tmp, 'interrupted');
  const crawlLog = path.join(jobDir, 'logs', 'crawl.log');
  const r = await runChild(profileFile, crawlLog, 10, 'SIGINT');
  assert.equal(r.killed, true);
  assert.equal(r.code, 130, r.stderr);
  const names = await readdir(path.join(jobDir, 'warcs'));
  assert.ok(names.length > 0 && names.every((n) => n.endsWith('.warc.gz')), names.join(' '));
  const report = JSON.parse(await readFile(path.join(jobDir, 'reports', 'crawl-report.json'), 'utf8')) as { status: string };
  assert.equal(report.status, 'ABORTED');
  const done = await runChild(profileFile, crawlLog, null);
  assert.equal(done.code, 0, done.stderr);
  const urls = new Set((await readWarcDir(path.join(jobDir, 'warcs'))).filter((x) => x.type === 'response' || x.type === 'revisit').map((x) => x.url));
  const missing = web.expectedUrls().reachable.filter((u) => !urls.has(u));
  assert.deepEqual(missing, []);
});
