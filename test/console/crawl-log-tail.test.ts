/**
 * The console's log tail of a crawl of several processes: every node
 * writes `logs/crawl-<node>.log` (none writes crawl.log), and the tail
 * merges them by time, each line naming its node. Before, the tail read
 * `logs/crawl.log` only, which such a crawl never writes: it was empty.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { jobCrawlLogTail } from '../../src/console/crawl-log-tail.js';
import { formatCrawlLogLine } from '../../src/writer/crawl-log.js';

/** One crawl.log line, newline included. */
const line = (ms: number, url: string): string =>
  formatCrawlLogLine({ time: new Date(Date.UTC(2026, 11, 1, 10, 0, 0, ms)), status: 200, size: 10, url, hopPath: 'L', via: null, mime: 'text/html', worker: 1, fetchStart: null, durationMs: null, digest: null, annotations: [] });

describe('crawl log tail', () => {
  it("merges every node's crawl-<node>.log by time, each line naming its node", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-tail-'));
    try {
      await mkdir(path.join(dir, 'logs'));
      await writeFile(path.join(dir, 'logs', 'crawl-n1.log'), [line(100, 'http://a.test/1'), line(300, 'http://a.test/2'), line(500, 'http://a.test/3')].join(''));
      await writeFile(path.join(dir, 'logs', 'crawl-n2.log'), [line(200, 'http://b.test/1'), line(400, 'http://b.test/2')].join(''));
      const tail = await jobCrawlLogTail(dir, 4);
      assert.deepEqual(tail.map((l) => [l.node, l.url]), [['n2', 'http://b.test/1'], ['n1', 'http://a.test/2'], ['n2', 'http://b.test/2'], ['n1', 'http://a.test/3']]);
      assert.equal((await jobCrawlLogTail(dir, 50)).length, 5);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads crawl.log alone as before for a crawl of one process', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-tail-'));
    try {
      await mkdir(path.join(dir, 'logs'));
      await writeFile(path.join(dir, 'logs', 'crawl.log'), [line(100, 'http://a.test/1'), line(200, 'http://a.test/2')].join(''));
      const tail = await jobCrawlLogTail(dir, 1);
      assert.deepEqual(tail.map((l) => [l.node, l.url]), [[undefined, 'http://a.test/2']]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
