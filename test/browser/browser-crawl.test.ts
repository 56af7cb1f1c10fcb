/**
 * Browser capture end to end: real Chromium (Debian's), a JavaScript web of
 * two hosts on loopback, a crawl with `"browser": {"enabled": true}`, a
 * 100 ms minimum delay and one connection per host. The server's request
 * log is the judge: every link and resource only JavaScript produces was
 * fetched (after fetch(), on scroll, the lazy image, the other host's
 * image), nothing robots.txt disallows, every URL once (the shared CSS
 * too), at most one request in flight per host and at least the delay
 * between two. The WARCs are read back with warcio: byte-exact records with
 * Content-Encoding kept, each response beside its request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import type { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../src/crawl/reports.js';
import { captureIo } from '../helpers/capture.js';
import { crawlLogLines, type CrawlLogLine } from '../helpers/crawl-log-lines.js';
import { TEST_USER_AGENT, testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir, type ReadRecord } from '../helpers/warc-read.js';
import { ReplayServer } from '../../src/replay/replay-server.js';
import { replaySources } from '../../src/replay/replay-sources.js';
import { launch, openArchived, type ReplayBrowser, type ReplayedPage } from '../replay/browser.js';
import { BURST, JS_ONLY_PATHS, JS_ONLY_RESOURCES, startJsWeb, type Hit, type JsWeb } from './js-web.js';

const MIN_DELAY_MS = 100;

let tmp: string;
let web: JsWeb;
let summary: CrawlSummary;
let lines: CrawlLogLine[];
let records: ReadRecord[];
let stderr: string;
let handle: Crawl;
/** Warnings the process emitted while the crawl ran (a listener leak is one). */
const warnings: Error[] = [];
const onWarning = (w: Error): void => void warnings.push(w);

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-browser-'));
  web = await startJsWeb();
  const dir = path.join(tmp, 'js');
  const profile = validateProfile(
    testProfileJson('js', [`${web.a}/`], dir, {
      workers: 4,
      politeness: { delayFactor: 0, minDelayMs: MIN_DELAY_MS, maxDelayMs: 1000, maxConnectionsPerHost: 1 },
      browser: { enabled: true, executable: '/usr/bin/chromium', idleMs: 300, pageTimeoutMs: 20000, behaviorTimeoutMs: 8000, maxRequestsPerPage: 40 },
    }),
    'js',
  );
  const io = captureIo();
  process.on('warning', onWarning);
  try {
    summary = await runCrawl({ profile, stderr: io.stderr, quiet: false, onStart: (c) => (handle = c) });
  } finally {
    process.off('warning', onWarning);
  }
  stderr = io.stderr.text;
  lines = await crawlLogLines(dir);
  records = await readWarcDir(path.join(dir, 'warcs'));
});

after(async () => {
  await web?.close();
  await rm(tmp, { recursive: true, force: true });
});

const onA = (h: Hit): boolean => h.host === new URL(web.a).host;

