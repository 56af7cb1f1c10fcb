/**
 * A crawl's WARC files open with a warcinfo record made on the page thread,
 * which has warcio loaded for its captures, so that the main thread never
 * loads warcio (~20 ms of CPU at every start). The record is the one this
 * thread would make. Its own file: whether this thread has loaded warcio is
 * asked before anything here loads it. Under `npm test` (compiled
 * JavaScript) the worker runs; from the TypeScript sources (tsx) the thread
 * falls back by design and makes it here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { PageThread } from '../../src/crawl/page-thread.js';
import { startPageWorker } from '../../src/crawl/page-worker-start.js';
import { warcInfoMember } from '../../src/writer/capture-members.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import type { WarcInfoInput } from '../../src/writer/warc-records.js';
import { captureIo } from '../helpers/capture.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';
import { gzipMembers, recordWithoutIds } from '../helpers/gzip-members.js';
import { testProfileJson } from '../helpers/test-profile.js';

const compiled = import.meta.url.endsWith('.js');

/** Whether this thread has loaded warcio (its CommonJS build, through createRequire: src/writer/warcio.ts). */
function warcioLoadedHere(): boolean {
  return Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\/]node_modules[\\/]warcio[\\/]/.test(file));
}

const fx = fixtureWebSuite('archiver-warcinfo-', { hosts: 1, pagesPerHost: 5, port: 0 });

// First in this file: nothing here has loaded warcio before it.
test('a crawl whose page thread is ready writes its WARC, warcinfo first, without loading warcio in this thread', async () => {
  const worker = startPageWorker();
  assert.equal(await worker.whenReady(), compiled);
  const dir = path.join(fx.tmp, 'crawl');
  const profile = validateProfile(testProfileJson('warcinfo', fx.web.seeds, dir, { store: 'memory' }), 'warcinfo');
  const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true, pageWorker: worker });
  await crawl.done;
  await worker.close();
  assert.equal(warcioLoadedHere(), !compiled, compiled ? 'the page thread made every record, the warcinfo too' : 'from sources the records are made here');
  const warcs = (await readdir(path.join(dir, 'warcs'))).filter((f) => f.endsWith('.warc.gz'));
  assert.equal(warcs.length, 1);
  const first = gzipMembers(await readFile(path.join(dir, 'warcs', warcs[0]!)))[0]!.data.toString('utf8');
  assert.match(first, /^WARC\/1\.1\r\nWARC-Type: warcinfo\r\n/);
  assert.ok(first.includes(`WARC-Filename: ${warcs[0]}\r\n`));
  assert.ok(first.includes('\r\nisPartOf: warcinfo\r\n'));
});

const input: WarcInfoInput = {
  filename: 'WEB-20261204120000000-00000-1~host.warc.gz',
  openedAt: new Date(Date.UTC(2026, 11, 4, 12, 0, 0)),
  version: '1.1',
  software: 'archiver/0.1.0',
  hostname: 'host',
  info: { userAgent: 'archiver-test/0.1', from: 'ops@t.example', robotsPolicy: 'obey', description: 'a test', jobName: 'job' },
};

test('a warcinfo made on the page thread is the record this thread makes, and this thread loads no warcio for it', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  assert.equal(await thread.whenReady(), compiled);
  // From the sources, the crawl above made its records here: warcio is loaded already.
  assert.equal(warcioLoadedHere(), !compiled);
  const there = await thread.warcInfo(input);
  assert.equal(warcioLoadedHere(), !compiled, 'the worker made it');
  const here = await warcInfoMember(input, inProcessGzip);
  assert.equal(warcioLoadedHere(), true);
  assert.equal(recordWithoutIds(there), recordWithoutIds(here));
  assert.match(recordWithoutIds(there), /^WARC\/1\.1\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <id>\r\nWARC-Filename: WEB-20261204120000000-00000-1~host\.warc\.gz\r\nWARC-Date: 2026-12-04T12:00:00\.000Z\r\n/);
  assert.ok(recordWithoutIds(there).includes('\r\nisPartOf: job\r\n'));
  await thread.close();
});

test('a thread whose worker is not started yet, or closed, makes the warcinfo here with the same record', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 1 });
  const before = await thread.warcInfo(input);
  assert.equal(thread.started, false, 'a warcinfo does not start the worker');
  await thread.close();
  const after = await thread.warcInfo(input);
  assert.equal(recordWithoutIds(before), recordWithoutIds(after));
  assert.equal(recordWithoutIds(before), recordWithoutIds(await warcInfoMember(input, inProcessGzip)));
});
