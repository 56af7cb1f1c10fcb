/**
 * The memory row end to end: a crawl with `store: "memory"` runs like one
 * on LevelDB (every page of the fixture site captured once) and leaves
 * nothing in the job's state directory.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { it } from 'node:test';
import { validateProfile } from '../../src/config/load-profile.js';
import { captureIo } from '../helpers/capture.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const fx = fixtureWebSuite('archiver-memory-crawl-', { hosts: 1, pagesPerHost: 6, port: 0 });

it('crawls the same pages on memory as on level, and keeps no state on disk', async () => {
  const summaries = [];
  for (const store of ['level', 'memory']) {
    const dir = path.join(fx.tmp, store);
    summaries.push(await runCrawl({ profile: validateProfile(testProfileJson(store, fx.web.seeds, dir, { store, workers: 2 })), stderr: captureIo().stderr, quiet: true }));
  }
  const [level, memory] = summaries;
  assert.equal(memory!.status, 'FINISHED');
  assert.ok(level!.uris > 1, `level crawled ${level!.uris}`);
  assert.equal(memory!.uris, level!.uris);
  assert.deepEqual(await readdir(path.join(fx.tmp, 'memory', 'state')).catch(() => []), []);
  assert.notDeepEqual(await readdir(path.join(fx.tmp, 'level', 'state')), []);
});
