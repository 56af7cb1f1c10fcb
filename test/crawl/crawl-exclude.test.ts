/**
 * An operator's exclusion (crawl.exclude) outlives the run that added it:
 * a crawl stopped after an exclusion and resumed fetches no matching URL,
 * and the matching URIs still queued are logged -6000 deletedByOperator as
 * they come up. Also: links found after the exclusion are refused by scope,
 * a repeated exclusion is not added twice, and a bad one is refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-exclude-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 60, port: 0, latencyMs: 10 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('operator exclusions', () => {
  it('are kept when the crawl is resumed: no matching URL is fetched, queued ones are logged -6000', async () => {
    const dir = path.join(tmp, 'resumed');
    const profile = () => validateProfile(testProfileJson('resumed', web.seeds, dir, { workers: 2 }), 'resumed');
    const crawl = await Crawl.start(profile(), { log: captureIo().stderr, quiet: true });
    let captures = 0;
    crawl.events.on('capture', () => captures++);
    await until(() => captures >= 12, '12 captures');
    crawl.pause();
    await until(() => crawl.status().inProcess === 0, 'in-flight fetches to finish');
    assert.deepEqual(await crawl.exclude('/s/2/'), { added: true, dropped: 0 });
    assert.deepEqual(await crawl.exclude('/s/2/'), { added: false, dropped: 0 });
    await assert.rejects(crawl.exclude('[unclosed'), { code: 'ARCHIVER_BAD_EXCLUSION' });
    crawl.stop();
    assert.equal((await crawl.done).status, 'ABORTED');
    const firstRunLines = (await readFile(path.join(dir, 'logs', 'crawl.log'), 'utf8')).trimEnd().split('\n').length;

    web.takeRequests();
    const summary = await runCrawl({ profile: profile(), stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    assert.ok(web.requests.length > 50, 'the resumed crawl went on');
    assert.deepEqual(web.requests.filter((r) => r.path.includes('/s/2/')).map((r) => r.path), [], 'nothing excluded was fetched');
    const resumed = (await readFile(path.join(dir, 'logs', 'crawl.log'), 'utf8')).trimEnd().split('\n').slice(firstRunLines).map((l) => l.trim().split(/\s+/));
    const dropped = resumed.filter((f) => f[1] === '-6000');
    assert.ok(dropped.length > 0, 'URIs queued before the exclusion were dropped');
    for (const f of dropped) {
      assert.match(f[3]!, /\/s\/2\//);
      assert.equal(f[11], 'deletedByOperator');
    }
    const matching = resumed.filter((f) => /\/s\/2\//.test(f[3]!));
    assert.deepEqual(matching.filter((f) => f[1] !== '-6000' && f[1] !== '-5000'), [], 'every matching line is a drop or a refusal');
  });
});
