/**
 * A crawl that follows links begins once its page thread is ready, waiting
 * PAGE_THREAD_WAIT_MS at most (crawl-start.ts): with a worker started ahead
 * of it (as the CLI does), the crawl starts with that worker ready, or after
 * the whole wait; with a worker that never becomes ready, it waits that long
 * and then crawls, its pages worked on the main thread.
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

/** Crawls the fixture web with `worker` as its page thread's worker: how long the start took, whether the worker was ready then, and the URLs the crawl missed. */
async function crawlWith(name: string, worker: PageWorker): Promise<{ startMs: number; readyAtStart: boolean; missed: string[] }> {
  const profile = validateProfile(testProfileJson(name, fx.web.seeds, path.join(fx.tmp, name), { store: 'memory' }), name);
  fx.web.takeRequests();
  const t0 = performance.now();
  const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true, pageWorker: worker });
  const startMs = performance.now() - t0;
  const readyAtStart = worker.ready;
  await crawl.done;
  await worker.close();
  const requested = new Set(fx.web.takeRequests().map((r) => `http://${r.host}${r.path}`));
  return { startMs, readyAtStart, missed: fx.web.expectedUrls().reachable.filter((u) => !requested.has(u)) };
}

describe('a crawl and its page thread at the start', () => {
  it('begins with the worker started ahead of it ready, or after the whole wait', async () => {
    const { startMs, readyAtStart, missed } = await crawlWith('ready', startPageWorker());
    if (compiled) assert.ok(readyAtStart || startMs >= PAGE_THREAD_WAIT_MS - 5, `started after ${startMs.toFixed(0)} ms with the worker not ready`);
    assert.deepEqual(missed, []);
  });

  it('waits PAGE_THREAD_WAIT_MS for a worker that never becomes ready, then crawls with its pages worked here', async () => {
    const silent: PageWorker = new BatchedWorker(() => new Worker('setInterval(() => {}, 60_000);', { eval: true }));
    const { startMs, readyAtStart, missed } = await crawlWith('silent', silent);
    assert.equal(readyAtStart, false);
    assert.ok(startMs >= PAGE_THREAD_WAIT_MS - 5, `started after ${startMs.toFixed(0)} ms, before the wait of ${PAGE_THREAD_WAIT_MS} ms was over`);
    assert.deepEqual(missed, []);
  });
});
