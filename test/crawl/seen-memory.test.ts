/**
 * A crawl whose already-seen table is far too small to hold its URLs
 * (uniq.memoryKeys) must still see exactly: every reachable URL
 * fetched once, none twice, the same captures as with the default table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const fx = fixtureWebSuite('archiver-seenmem-', { hosts: 3, pagesPerHost: 8, port: 0 });

async function crawlWith(name: string, memoryKeys: number): Promise<string[]> {
  const profile = validateProfile(testProfileJson(name, fx.web.seeds, path.join(fx.tmp, name), { workers: 6, uniq: { memoryKeys } }), name);
  await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  const records = await readWarcDir(path.join(profile.output.dir, 'warcs'));
  return records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url).sort();
}

test('a 5-key seen table still fetches every reachable URL exactly once', async () => {
  const small = await crawlWith('small-table', 5);
  const before = fx.web.requests.length;
  const normal = await crawlWith('default-table', 12_000_000);
  assert.equal(new Set(small).size, small.length, 'a URL was captured twice');
  assert.deepEqual(small, normal);
  const reachable = fx.web.expectedUrls().reachable;
  assert.deepEqual(reachable.filter((u) => !small.includes(u)), []);
  assert.ok(before > 0 && fx.web.requests.length - before === before, 'both crawls made the same number of requests');
});
