/**
 * A crawl that follows links begins at once, and its captures wait for a page
 * thread still starting, PAGE_THREAD_WAIT_MS from the start at most
 * (crawl-start.ts, PageThread.holdFor): robots.txt and the seed are fetched
 * while the thread warms up. With a worker that never becomes ready, the
 * seed's links are fetched once the hold is over, its pages worked on the
 * main thread.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { validateProfile } from '../../src/config/load-profile.js';
import { BatchedWorker } from '../../src/core/batched-worker.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { PAGE_THREAD_WAIT_MS } from '../../src/crawl/page-thread.js';
import { startPageWorker, type PageWorker } from '../../src/crawl/page-worker-start.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const compiled = import.meta.url.endsWith('.js');

const fx = fixtureWebSuite('archiver-pagestart-', { hosts: 1, pagesPerHost: 5, port: 0 });

interface StartSeen {
  /** ms from the call to Crawl.start until it returned, until robots.txt was asked for, and until the first page past the seed was. */
  startMs: number;
  robotsMs: number;
  pastSeedMs: number;
  readyAtStart: boolean;
  /** The fixture's URLs the crawl did not ask for. */
  missed: string[];
}

/** Crawls the fixture web with `worker` as its page thread's worker. */
async function crawlWith(name: string, worker: PageWorker): Promise<StartSeen> {
  const profile = validateProfile(testProfileJson(name, fx.web.seeds, path.join(fx.tmp, name), { store: 'memory' }), name);
  fx.web.takeRequests();
  const t0 = Date.now();
  const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true, pageWorker: worker });
  const startMs = Date.now() - t0;
  const readyAtStart = worker.ready;
  await crawl.done;
  await worker.close();
  const requests = fx.web.takeRequests().sort((a, b) => a.startMs - b.startMs);
  const seeds = new Set(fx.web.seeds);
  const url = (r: { host: string; path: string }): string => `http://${r.host}${r.path}`;
  const robots = requests.find((r) => r.path === '/robots.txt');
  const pastSeed = requests.find((r) => r.path !== '/robots.txt' && !seeds.has(url(r)));
  assert.ok(robots && pastSeed, 'robots.txt and pages past the seed were asked for');
  const requested = new Set(requests.map(url));
  return { startMs, robotsMs: robots.startMs - t0, pastSeedMs: pastSeed.startMs - t0, readyAtStart, missed: fx.web.expectedUrls().reachable.filter((u) => !requested.has(u)) };
}

describe('a crawl and its page thread at the start', () => {
  it('begins at once with a worker started ahead of it, and crawls everything through it', async () => {
    const { startMs, robotsMs, missed } = await crawlWith('ready', startPageWorker());
    assert.ok(startMs < PAGE_THREAD_WAIT_MS && robotsMs < PAGE_THREAD_WAIT_MS, `started after ${startMs} ms, robots.txt asked for after ${robotsMs} ms`);
    assert.deepEqual(missed, []);
  });

  it('with a worker that never becomes ready: robots.txt at once, the links of the seed after the hold, worked here', async () => {
    const silent: PageWorker = new BatchedWorker(() => new Worker('setInterval(() => {}, 60_000);', { eval: true }));
    const { robotsMs, pastSeedMs, readyAtStart, missed } = await crawlWith('silent', silent);
    assert.equal(readyAtStart, false);
    assert.ok(robotsMs < PAGE_THREAD_WAIT_MS, `robots.txt asked for after ${robotsMs} ms: the crawl waited for its page thread`);
    if (compiled) assert.ok(pastSeedMs >= PAGE_THREAD_WAIT_MS - 5, `a link of the seed asked for after ${pastSeedMs} ms, before the hold of ${PAGE_THREAD_WAIT_MS} ms was over`);
    assert.deepEqual(missed, []);
  });
});
