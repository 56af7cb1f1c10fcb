/**
 * The console in a real browser (Debian's Chromium through playwright-core):
 * it opens the console of a running crawl from the printed address, sees
 * the counters move, pauses and resumes with the buttons, then, once the
 * crawl is over, lists the captures, opens one in the embedded
 * ReplayWeb.page and sees the archived page (its title) rendered from the
 * archive with its links; with a search engine wired in, it also searches
 * for a phrase of one page and opens the hit in the replay view. The
 * browser may talk to the console only. Screenshots are kept under the
 * test's temp directory (its path is printed) and the page is checked for
 * text, not pixels.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { consoleSearch } from '../../src/console/search-engine.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { CHROMIUM } from '../replay/browser.js';
import { startCrawlConsole, until, type RunningConsole } from './console-harness.js';
import { startHeldPage, type HeldPage } from '../helpers/held-page.js';
import { needs } from '../helpers/programs.js';

/** Skipped, with what to install, when chromium is not on the machine (npm test's pretest installs it on Debian as root). */
const missingChromium = needs('chromium', 'chromium');

let tmp: string;
let shots: string;
let web: FixtureWeb;
let c: RunningConsole;
let context: BrowserContext;
let page: Page;
let profileDir: string;
let held: HeldPage;
const outside: string[] = [];

before(async () => {
  if (missingChromium.skip) return;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-browser-'));
  shots = path.join(tmp, 'screenshots');
  await mkdir(shots);
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 80, port: 0, latencyMs: 30 });
  held = await startHeldPage();
  profileDir = await mkdtemp(path.join(os.tmpdir(), 'archiver-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  });
  // The crawl starts once the browser is up, and is held twice over so that the first two tests
  // see it running however loaded the machine: paused between tests (the work it has left is
  // kept for them), and unable to end while the held page is unanswered (released by the third).
  const search = consoleSearch();
  const limits = { fetchTimeoutMs: 600_000, maxRetries: 1, retryDelayMs: 10 };
  c = await startCrawlConsole(path.join(tmp, 'jobs'), 'browsed', [...web.seeds, held.url], { workers: 2, limits }, search ? { search } : {});
  c.crawl.pause();
  const allowed = new URL(c.server.origin).host;
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.host === allowed || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    outside.push(url.href);
    return route.abort('blockedbyclient');
  });
  page = await context.newPage();
});

after(async () => {
  if (missingChromium.skip) return;
  await context?.close();
  await c?.close();
  await held?.close();
  await web?.close();
  await rm(profileDir, { recursive: true, force: true });
  // The screenshots stay for whoever wants to look at them; the rest goes.
  for (const name of await readdir(tmp)) if (name !== 'screenshots') await rm(path.join(tmp, name), { recursive: true, force: true });
});

async function text(id: string): Promise<string> {
  return (await page.locator(`#${id}`).textContent()) ?? '';
}

const numberIn = (s: string): number => Number(s.replace(/[^\d]/g, '') || 'NaN');

/** The frame ReplayWeb.page renders an archived page in, once it shows a title. */
async function replayed(timeoutMs = 30_000): Promise<{ frame: Frame; url: string; title: string }> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no replay frame';
  while (Date.now() < deadline) {
    await page.waitForTimeout(250);
    for (const frame of page.frames()) {
      const m = /\/(\d{14})?mp_\/(.+)$/.exec(frame.url());
      if (!m) continue;
      try {
        const state = (await frame.evaluate('({ ready: document.readyState, title: document.title })')) as { ready: string; title: string };
        last = `${frame.url()} ${state.ready} "${state.title}"`;
        if (state.ready === 'complete' && state.title !== '') return { frame, url: m[2]!, title: state.title };
      } catch (err) {
        last = String(err);
      }
    }
  }
  throw new Error(`no archived page rendered: ${last}`);
}

