/**
 * End to end, in a real browser: crawl the fixture web, package it, stop the
 * fixture web (so nothing live is left to leak to), serve the WACZ with
 * `archiver replay`'s server on 127.0.0.1 and open archived pages in
 * ReplayWeb.page inside headless Chromium. Title, body text and images must
 * render from the archive, also through the 301→302 redirect chain, for a
 * gzip-encoded page and a chunked one; the page list must show; the raw
 * WARCs must replay too; and the browser must request nothing but the
 * replay server. A screenshot is kept in test-artifacts/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { ReplayServer } from '../../src/replay/replay-server.js';
import { replaySources } from '../../src/replay/replay-sources.js';
import { jobWarcs } from '../../src/job/job-dir.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { crawlJob } from '../wacz/crawl-job.js';
import { launch, openArchived, type ReplayBrowser } from './browser.js';
import { needs } from '../helpers/programs.js';

/** Skipped, with what to install, when chromium is not on the machine (npm test's pretest installs it on Debian as root). */
const missingChromium = needs('chromium', 'chromium');

interface Expected {
  url: string;
  title: string;
  /** A sentence of the page's body text. */
  sentence: string;
  /** <img> elements in the page as served. */
  images: number;
}

let tmp: string;
let dir: string;
let wacz: string;
let pageCount: number;
let home: Expected;
let gzipPage: Expected;
let chunkedPage: Expected;
let server: ReplayServer;
let browser: ReplayBrowser;

function expectedOf(web: FixtureWeb, url: string): Expected {
  let body = web.bodyFor(url)!;
  if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body);
  const html = body.toString('utf8');
  const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '';
  const sentence = /<p>([^<]{30,})/.exec(html)?.[1]?.trim() ?? '';
  const images = (html.match(/<img /g) ?? []).length;
  return { url, title, sentence, images };
}

before(async () => {
  if (missingChromium.skip) return;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-replay-'));
  const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
  try {
    const crawled = await crawlJob(web, tmp, 'replay');
    dir = crawled.dir;
    // The package the crawl's own end made: its page list and index were made as the crawl went (live-package.ts).
    assert.ok(crawled.crawlWacz !== null, 'the crawl packaged its job');
    wacz = crawled.crawlWacz;
    pageCount = crawled.job.pages;
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const responses = records.filter((r) => r.type === 'response' && r.status === 200 && (r.httpHeaders.get('content-type') ?? '').startsWith('text/html'));
    // Pages with a sentence of text and at least one image, so both are checked on each.
    const html = (r: (typeof responses)[number]): string => (r.httpHeaders.get('content-encoding') === 'gzip' ? gunzipSync(r.payload) : r.payload).toString('utf8');
    // Only pages whose every image was archived: an image robots.txt kept out (about.html's
    // /private/staff.gif on a host with robots.txt) rightly stays broken in replay. Taken in URL
    // order, not the WARC's, which follows the crawl's timing.
    const archived = new Set(records.filter((r) => r.type === 'response' && r.status === 200).map((r) => r.url));
    const imagesArchived = (r: (typeof responses)[number]): boolean =>
      [...html(r).matchAll(/<img [^>]*src="([^"]+)"/g)].every((m) => archived.has(new URL(m[1]!.replaceAll('&amp;', '&'), r.url).href));
    const rich = (r: (typeof responses)[number]): boolean => /<p>[^<]{30,}/.test(html(r)) && /<img /.test(html(r)) && imagesArchived(r);
    responses.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    const gz = responses.find((r) => r.httpHeaders.get('content-encoding') === 'gzip' && rich(r));
    const chunked = responses.find((r) => r.httpHeaders.has('x-archive-orig-transfer-encoding') && r.httpHeaders.get('content-encoding') !== 'gzip' && rich(r));
    assert.ok(gz && chunked, 'the fixture has a gzip page and a chunked page, each with text and images');
    home = expectedOf(web, web.seeds[0]!);
    gzipPage = expectedOf(web, gz.url);
    chunkedPage = expectedOf(web, chunked.url);
    for (const want of [home, gzipPage, chunkedPage]) assert.ok(want.title !== '' && want.sentence !== '' && want.images > 0, JSON.stringify(want));
  } finally {
    await web.close();
  }
  server = await ReplayServer.start({ sources: await replaySources([wacz]) });
  browser = await launch(server);
});

after(async () => {
  if (missingChromium.skip) return;
  await browser?.close();
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('ReplayWeb.page in Chromium, WACZ from archiver replay', missingChromium, () => {
  test('the home page renders from the archive: title, text and every image', async () => {
    const got = await openArchived(browser, server, home.url);
    assert.equal(got.title, home.title);
    assert.ok(got.text.includes(home.sentence), `body text has "${home.sentence}"`);
    assert.equal(got.images.length, home.images, 'every image of the page is in the replayed document');
    for (const img of got.images) assert.ok(img.naturalWidth > 0, `image ${img.src} rendered`);
    const shot = path.join(tmp, 'replay-home.png');
    await browser.page.screenshot({ path: shot });
    await mkdir('test-artifacts', { recursive: true });
    await copyFile(shot, path.join('test-artifacts', 'replay-home.png'));
  });

  test('a page reached through the 301 → 302 redirect chain', async () => {
    const origin = new URL(home.url).origin;
    const got = await openArchived(browser, server, `${origin}/old-home`);
    assert.equal(got.url, `${origin}/welcome.html`);
    assert.equal(got.title, 'Welcome to our new home');
  });

  test('a gzip-encoded page and a chunked page', async () => {
    for (const want of [gzipPage, chunkedPage]) {
      const got = await openArchived(browser, server, want.url);
      assert.equal(got.title, want.title, want.url);
      assert.ok(got.text.includes(want.sentence), `${want.url} text has "${want.sentence}"`);
      assert.equal(got.images.length, want.images, `${want.url} images`);
      for (const img of got.images) assert.ok(img.naturalWidth > 0, `image ${img.src} on ${want.url}`);
    }
  });

  test('the page list shows every page of pages.jsonl', async () => {
    const page = browser.page;
    await page.goto('about:blank');
    await page.goto(server.viewerUrl());
    await page.getByText(`${pageCount} pages`, { exact: true }).waitFor({ timeout: 15_000 });
  });

  test('nothing was requested from anywhere but the replay server', () => {
    assert.deepEqual(browser.outside, []);
  });
});

describe('ReplayWeb.page in Chromium, raw WARCs', missingChromium, () => {
  test('the job WARCs, served as one archive, replay the home page', async () => {
    const warcServer = await ReplayServer.start({ sources: await replaySources(await jobWarcs(dir)) });
    const b = await launch(warcServer);
    try {
      const got = await openArchived(b, warcServer, home.url);
      assert.equal(got.title, home.title);
      assert.ok(got.text.includes(home.sentence));
      assert.equal(got.images.length, home.images);
      for (const img of got.images) assert.ok(img.naturalWidth > 0, `image ${img.src}`);
      assert.deepEqual(b.outside, []);
    } finally {
      await b.close();
      await warcServer.close();
    }
  });
});