describe('browser capture of a JavaScript web', () => {
  test('every link and resource only JavaScript produces was fetched', () => {
    const fetched = new Set(web.hits.filter(onA).map((h) => h.path));
    for (const p of [...JS_ONLY_PATHS, ...JS_ONLY_RESOURCES]) assert.ok(fetched.has(p), `${p} not fetched; server saw ${[...fetched].join(' ')}\n${stderr}`);
    assert.ok(web.hits.some((h) => h.host === new URL(web.b).host && h.path === '/logo.png'), 'the image on the second host was not fetched');
  });

  test('nothing robots.txt disallows was requested, and its refusal is in crawl.log', () => {
    assert.deepEqual(web.hits.filter((h) => h.path.startsWith('/private/')), []);
    const line = lines.find((l) => l.url === `${web.a}/private/secret.json`);
    assert.ok(line, 'no crawl.log line for the disallowed fetch');
    assert.equal(line.status, -9998);
  });

  test('Chromium itself never reached the server: every request came from the crawler', () => {
    assert.deepEqual(web.hits.filter((h) => h.userAgent !== TEST_USER_AGENT).map((h) => `${h.host}${h.path} ${h.userAgent}`), []);
  });

  test('every URL was fetched once; the shared CSS once for all pages', () => {
    const seen = new Map<string, number>();
    for (const h of web.hits) seen.set(`${h.method} ${h.host}${h.path}`, (seen.get(`${h.method} ${h.host}${h.path}`) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(twice, []);
    assert.equal(web.hits.filter((h) => h.path === '/style.css').length, 1);
  });

  test('politeness as the server measured it: one request in flight per host, gaps at least the minimum delay', () => {
    for (const host of new Set(web.hits.map((h) => h.host))) {
      const mine = web.hits.filter((h) => h.host === host).sort((x, y) => x.startMs - y.startMs);
      for (const h of mine) assert.equal(h.inFlightAtStart, 1, `${host}${h.path} overlapped another request`);
      for (let i = 1; i < mine.length; i++) {
        const gap = mine[i]!.startMs - mine[i - 1]!.endMs;
        assert.ok(gap >= MIN_DELAY_MS - 1, `${host}: ${mine[i]!.path} came ${gap.toFixed(1)} ms after ${mine[i - 1]!.path}\n${mine.slice(Math.max(0, i - 3), i + 2).map((h) => `${h.startMs.toFixed(1)} ${h.endMs.toFixed(1)} ${h.method} ${h.path} ${h.userAgent}`).join('\n')}`);
      }
    }
  });

  test('a page waiting on a dozen subrequests at once leaks no listener: no MaxListenersExceededWarning', () => {
    const burst = web.hits.filter((h) => h.path.startsWith('/ping?burst=')).length;
    assert.equal(burst, BURST, `${burst} of the beacon page's ${BURST} requests made at once were fetched`);
    assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
  });

  test('the endless beacon ended: the page was done, its beacons capped', () => {
    const beacon = lines.find((l) => l.url === `${web.a}/beacon`);
    assert.ok(beacon, 'no crawl.log line for the beacon page');
    assert.ok(beacon.annotations.some((a) => a.startsWith('rendered:')), beacon.annotations.join(','));
    const pings = web.hits.filter((h) => h.path.startsWith('/ping?')).length;
    // maxRequestsPerPage (40) counts every request of the page, its own subresources too.
    assert.ok(pings >= 1 && pings <= 40, `${pings} pings`);
  });

  test('the POST was made once, with its JSON body, and archived with it', () => {
    const posts = web.hits.filter((h) => h.method === 'POST');
    assert.deepEqual(posts.map((h) => [h.path, h.body]), [['/api/search', '{"q":"widget"}']]);
    const i = records.findIndex((r) => r.type === 'response' && r.url === `${web.a}/api/search`);
    assert.ok(i >= 0, 'no response record for the POST');
    assert.equal(records[i]!.status, 200);
    const request = [records[i - 1], records[i + 1]].find((x) => x?.type === 'request' && x.url === `${web.a}/api/search`);
    assert.ok(request, 'no request record beside the POST response');
    assert.equal(request.payload.toString('utf8'), '{"q":"widget"}');
    assert.equal(request.httpHeaders.get('content-type'), 'application/json');
  });

  test('the service worker was never fetched', () => {
    assert.deepEqual(web.hits.filter((h) => h.path === '/sw.js'), []);
  });

  test('crawl.log marks what the browser found and requested', () => {
    const item = lines.find((l) => l.url === `${web.a}/item/1`);
    assert.ok(item?.annotations.includes('browserLink'), JSON.stringify(item));
    const json = lines.find((l) => l.url === `${web.a}/api/items.json`);
    assert.ok(json?.annotations.includes('browserRequest'), JSON.stringify(json));
    const home = lines.find((l) => l.url === `${web.a}/`);
    assert.ok(home?.annotations.some((a) => a.startsWith('rendered:')), JSON.stringify(home));
  });

  test('the WARC holds byte-exact records: the gzipped JSON stored gzipped, beside its request', () => {
    const i = records.findIndex((r) => r.type === 'response' && r.url === `${web.a}/api/items.json`);
    assert.ok(i >= 0, 'no response record for the JSON');
    const r = records[i]!;
    assert.equal(r.httpHeaders.get('content-encoding'), 'gzip');
    const items = JSON.parse(gunzipSync(r.payload).toString('utf8')) as Array<{ href: string }>;
    assert.equal(items.length, 3);
    const neighbours = [records[i - 1], records[i + 1]].filter((x) => x !== undefined);
    assert.ok(neighbours.some((x) => x.type === 'request' && x.url === r.url), 'no request record beside the response');
    // The lazy image has the second host's logo's bytes: its record is a revisit of it.
    for (const p of ['/img/lazy.png', '/more/3']) assert.ok(records.some((x) => (x.type === 'response' || x.type === 'revisit') && x.url === `${web.a}${p}`), `${p} not archived`);
  });

  test('the summary and the status count rendered pages and subrequests; the status shows the tabs', () => {
    assert.ok(summary.pages >= 10, JSON.stringify(summary));
    const b = summary.browser;
    assert.ok(b !== undefined && b.pagesRendered >= 10 && b.subrequests >= 10 && b.subrequestsRefused >= 1, JSON.stringify(b));
    const status = handle.status().browser;
    assert.deepEqual(status && [status.tabs, status.busyTabs, status.pagesRendered], [2, 0, b.pagesRendered]);
  });
});

/**
 * The WACZ in ReplayWeb.page (Chromium, `archiver replay`'s server), the
 * fixture web closed first: the content JavaScript rendered at crawl time
 * renders again from the archive — the list fetched as JSON, the POST's
 * answer — and the browser asks nothing of the live hosts.
 */
describe('the WACZ replays in ReplayWeb.page', () => {
  let server: ReplayServer;
  let viewer: ReplayBrowser;

  before(async () => {
    await web.close();
    assert.ok(summary.wacz, 'no WACZ');
    server = await ReplayServer.start({ sources: await replaySources([summary.wacz]) });
    viewer = await launch(server);
  });

  after(async () => {
    await viewer?.close();
    await server?.close();
  });

  async function textOf(page: ReplayedPage, wanted: string): Promise<string> {
    let text = page.text;
    for (let i = 0; i < 100 && !text.includes(wanted); i++) {
      await viewer.page.waitForTimeout(200);
      text = String(await page.frame.evaluate('document.body ? document.body.innerText : ""'));
    }
    return text;
  }

  test('the list rendered from fetched JSON shows in replay', async () => {
    const got = await openArchived(viewer, server, `${web.a}/`);
    assert.equal(got.title, 'Home');
    assert.match(await textOf(got, 'Item three'), /Item one[\s\S]*Item three/);
  });

  test("the POST's answer shows in replay", async () => {
    const got = await openArchived(viewer, server, `${web.a}/post`);
    assert.match(await textOf(got, 'Found widget'), /Found widget/);
  });

  test('nothing was requested from the live hosts', () => {
    assert.deepEqual(viewer.outside, []);
  });
});
