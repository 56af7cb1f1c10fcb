/**
 * Resume's crawl.log replay (src/crawl/crawl-log-replay.ts): a line cut by a
 * kill is removed, and the statistics are rebuilt from the lines that stay.
 * The log here is written by hand in Heritrix's format and every expected
 * count below is worked out from those lines, not taken from a crawl.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CrawlStats } from '../../src/crawl/crawl-stats.js';
import { replayCrawlLog, trimPartialLine } from '../../src/crawl/crawl-log-replay.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-logreplay-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T = '2026-01-01T00:00:00.000Z';
const F = '20260101000000000+12';
const D = 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
// timestamp status size url hops via mime worker fetch-time digest source annotations
const LOG = [
  `${T}   200        107 http://a.test/robots.txt P http://a.test/ text/plain #001 ${F} ${D} - -`,
  `${T}   200       1000 http://a.test/ - - text/html #002 ${F} ${D} - -`,
  `${T}   200        400 http://a.test/page L http://a.test/ text/html #003 ${F} ${D} - duplicate:digest`,
  `${T}   200       2500 http://a.test/img.gif E http://a.test/ image/gif #004 ${F} ${D} - -`,
  `${T}   404        300 http://a.test/gone L http://a.test/ text/html #005 ${F} ${D} - -`,
  `${T}   200       5000 http://b.test:8080/ - - text/html #006 ${F} ${D} - maxOutlinks:42`,
  `${T}   301        150 http://b.test:8080/old L http://b.test:8080/ text/html #007 ${F} ${D} - -`,
  `${T} -9998          - http://a.test/private/x L http://a.test/ - #008 - - - robotExcluded`,
  `${T}    -4          - http://c.test/ - - - #009 - - - hostUnreachable`,
  `${T} -5000          - http://elsewhere.test/x L http://a.test/ - - - - - outOfScope`,
].join('\n') + '\n';

describe('replayCrawlLog', () => {
  it('rebuilds the counters from the lines, as worked out by hand', async () => {
    const file = path.join(dir, 'crawl.log');
    await writeFile(file, LOG);
    const stats = new CrawlStats(0);
    const seeds = new Set(['http://a.test/', 'http://b.test:8080/', 'http://c.test/']);
    assert.equal(await replayCrawlLog(file, stats, seeds), 10);

    // Seven captures: 107 + 1000 + 400 + 2500 + 300 + 5000 + 150 bytes.
    assert.equal(stats.fetched, 7);
    assert.equal(stats.succeeded, 7);
    assert.equal(stats.bytes, 9457);
    // 2xx text/html: /, /page and b's /; the 404 and the 301 are not pages.
    assert.equal(stats.pages, 3);
    assert.equal(stats.dupUrls, 1);
    assert.equal(stats.dupBytes, 400);
    assert.equal(stats.novelUrls, 6);
    assert.equal(stats.novelBytes, 9057);
    // The robots refusal and the unreachable host gave up; the scope refusal is disregarded.
    assert.equal(stats.failed, 2);
    assert.equal(stats.disregarded, 1);
    assert.equal(stats.pagesCapped, 1);
    assert.equal(stats.outlinksDropped, 42);
    assert.deepEqual(Object.fromEntries(stats.byStatus), { 200: 5, 404: 1, 301: 1, [-9998]: 1, [-4]: 1, [-5000]: 1 });
    assert.deepEqual(stats.byMime.get('text/html'), { urls: 5, bytes: 6850 });
    assert.deepEqual(stats.byMime.get('image/gif'), { urls: 1, bytes: 2500 });
    assert.deepEqual(stats.byHost.get('a.test'), { urls: 5, bytes: 4307, robotsBlocked: 1, novelUrls: 4, novelBytes: 3907, dupUrls: 1, dupBytes: 400, errors: 1 });
    assert.deepEqual(stats.byHost.get('b.test:8080'), { urls: 2, bytes: 5150, robotsBlocked: 0, novelUrls: 2, novelBytes: 5150, dupUrls: 0, dupBytes: 0, errors: 0 });
    assert.equal(stats.byHost.get('c.test')?.errors, 1);
    assert.equal(stats.byHost.has('elsewhere.test'), false, 'a scope refusal is no host of the crawl');
    assert.deepEqual(stats.seeds.get('http://a.test/'), { url: 'http://a.test/', status: 200, redirect: null });
    assert.deepEqual(stats.seeds.get('http://c.test/'), { url: 'http://c.test/', status: -4, redirect: null });
  });

  it('counts nothing for a log that does not exist yet', async () => {
    const stats = new CrawlStats(0);
    assert.equal(await replayCrawlLog(path.join(dir, 'no-such.log'), stats, new Set()), 0);
    assert.equal(stats.fetched + stats.failed + stats.disregarded, 0);
  });
});

describe('trimPartialLine', () => {
  it('removes a last line cut by a kill, keeping every whole line', async () => {
    const file = path.join(dir, 'cut.log');
    const lines = LOG.split('\n');
    await writeFile(file, LOG + lines[1]!.slice(0, 37));
    await trimPartialLine(file);
    assert.equal(await readFile(file, 'utf8'), LOG);
    const stats = new CrawlStats(0);
    assert.equal(await replayCrawlLog(file, stats, new Set()), 10, 'the cut line is gone, not counted');
  });

  it('leaves a log ending in a newline as it is', async () => {
    const file = path.join(dir, 'whole.log');
    await writeFile(file, LOG);
    await trimPartialLine(file);
    assert.equal(await readFile(file, 'utf8'), LOG);
  });

  it('empties a log whose only line was cut, and ignores a missing or empty file', async () => {
    const file = path.join(dir, 'one.log');
    await writeFile(file, LOG.slice(0, 50));
    await trimPartialLine(file);
    assert.equal(await readFile(file, 'utf8'), '');
    await trimPartialLine(file);
    assert.equal(await readFile(file, 'utf8'), '');
    await trimPartialLine(path.join(dir, 'missing.log'));
  });

  it('finds the cut when the log is longer than the window it reads from the end', async () => {
    const file = path.join(dir, 'long.log');
    const many = LOG.repeat(400);
    assert.ok(many.length > 64 * 1024);
    await writeFile(file, many + 'partial line without its end');
    await trimPartialLine(file);
    assert.equal(await readFile(file, 'utf8'), many);
  });
});
