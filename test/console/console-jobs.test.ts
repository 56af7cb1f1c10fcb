/**
 * The jobs a console serves, as a newcomer met them (issue 28): `serve`
 * opened on the Crawl tab of the alphabetically first job; the jobs list
 * said FINISHED for a job that archived nothing and for one a limit stopped
 * (which resumes); a crawl of several nodes (no crawl.log, one
 * crawl-<node>.log each) showed Started "–"; a finished job's speed charts
 * were empty and its seed and exclusion forms sat greyed out. Checked through
 * the API and in Chromium (screenshots kept under the test's temp directory).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { main } from '../../src/cli/main.js';
import { ConsoleServer } from '../../src/console/console-server.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { closedPort } from '../helpers/closed-port.js';
import { needs } from '../helpers/programs.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { CHROMIUM } from '../replay/browser.js';
import { ConsoleClient, until } from './console-harness.js';

const missingChromium = needs('chromium', 'chromium');

let tmp: string;
let jobs: string;
let server: ConsoleServer;
let client: ConsoleClient;

async function crawl(name: string, seeds: string[], argv: string[] = [], extra: Record<string, unknown> = {}): Promise<number> {
  const file = path.join(tmp, `${name}.json`);
  await writeFile(file, JSON.stringify(testProfileJson(name, seeds, path.join(jobs, name), { workers: 2, ...extra })));
  return main(['run', file, '--quiet', ...argv], captureIo());
}

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-jobs-'));
  jobs = path.join(tmp, 'jobs');
  await mkdir(jobs);
  const web = await FixtureWeb.start({ hosts: 1, pagesPerHost: 30, port: 0, latencyMs: 20 });
  try {
    assert.equal(await crawl('full', web.seeds), 0);
    assert.equal(await crawl('limited', web.seeds, ['--max-pages', '4']), 0);
  } finally {
    await web.close();
  }
  assert.equal(await crawl('dead', [`http://127.0.0.1:${await closedPort()}/`], [], { robots: { policy: 'ignore' }, limits: { maxRetries: 0, retryDelayMs: 10 } }), 5);
  // A crawl of several nodes leaves one log per node and no crawl.log.
  await cp(path.join(jobs, 'full'), path.join(jobs, 'nodes'), { recursive: true });
  await rename(path.join(jobs, 'nodes', 'logs', 'crawl.log'), path.join(jobs, 'nodes', 'logs', 'crawl-a.log'));
  server = await ConsoleServer.start({ catalog: new JobCatalog({ root: jobs }), port: 0 });
  client = new ConsoleClient(server.origin, server.token);
});

after(async () => {
  await server?.close();
  if (tmp) for (const name of await readdir(tmp)) if (name !== 'screenshots') await rm(path.join(tmp, name), { recursive: true, force: true });
});

describe('the jobs list', () => {
  it('says what ended each job, and when every job began', async () => {
    const list = (await client.get('/api/jobs')).json as Array<{ name: string; state: string; ending: string; resumable: boolean; started: string | null }>;
    const by = new Map(list.map((j) => [j.name, j]));
    assert.deepEqual([...by.keys()], ['dead', 'full', 'limited', 'nodes']);
    assert.deepEqual(['dead', 'full', 'limited', 'nodes'].map((n) => [n, by.get(n)?.ending, by.get(n)?.resumable]), [
      ['dead', 'nothing crawled', false],
      ['full', 'finished', false],
      ['limited', 'limit reached', true],
      ['nodes', 'finished', false],
    ]);
    const firstLine = (await readFile(path.join(jobs, 'nodes', 'logs', 'crawl-a.log'), 'utf8')).split(' ')[0];
    assert.equal(by.get('nodes')?.started, firstLine);
  });

  it('a finished job has a speed history, read from its crawl.log, that adds up to its captures', async () => {
    const history = (await client.get('/api/crawl/history?job=full')).json as Array<{ time: string; urisPerSec: number }>;
    assert.ok(history.length > 0, 'samples');
    const log = (await readFile(path.join(jobs, 'full', 'logs', 'crawl.log'), 'utf8')).trim().split('\n');
    const captures = log.filter((l) => Number(l.trim().split(/\s+/)[1]) > 0).length;
    // Buckets of one second here (a short crawl): the rates sum to the captures.
    assert.equal(Math.round(history.reduce((n, s) => n + s.urisPerSec, 0)), captures);
  });
});

describe('the console of `archiver serve` in Chromium', { skip: missingChromium.skip }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });
  after(async () => {
    await browser?.close();
  });

  it('opens on Jobs, with each ending; a finished job draws its speed and hides the forms that steer a crawl', async (t) => {
    const shots = path.join(tmp, 'screenshots');
    await mkdir(shots, { recursive: true });
    t.diagnostic(`screenshots in ${shots}`);
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    await page.goto(server.url);
    await until(async () => (await page.locator('#jobs-table tbody tr').count()) === 4, 'four jobs listed');
    // The page settles on its first tab once it has loaded the job it shows in the header.
    await until(async () => (await page.locator('#view-jobs').isVisible()) || (await page.locator('#view-crawl').isVisible()), 'a tab shown');
    assert.equal(await page.locator('#view-jobs').isVisible(), true, 'the Jobs tab is shown');
    assert.equal(await page.locator('#view-crawl').isVisible(), false);
    assert.match(page.url(), /tab=jobs/);
    const badges = await page.locator('#jobs-table tbody tr .badge').allTextContents();
    assert.deepEqual(badges.map((b) => b.trim().toLowerCase()), ['nothing crawled', 'finished', 'limit reached (resumable)', 'finished']);
    await page.screenshot({ path: path.join(shots, 'jobs.png') });
    await page.selectOption('#job-select', 'full');
    await page.click('#tab-crawl');
    await until(async () => (await page.locator('#chart-rate polyline').count()) === 2, 'both lines of the speed chart');
    assert.equal(await page.locator('#steer-row').isVisible(), false, 'no seed or exclusion forms');
    assert.match((await page.locator('#chart-rate').textContent()) ?? '', /end/);
    await page.screenshot({ path: path.join(shots, 'finished-crawl.png') });
    await page.close();
  });
});
