/**
 * Replay while a crawl runs (README: the embedded ReplayWeb.page reads "while
 * a crawl runs, from a snapshot of its WARCs"). The crawl is held open by a
 * page the test answers; the snapshot /api/replay names must parse to its
 * end with warcio (the file still being written cut after its last
 * journaled capture), hold exactly the captures the journal lists, answer
 * byte ranges, and stay the same bytes after the crawl has written more
 * (the viewer keeps reading the snapshot it was given).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { WARCParser } from 'warcio';
import { captureJournalPath } from '../../src/job/job-dir.js';
import { startHeldPage } from '../helpers/held-page.js';
import { startCrawlConsole, until, type RunningConsole } from './console-harness.js';
import { fixtureWebSuite } from '../helpers/fixture-web-suite.js';

const LONG = { fetchTimeoutMs: 600_000, maxRetries: 1, retryDelayMs: 10 };

const fx = fixtureWebSuite('archiver-replay-snapshot-', { hosts: 3, pagesPerHost: 15, port: 0 });

async function snapshotOf(c: RunningConsole): Promise<{ source: string; bytes: Buffer }> {
  const replay = await c.client.get(`/api/replay?job=${c.name}`);
  assert.equal(replay.status, 200, replay.text);
  const { source, kind } = replay.json as { source: string; kind: string };
  assert.equal(kind, 'warc', 'a running job is replayed from its WARCs');
  assert.match(source, new RegExp(`^/replay/archive/${c.name}/live-\\d+\\.warc\\.gz$`));
  return { source, bytes: await archiveBytes(c, source) };
}

async function archiveBytes(c: RunningConsole, source: string, range?: string): Promise<Buffer> {
  const res = await fetch(`${c.server.origin}${source}`, { headers: { Authorization: `Bearer ${c.server.token}`, ...(range ? { Range: range } : {}) } });
  assert.equal(res.status, range ? 206 : 200);
  return Buffer.from(await res.arrayBuffer());
}

/** Every record's type and target URI, read to the end by warcio (a cut member throws). */
async function records(bytes: Buffer): Promise<Array<{ type: string; url: string }>> {
  const out: Array<{ type: string; url: string }> = [];
  for await (const record of new WARCParser(Readable.from([bytes]))) {
    await record.readFully(false);
    out.push({ type: record.warcType ?? '', url: record.warcTargetURI ?? '' });
  }
  return out;
}

async function journaledUrls(dir: string): Promise<string[]> {
  const text = await readFile(captureJournalPath(dir), 'utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { url: string }).url).sort();
}

describe('replay while a crawl runs', () => {
  it('serves a snapshot of the WARCs that parses to its end, holds what the journal lists, and keeps its bytes as the crawl goes on', { timeout: 120_000 }, async () => {
    const held = await startHeldPage();
    const c = await startCrawlConsole(fx.tmp, 'snap', [held.url, ...fx.web.seeds], { workers: 2, limits: LONG });
    try {
      await held.arrival();
      await until(async () => ((await c.client.get('/api/crawl')).json as { uris: number }).uris >= 10, '10 URIs');
      // Paused with only the held fetch in flight: the journal and the WARCs stand still.
      c.crawl.pause();
      await until(() => c.crawl.status().inProcess === 1, 'fetches in flight to finish but the held one');
      const first = await snapshotOf(c);
      assert.equal(c.crawl.status().state === 'finished', false);
      const read = await records(first.bytes);
      const captured = read.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url).sort();
      assert.deepEqual(captured, await journaledUrls(c.dir), 'the captures of the snapshot are the journal\'s');
      assert.ok(!captured.includes(held.url), 'the held page, not yet answered, is not in it');
      assert.deepEqual(await archiveBytes(c, first.source, 'bytes=10-59'), first.bytes.subarray(10, 60), 'a byte range');

      c.crawl.resume();
      await until(async () => ((await c.client.get('/api/crawl')).json as { uris: number }).uris >= 30, '30 URIs');
      c.crawl.pause();
      await until(() => c.crawl.status().inProcess === 1, 'fetches in flight to finish but the held one');
      const second = await snapshotOf(c);
      assert.notEqual(second.source, first.source);
      assert.ok(second.bytes.length > first.bytes.length, 'the later snapshot holds more');
      assert.deepEqual(second.bytes.subarray(0, first.bytes.length), first.bytes, 'and starts with the earlier one');
      assert.deepEqual(await archiveBytes(c, first.source), first.bytes, 'the earlier snapshot is still the same bytes');
      assert.deepEqual(
        (await records(second.bytes)).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url).sort(),
        await journaledUrls(c.dir),
      );
    } finally {
      held.release();
      c.crawl.resume();
      await c.close();
      await held.close();
    }
  });
});
