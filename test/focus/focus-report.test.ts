/**
 * The focus report reads crawl.log: the harvest rate counts 2xx HTML pages
 * with their `relevance:` annotation against the threshold (training pages
 * apart; images, robots.txt, errors not at all), over time in windows of
 * pages, the top pages, and the links not followed for restrictHops.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { validateProfile } from '../../src/config/load-profile.js';
import { focusFigures, writeFocusReport } from '../../src/focus/focus-report.js';
import { formatCrawlLogLine } from '../../src/writer/crawl-log.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-report-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function line(status: number, url: string, mime: string | null, annotations: string[], at: number): string {
  return formatCrawlLogLine({
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, at)), status, size: status > 0 ? 100 : null, url, hopPath: 'L', via: 'http://h.test/', mime,
    worker: status > 0 ? 1 : null, fetchStart: status > 0 ? new Date(0) : null, durationMs: status > 0 ? 5 : null, digest: null, annotations,
  });
}

describe('focus report', () => {
  it('counts relevant 2xx HTML pages against all fetched, over time, and the top pages', async () => {
    const lines = [
      line(200, 'http://h.test/train', 'text/html', ['focusTraining'], 0),
      line(200, 'http://h.test/robots.txt', 'text/plain', [], 1),
      line(200, 'http://h.test/a.png', 'image/png', [], 2),
      line(404, 'http://h.test/gone', 'text/html', [], 3),
      line(-5000, 'http://h.test/far', null, ['focusRestricted'], 4),
      line(-5000, 'http://other.test/', null, ['outOfScope'], 5),
    ];
    // 25 pages: relevance 0.9, 0.1, 0.9, 0.1, … (12 at 0.9), the 25th at exactly the threshold: 13 relevant.
    for (let i = 0; i < 24; i++) lines.push(line(200, `http://h.test/p${i}`, 'text/html', [`relevance:${i % 2 === 0 ? '0.900' : '0.100'}`], 10 + i));
    lines.push(line(200, 'http://h.test/edge', 'application/xhtml+xml', ['duplicate:digest', 'relevance:0.300'], 40));
    const log = path.join(dir, 'crawl.log');
    await writeFile(log, lines.join(''));
    const fig = await focusFigures(log, 0.3);
    assert.equal(fig.pages, 25);
    assert.equal(fig.relevant, 13);
    assert.equal(fig.harvestRate, 13 / 25);
    assert.equal(fig.trainingPages, 1);
    assert.equal(fig.restricted, 1);
    assert.equal(fig.windowPages, 10);
    assert.deepEqual(fig.curve.map((p) => [p.pages, p.relevant, p.windowRate, p.cumulativeRate]), [
      [10, 5, 0.5, 0.5],
      [20, 10, 0.5, 0.5],
      [25, 13, 3 / 5, 13 / 25],
    ]);
    assert.equal(fig.top.length, 20);
    assert.equal(fig.top[0]!.url, 'http://h.test/p0', 'highest first, earlier first among equals');
    assert.equal(fig.top[11]!.url, 'http://h.test/p22');
    assert.equal(fig.top[12]!.url, 'http://h.test/edge');
    assert.equal(fig.top[13]!.url, 'http://h.test/p1');

    const profile = validateProfile({ name: 'r', seeds: ['http://h.test/'], userAgent: 'a (+http://x.test/)', focus: { keywords: ['tea'], threshold: 0.3 }, output: { dir } });
    await writeFocusReport({ crawlLog: log, reportsDir: dir, focus: profile.focus!, model: null });
    const json = JSON.parse(await readFile(path.join(dir, 'focus-report.json'), 'utf8')) as { harvestRate: number; threshold: number };
    assert.equal(json.harvestRate, 13 / 25);
    assert.equal(json.threshold, 0.3);
    const text = await readFile(path.join(dir, 'focus-report.txt'), 'utf8');
    assert.match(text, /^Harvest rate: 0\.520$/m);
    assert.match(text, /^25 13 0\.600 0\.520 /m);
  });

  it('is all zero without a crawl.log', async () => {
    const fig = await focusFigures(path.join(dir, 'none.log'), 0.2);
    assert.deepEqual([fig.pages, fig.relevant, fig.harvestRate, fig.curve.length], [0, 0, 0, 0]);
  });
});
