/**
 * A bug while processing one URI must not end a crawl of thousands (Heritrix
 * logs such a URI as -5 "runtime error" and goes on). Simulated by making the
 * processor throw for one URL; a storage failure, by contrast, stops the crawl.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { FatalCrawlError } from '../../src/core/errors.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { UriProcessor } from '../../src/crawl/uri-processor.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import type { Claim } from '../../src/frontier/frontier.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';

let tmp: string;
let web: FixtureWeb;
const original = UriProcessor.prototype.process;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-runtime-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
});
after(async () => {
  UriProcessor.prototype.process = original;
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

function failFor(url: string, error: Error): void {
  UriProcessor.prototype.process = function (this: UriProcessor, claim: Claim, worker: number) {
    if (claim.uri.url === url) return Promise.reject(error);
    return original.call(this, claim, worker);
  };
}

test('one URI failing in processing is logged -5 and the crawl finishes', async () => {
  const victim = `${web.origins[0]}/about.html`;
  failFor(victim, new TypeError('simulated bug'));
  const profile = validateProfile(testProfileJson('bug', web.seeds, path.join(tmp, 'bug')));
  const summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  assert.equal(summary.status, 'FINISHED');
  const log = await readFile(path.join(tmp, 'bug', 'logs', 'crawl.log'), 'utf8');
  assert.match(log, new RegExp(`^\\S+ +-5 +- ${victim.replace(/[.]/g, '\\.')} .* err:TypeError$`, 'm'));
  assert.ok(summary.pages > 20, `the rest was crawled (${summary.pages} pages)`);
});

test('a storage failure stops the crawl with that error', async () => {
  failFor(web.seeds[1]!, new FatalCrawlError('ARCHIVER_WARC_WRITE', 'WARC write failed (EIO)'));
  const profile = validateProfile(testProfileJson('fatal', web.seeds, path.join(tmp, 'fatal')));
  await assert.rejects(runCrawl({ profile, stderr: captureIo().stderr, quiet: true }), (err: FatalCrawlError) => err.code === 'ARCHIVER_WARC_WRITE');
});

test('an earlier crawl that is not there stops the crawl before it starts, and leaves the job usable', async () => {
  UriProcessor.prototype.process = original;
  const dir = path.join(tmp, 'against');
  const missing = validateProfile(testProfileJson('against', web.seeds, dir, { dedup: { against: [path.join(tmp, 'no-such-job')] } }));
  await assert.rejects(runCrawl({ profile: missing, stderr: captureIo().stderr, quiet: true }), { code: 'ARCHIVER_NO_INPUT' });
  // The state database was closed on the way out: this process can open it again
  // (LevelDB refuses a second handle while the first holds the lock).
  const summary = await runCrawl({ profile: validateProfile(testProfileJson('against', web.seeds, dir)), stderr: captureIo().stderr, quiet: true });
  assert.equal(summary.status, 'FINISHED');
  assert.ok(summary.pages > 5, `${summary.pages} pages`);
});
