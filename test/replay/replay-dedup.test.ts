/**
 * Dedup across crawls, in a real browser: the fixture web crawled twice,
 * the second time with `dedup.against` the first, so the second package
 * holds revisits whose payloads live only in the first. Served together
 * (`archiver replay first.wacz second.wacz`, a multi-WACZ collection), a
 * page of the second crawl — at the second crawl's timestamp — must render
 * with its title, text and images; the second package alone cannot supply
 * its body, which shows the body really comes from the first.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { parseCdxjLine, type CdxjEntry } from '../../src/index/cdxj.js';
import { ReplayServer } from '../../src/replay/replay-server.js';
import { replaySources } from '../../src/replay/replay-sources.js';
import { crawlJob } from '../wacz/crawl-job.js';
import { launch, openArchived, type ReplayBrowser } from './browser.js';
import { needs } from '../helpers/programs.js';

/** Skipped, with what to install, when chromium is not on the machine (npm test's pretest installs it on Debian as root). */
const missingChromium = needs('chromium', 'chromium');

let tmp: string;
let firstWacz: string;
let secondWacz: string;
let revisited: { url: string; ts: string; title: string; sentence: string };
let server: ReplayServer;
let browser: ReplayBrowser;

async function indexOf(dir: string): Promise<CdxjEntry[]> {
  return (await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8')).split('\n').filter((l) => l !== '').map(parseCdxjLine);
}

before(async () => {
  if (missingChromium.skip) return;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-replay-dedup-'));
  const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
  try {
    const first = await crawlJob(web, tmp, 'first');
    // A second later, so the second crawl's captures have timestamps of their own.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await crawlJob(web, tmp, 'second', { dedup: { against: [first.dir] } });
    firstWacz = first.job.wacz;
    secondWacz = second.job.wacz;
    const home = web.seeds[0]!;
    const entry = (await indexOf(second.dir)).find((e) => e.url === home);
    assert.equal(entry?.mime, 'warc/revisit', 'the home page is a revisit in the second crawl');
    const firstTs = (await indexOf(first.dir)).filter((e) => e.url === home).map((e) => e.timestamp);
    assert.ok(!firstTs.includes(entry.timestamp), 'the two captures have different timestamps');
    let body = web.bodyFor(home)!;
    if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body);
    const html = body.toString('utf8');
    revisited = {
      url: home,
      ts: entry.timestamp,
      title: /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '',
      sentence: /<p>([^<]{30,})/.exec(html)?.[1]?.trim() ?? '',
    };
    assert.ok(revisited.title && revisited.sentence);
  } finally {
    await web.close();
  }
  server = await ReplayServer.start({ sources: await replaySources([firstWacz, secondWacz]) });
  browser = await launch(server);
});

after(async () => {
  if (missingChromium.skip) return;
  await browser?.close();
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('ReplayWeb.page in Chromium, two crawls deduplicated against each other', missingChromium, () => {
  test('a revisited page of the second crawl renders from the first crawl\'s payload', async () => {
    const got = await openArchived(browser, server, revisited.url, 20_000, revisited.ts);
    assert.equal(got.ts, revisited.ts, 'the second crawl\'s capture was replayed');
    assert.equal(got.title, revisited.title);
    assert.ok(got.text.includes(revisited.sentence), `body text has "${revisited.sentence}"`);
    assert.ok(got.images.length > 0);
    for (const img of got.images) assert.ok(img.naturalWidth > 0, `image ${img.src} rendered`);
    assert.deepEqual(browser.outside, []);
  });

  test('the second package alone cannot render it (the payload is only in the first)', async () => {
    const alone = await ReplayServer.start({ sources: await replaySources([secondWacz]) });
    const b = await launch(alone);
    try {
      // The viewer must load and reach the capture: a crash, a timeout or a
      // server error throws here and fails the test. What it then shows is
      // ReplayWeb.page's own page for a revisit whose original is absent.
      const got = await openArchived(b, alone, revisited.url, 20_000, revisited.ts);
      assert.equal(got.ts, revisited.ts, 'the second crawl\'s capture was looked up');
      assert.equal(got.title, 'Original Archived Page Missing');
      assert.ok(got.text.includes('marked as a duplicate'), got.text);
      assert.ok(!got.text.includes(revisited.sentence), 'rendered without the original');
      assert.notEqual(got.title, revisited.title);
      assert.deepEqual(b.outside, []);
    } finally {
      await b.close();
      await alone.close();
    }
  });
});
