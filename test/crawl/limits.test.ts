/**
 * The crawl limits (README "The profile": limits.maxPages, maxBytes,
 * maxDurationSec) in real crawls of the fixture web, each checked on what
 * was written: the WARCs' own records, not the crawler's counters. A limit
 * stops the crawl from taking new URIs; fetches already in flight finish,
 * so a crawl may pass its limit by at most what its workers had in flight.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const WORKERS = 3;
const fx = fixtureWebSuite('archiver-limits-', { hosts: 2, pagesPerHost: 4, port: 0 });

async function crawl(name: string, limits: Record<string, number>, target: FixtureWeb = fx.web) {
  const dir = path.join(fx.tmp, name);
  const profile = validateProfile(testProfileJson(name, target.seeds, dir, { workers: WORKERS, limits: { fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10, ...limits } }), name);
  const summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  const captures = (await readWarcDir(path.join(dir, 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit');
  const report = JSON.parse(await readFile(path.join(dir, 'reports', 'crawl-report.json'), 'utf8')) as { status: string; uris: number; bytes: number };
  return { summary, captures, report };
}

describe('limits', () => {
  test('maxPages: stops after that many captures, every response counted', async () => {
    const reachable = fx.web.expectedUrls().reachable.length;
    const { captures, report } = await crawl('max-pages', { maxPages: 12 });
    assert.ok(reachable > 40, `${reachable} reachable URLs`);
    assert.equal(report.status, 'FINISHED_DOCUMENT_LIMIT');
    assert.ok(captures.length >= 12, `${captures.length} captures`);
    assert.ok(captures.length <= 12 + WORKERS - 1, `${captures.length} captures for maxPages 12 and ${WORKERS} workers`);
    assert.equal(report.uris, captures.length);
  });

  test('maxBytes: stops once the body bytes pass the limit', async () => {
    const maxBytes = 20_000;
    const { captures, report } = await crawl('max-bytes', { maxBytes });
    assert.equal(report.status, 'FINISHED_DATA_LIMIT');
    const bytes = captures.map((r) => (r.type === 'revisit' ? 0 : r.payload.length));
    const total = bytes.reduce((a, b) => a + b, 0);
    assert.ok(total >= maxBytes, `${total} bytes archived`);
    // What was in flight when the limit passed is at most the WORKERS - 1 largest other bodies.
    const inFlightAtMost = [...bytes].sort((a, b) => b - a).slice(0, WORKERS).reduce((a, b) => a + b, 0);
    assert.ok(total - inFlightAtMost < maxBytes, `${total} bytes: more than the limit plus what could have been in flight`);
    assert.ok(captures.length < fx.web.expectedUrls().reachable.length, 'the crawl was cut short');
  });

  test('maxDurationSec: stops after that many seconds of this run', async () => {
    // 150 ms per answer over ~100 URLs on two hosts: several seconds unlimited.
    const slow = await FixtureWeb.start({ hosts: 2, pagesPerHost: 4, port: 0, latencyMs: 150 });
    try {
      const { summary, captures, report } = await crawl('max-duration', { maxDurationSec: 1 }, slow);
      assert.equal(report.status, 'FINISHED_TIME_LIMIT');
      assert.ok(captures.length > 0 && captures.length < slow.expectedUrls().reachable.length, `${captures.length} captures`);
      // Bounded from below only (a busy machine makes a run longer, never shorter).
      assert.ok(summary.runDurationMs >= 1000, `stopped after ${summary.runDurationMs} ms`);
      // Once stopped it takes no new URI: every request but the ones in flight at the stop became a capture.
      const requests = slow.requests;
      assert.ok(requests.length <= captures.length + WORKERS, `${requests.length} requests, ${captures.length} captures`);
    } finally {
      await slow.close();
    }
  });
});
