/**
 * crawl.log: the line format against literal Heritrix-style lines, and the
 * file: appended on reopen (resume), flushed on close, back-pressure.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CrawlLog, formatCrawlLogLine, type CrawlLogEntry } from '../../src/writer/crawl-log.js';

const fetched: CrawlLogEntry = {
  time: new Date('2026-11-29T12:00:00.123Z'),
  status: 200,
  size: 5123,
  url: 'http://h.test/p',
  hopPath: 'LLE',
  via: 'http://h.test/',
  mime: 'text/html; charset=utf-8',
  worker: 3,
  fetchStart: new Date('2026-11-29T12:00:00.100Z'),
  durationMs: 23,
  digest: 'sha1:2YRGBJXFZ3P4DDXXGQDYTKJQU3HBBF7K',
  annotations: [],
};

describe('formatCrawlLogLine', () => {
  it('formats a fetched URI exactly as Heritrix does', () => {
    assert.equal(
      formatCrawlLogLine(fetched),
      '2026-11-29T12:00:00.123Z   200       5123 http://h.test/p LLE http://h.test/ text/html #003 20261129120000100+23 sha1:2YRGBJXFZ3P4DDXXGQDYTKJQU3HBBF7K - -\n',
    );
  });

  it('formats a seed with annotations and a source tag', () => {
    assert.equal(
      formatCrawlLogLine({ ...fetched, hopPath: '', via: null, status: 404, size: 0, worker: 12, sourceTag: 'seeds.txt', annotations: ['3t', 'duplicate:digest'] }),
      '2026-11-29T12:00:00.123Z   404          0 http://h.test/p - - text/html #012 20261129120000100+23 sha1:2YRGBJXFZ3P4DDXXGQDYTKJQU3HBBF7K seeds.txt 3t,duplicate:digest\n',
    );
  });

  it('formats a refusal: negative status, nothing fetched', () => {
    assert.equal(
      formatCrawlLogLine({
        time: new Date('2026-11-29T12:00:01.000Z'),
        status: -9998,
        size: null,
        url: 'http://h.test/private/x',
        hopPath: 'LL',
        via: 'http://h.test/p',
        mime: null,
        worker: 1,
        fetchStart: null,
        durationMs: null,
        digest: null,
        annotations: ['robotExcluded'],
      }),
      '2026-11-29T12:00:01.000Z -9998          - http://h.test/private/x LL http://h.test/p - #001 - - - robotExcluded\n',
    );
  });

  it('keeps wide fields whole and prints "-" for an empty mime and no worker', () => {
    assert.equal(
      formatCrawlLogLine({ ...fetched, status: -5000, size: 12345678901, mime: '', worker: null, annotations: [] }),
      '2026-11-29T12:00:00.123Z -5000 12345678901 http://h.test/p LLE http://h.test/ - - 20261129120000100+23 sha1:2YRGBJXFZ3P4DDXXGQDYTKJQU3HBBF7K - -\n',
    );
  });
});

describe('CrawlLog', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'archiver-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the directory, writes lines, and appends after reopening', async () => {
    const file = path.join(root, 'logs', 'crawl.log');
    const first = await CrawlLog.open(file);
    await first.write(fetched);
    await first.close();
    const second = await CrawlLog.open(file);
    void second.write({ ...fetched, url: 'http://h.test/q' });
    await second.close();
    const lines = (await readFile(file, 'utf8')).split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[0], formatCrawlLogLine(fetched).trimEnd());
    assert.match(lines[1]!, / http:\/\/h\.test\/q /);
    assert.equal(lines[2], '');
  });

  it('loses no line in a burst of 20 000 writes', async () => {
    const file = path.join(root, 'many.log');
    const log = await CrawlLog.open(file);
    for (let i = 0; i < 20_000; i++) log.write({ ...fetched, url: `http://h.test/${i}` });
    await log.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, 20_000);
    assert.match(lines[19_999]!, / http:\/\/h\.test\/19999 /);
  });

  it('refuses writes after close with a stable code', async () => {
    const log = await CrawlLog.open(path.join(root, 'closed.log'));
    await log.close();
    assert.throws(() => log.write(fetched), { code: 'ARCHIVER_LOG_WRITE' });
  });

  it('reports a failed open as FatalCrawlError(ARCHIVER_LOG_WRITE)', async () => {
    await assert.rejects(CrawlLog.open(path.join(root, 'logs')), { code: 'ARCHIVER_LOG_WRITE', name: 'FatalCrawlError' });
  });
});