describe('the console in Chromium', missingChromium, () => {
  it('opens the console of a running crawl: the counters move', async (t) => {
    t.diagnostic(`screenshots in ${shots}`);
    await page.goto(c.server.url);
    await until(async () => (await text('state-badge')).trim() === 'paused', 'the paused badge', 20_000);
    await until(async () => !Number.isNaN(numberIn(await text('c-uris'))), 'a URI count on the page', 20_000);
    const first = numberIn(await text('c-uris'));
    c.crawl.resume();
    await until(async () => numberIn(await text('c-uris')) > first + 3, 'the URI count to move', 20_000);
    assert.equal((await text('state-badge')).trim(), 'running');
    c.crawl.pause();
    assert.ok(!page.url().includes('token='), 'the token left the address bar');
    await until(async () => (await page.locator('#hosts-table tbody tr').count()) === 3, 'three hosts in the table (the held page is one)');
    await until(async () => (await page.locator('#log-table tbody tr').count()) > 3, 'crawl.log lines');
    await until(async () => (await page.locator('#chart-rate polyline').count()) > 0, 'the speed chart', 20_000);
    await page.screenshot({ path: path.join(shots, 'crawl-running.png'), fullPage: true });
  });

  it('pauses and resumes with the buttons', async () => {
    // Left paused by the first test, with the fixture's pages still to crawl.
    await until(async () => (await text('state-badge')).trim() === 'paused', 'the paused badge');
    const before = numberIn(await text('c-uris'));
    await page.click('#btn-resume');
    await until(async () => (await text('state-badge')).trim() === 'running', 'the running badge');
    await until(async () => numberIn(await text('c-uris')) > before, 'captures after resuming', 20_000);
    await held.arrived;
    await page.click('#btn-pause');
    await until(async () => (await text('state-badge')).trim() === 'paused', 'the paused badge');
    assert.equal(c.crawl.status().state, 'paused');
    assert.ok(await page.locator('#btn-pause').isDisabled());
    // Every fetch in flight finishes but the held one.
    await until(() => c.crawl.status().inProcess === 1, 'in-flight fetches to finish');
    // The page shows what the last progress tick said: wait for it to catch up with the held crawl.
    await until(async () => numberIn(await text('c-uris')) === c.crawl.status().uris, 'the page to show the held count');
    const stood = numberIn(await text('c-uris'));
    await page.waitForTimeout(1500);
    assert.equal(numberIn(await text('c-uris')), stood, 'nothing was captured while paused');
    await page.screenshot({ path: path.join(shots, 'crawl-paused.png'), fullPage: true });
    await page.click('#btn-resume');
    await until(async () => (await text('state-badge')).trim() === 'running', 'the running badge');
    assert.equal(c.crawl.status().state, 'running');
  });

  it('lists the captures of the finished crawl and replays one from the archive, with its links', async () => {
    held.release();
    await c.crawl.done;
    // As run --console does once the crawl is over: the job is served from its files.
    c.catalog.detach(c.name);
    await until(async () => (await text('state-badge')).trim() === 'finished', 'the finished badge', 20_000);
    await page.click('#tab-archive');
    await until(async () => (await page.locator('#captures-table tbody tr.selectable').count()) > 10, 'captures listed');
    assert.match(await text('captures-page'), /^1–30 of \d/);
    const row = page.locator('#captures-table tbody tr.selectable').filter({ hasText: '/s/' }).first();
    const title = ((await row.locator('.t').textContent()) ?? '').trim();
    const url = ((await row.locator('.u').textContent()) ?? '').trim();
    assert.ok(title !== '' && title !== '(no title)', 'the page has a title');
    await row.click();
    const shown = await replayed();
    assert.equal(shown.title, title);
    assert.equal(shown.url, url);
    await until(async () => (await page.locator('#outlinks li a').count()) > 0, 'outlinks listed');
    await until(async () => (await page.locator('#inlinks li a').count()) > 0, 'inlinks listed', 30_000);
    assert.match(await text('detail-facts'), /Status200/);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(shots, 'archive-replay.png'), fullPage: true });
    assert.deepEqual(outside, [], 'the browser asked for nothing but the console');
  });

  it('searches for a phrase of one page and opens the hit in the replay view', async () => {
    // A phrase from the body of one archived page, read back from the replayed frame.
    const target = page.locator('#captures-table tbody tr.selectable').filter({ hasText: '/s/' }).nth(3);
    await target.click();
    const shown = await replayed();
    const body = (await shown.frame.evaluate('document.body.innerText')) as string;
    const phrase = (/[A-Za-z][a-z]+(?: [a-z]+){3}/.exec(body.split('\n').find((l) => l.split(' ').length > 12) ?? '') ?? [''])[0];
    assert.ok(phrase !== '', 'a phrase of four words');
    await page.fill('#search-input', `"${phrase}"`);
    await page.click('#search-form button[type=submit]');
    await until(async () => (await page.locator('#hits li').count()) > 0, 'search hits');
    assert.ok((await page.locator('#hits mark').count()) > 0, 'matches are marked');
    await page.locator('#hits li').filter({ hasText: shown.url }).first().click();
    const hit = await replayed();
    assert.equal(hit.url, shown.url);
    await page.screenshot({ path: path.join(shots, 'archive-search.png'), fullPage: true });
  });
});
