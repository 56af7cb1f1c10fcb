/**
 * Dedup against earlier crawls, loaded into LevelDB with fingerprints in
 * memory (the loader used to hold every capture in Maps, plus the whole
 * index text while loading). Real LevelDB in a temp dir, CDXJ files and
 * small gzipped WARCs written here. Checked: the earliest 2xx original wins
 * (within one write batch, through the store, across jobs); unknown digests
 * are answered without a store read; the exact WARC-Date is read from the
 * WARC once; a second load of the same jobs is skipped, a changed index is
 * reloaded; a job without an index is read from its WARCs.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import { formatCdxjLine, REVISIT_MIME, type CdxjEntry } from '../../src/index/cdxj.js';
import type { ClearableByteMap } from '../../src/store/byte-map.js';
import { loadEarlierCaptures, type LoadEarlierOpts } from '../../src/dedup/earlier-load.js';
import { warcDateAt } from '../../src/index/record-date.js';
import { indexWarcFile } from '../../src/index/warc-index.js';
import { surt } from '../../src/url/surt.js';
import { CountingLevel } from '../helpers/counting-level.js';

let root: string;
let db: ClassicLevel<Buffer, Buffer>;
let n = 0;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'archiver-'));
  db = new ClassicLevel<Buffer, Buffer>(path.join(root, 'state'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
});
after(async () => {
  await db.close();
  await rm(root, { recursive: true, force: true });
});

/** Counts clears too: a reload of the earlier jobs clears their keyspace. */
class CountingEarlierLevel extends CountingLevel implements ClearableByteMap {
  clears = 0;
  constructor(readonly level: ClearableByteMap) {
    super(level);
  }
  clear(): Promise<void> {
    this.clears++;
    return this.level.clear();
  }
}

function freshLevel(name = `e${n++}`): CountingEarlierLevel {
  return new CountingEarlierLevel(db.sublevel<Buffer, Buffer>(name, { keyEncoding: 'buffer', valueEncoding: 'buffer' }));
}

/** Counts exact-date reads; answers from the real WARC. */
function countingDates(): { opts: LoadEarlierOpts; calls: () => number } {
  let calls = 0;
  return {
    opts: { readDate: (file, offset, length) => ((calls += 1), warcDateAt(file, offset, length)) },
    calls: () => calls,
  };
}

function entry(digest: string | null, timestamp: string, url: string, more: Partial<CdxjEntry> = {}): CdxjEntry {
  return { key: surt(url), timestamp, url, mime: 'text/html', status: 200, digest, length: 100, offset: 0, filename: 'none.warc.gz', ...more };
}

/** A job directory with this index (and an empty warcs/), plus a WACZ when named. */
async function jobWithIndex(name: string, entries: CdxjEntry[], wacz?: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'indexes'), { recursive: true });
  await mkdir(path.join(dir, 'warcs'), { recursive: true });
  await writeFile(path.join(dir, 'indexes', 'index.cdxj'), entries.map((e) => formatCdxjLine(e) + '\n').join(''));
  if (wacz) await writeFile(path.join(dir, wacz), 'not really a zip');
  return dir;
}

/** One gzip member per record, as the crawler writes them. */
function responseRecord(url: string, date: string, digest: string, status: number, body: string): Buffer {
  const http = `HTTP/1.1 ${status} X\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const head = [
    'WARC/1.1',
    'WARC-Type: response',
    `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(n++).padStart(12, '0')}>`,
    `WARC-Date: ${date}`,
    `WARC-Target-URI: ${url}`,
    `WARC-Payload-Digest: ${digest}`,
    'Content-Type: application/http; msgtype=response',
    `Content-Length: ${Buffer.byteLength(http)}`,
  ].join('\r\n');
  return gzipSync(Buffer.from(`${head}\r\n\r\n${http}\r\n\r\n`));
}

/** A job whose WARC holds two 200 responses with millisecond dates; `withIndex` also writes its CDXJ. */
async function jobWithWarc(name: string, withIndex: boolean): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'warcs'), { recursive: true });
  const warc = path.join(dir, 'warcs', 'job-00000.warc.gz');
  await writeFile(warc, Buffer.concat([
    responseRecord('http://a.test/one', '2026-11-29T12:00:00.123Z', 'sha1:WARCONE', 200, 'one'),
    responseRecord('http://a.test/two', '2026-11-29T12:00:01.456Z', 'sha1:WARCTWO', 200, 'two'),
  ]));
  if (withIndex) {
    await mkdir(path.join(dir, 'indexes'), { recursive: true });
    const entries = await indexWarcFile(warc);
    await writeFile(path.join(dir, 'indexes', 'index.cdxj'), entries.map((e) => formatCdxjLine(e) + '\n').join(''));
  }
  return dir;
}

describe('loadEarlierCaptures', () => {
  it('keeps the earliest 2xx capture of a digest: within one batch, through the store, across jobs', async () => {
    const a = await jobWithIndex('earliest-a', [
      entry('sha1:SAME', '20260101000002', 'http://a.test/later'),
      entry('sha1:SAME', '20260101000001', 'http://a.test/earlier'),
      entry('sha1:SAME', '20260101000003', 'http://a.test/latest'),
      entry('sha1:AONLY', '20260101000000', 'http://a.test/only'),
      entry('sha1:BLATER', '20260101000000', 'http://a.test/b-later'),
    ]);
    const b = await jobWithIndex('earliest-b', [
      entry('sha1:SAME', '20250101000000', 'http://b.test/first-of-all'),
      entry('sha1:BLATER', '20270101000000', 'http://b.test/not-this'),
    ], 'earliest-b.wacz');
    // One batch for everything (pending entries compare), and batches of one (the store is read).
    for (const writeBatchEntries of [10_000, 1]) {
      const captures = await loadEarlierCaptures([a, b], freshLevel(), { writeBatchEntries, readDate: async () => null });
      assert.deepEqual(await captures.lookup('sha1:SAME'), { url: 'http://b.test/first-of-all', date: '2025-01-01T00:00:00Z', container: 'earliest-b.wacz' });
      assert.deepEqual(await captures.lookup('sha1:AONLY'), { url: 'http://a.test/only', date: '2026-01-01T00:00:00Z' });
      assert.deepEqual(await captures.lookup('sha1:BLATER'), { url: 'http://a.test/b-later', date: '2026-01-01T00:00:00Z' });
      // Only jobs a and b: the earlier entries within job a must not win either.
      const onlyA = await loadEarlierCaptures([a], freshLevel(), { writeBatchEntries, readDate: async () => null });
      assert.equal((await onlyA.lookup('sha1:SAME'))?.url, 'http://a.test/earlier');
    }
  });

  it('ignores non-2xx and revisit entries, even earlier ones', async () => {
    const dir = await jobWithIndex('non-originals', [
      entry('sha1:NOTFOUND', '20260101000000', 'http://a.test/404', { status: 404 }),
      entry('sha1:MOVED', '20260101000000', 'http://a.test/301', { status: 301 }),
      entry('sha1:REVISIT', '20260101000000', 'http://a.test/rev', { mime: REVISIT_MIME }),
      entry('sha1:NOSTATUS', '20260101000000', 'http://a.test/res', { status: null }),
      entry('sha1:MIXED', '20250101000000', 'http://a.test/mixed-404', { status: 404 }),
      entry('sha1:MIXED', '20250101000001', 'http://a.test/mixed-revisit', { mime: REVISIT_MIME }),
      entry('sha1:MIXED', '20260101000000', 'http://a.test/mixed-200'),
      entry(null, '20260101000000', 'http://a.test/no-digest'),
    ]);
    const captures = await loadEarlierCaptures([dir], freshLevel(), { readDate: async () => null });
    for (const d of ['sha1:NOTFOUND', 'sha1:MOVED', 'sha1:REVISIT', 'sha1:NOSTATUS']) assert.equal(await captures.lookup(d), null, d);
    assert.equal((await captures.lookup('sha1:MIXED'))?.url, 'http://a.test/mixed-200');
    assert.equal(captures.memory.digests, 1);
  });

  it('answers unknown digests without a store read while the table is complete; a known one costs one read', async () => {
    const entries = Array.from({ length: 300 }, (_, i) => entry(`sha1:KNOWN${i}`, '20260101000000', `http://a.test/${i}`));
    const dir = await jobWithIndex('no-reads', entries);
    const level = freshLevel();
    const captures = await loadEarlierCaptures([dir], level, { writeBatchEntries: 64, readDate: async () => null });
    assert.equal(captures.memory.complete, true);
    const readsBefore = level.reads;
    for (let i = 0; i < 500; i++) assert.equal(await captures.lookup(`sha1:UNKNOWN${i}`), null);
    assert.equal(level.reads, readsBefore, 'misses answered from memory');
    assert.equal((await captures.lookup('sha1:KNOWN7'))?.url, 'http://a.test/7');
    assert.equal(level.reads, readsBefore + 1);
  });

  it('stays exact past its memory cap, where misses are confirmed in the store', async () => {
    const entries = Array.from({ length: 20 }, (_, i) => entry(`sha1:CAP${i}`, `2026010100000${i % 10}`, `http://a.test/${i}`));
    entries.push(entry('sha1:CAP3', '20250101000000', 'http://a.test/earliest'));
    const dir = await jobWithIndex('capped', entries);
    const level = freshLevel();
    const captures = await loadEarlierCaptures([dir], level, { memoryDigests: 2, writeBatchEntries: 4, readDate: async () => null });
    assert.equal(captures.memory.complete, false);
    assert.equal((await captures.lookup('sha1:CAP3'))?.url, 'http://a.test/earliest');
    assert.equal((await captures.lookup('sha1:CAP19'))?.url, 'http://a.test/19');
    const readsBefore = level.reads;
    assert.equal(await captures.lookup('sha1:NOPE'), null);
    assert.equal(level.reads, readsBefore + 1);
  });

  it('reads the exact WARC-Date from the WARC once, and remembers it across loads', async () => {
    const dir = await jobWithWarc('exact-date', true);
    const level = freshLevel();
    const dates = countingDates();
    const captures = await loadEarlierCaptures([dir], level, dates.opts);
    const want = { url: 'http://a.test/one', date: '2026-11-29T12:00:00.123Z' };
    // Concurrent lookups share one read.
    assert.deepEqual(await Promise.all([captures.lookup('sha1:WARCONE'), captures.lookup('sha1:WARCONE')]), [want, want]);
    assert.equal(dates.calls(), 1);
    assert.deepEqual(await captures.lookup('sha1:WARCONE'), want);
    assert.equal(dates.calls(), 1, 'a second lookup does not read the WARC again');
    await captures.flush();
    const again = await loadEarlierCaptures([dir], level, dates.opts);
    assert.deepEqual(await again.lookup('sha1:WARCONE'), want);
    assert.deepEqual(await again.lookup('sha1:WARCTWO'), { url: 'http://a.test/two', date: '2026-11-29T12:00:01.456Z' });
    assert.equal(dates.calls(), 2, 'only the digest never looked up is read');
  });

  it('skips loading jobs the store already holds as they are; reloads when an index changed', async () => {
    const dir = await jobWithIndex('resume', [entry('sha1:R1', '20260101000000', 'http://a.test/r1')]);
    const level = freshLevel();
    const first = await loadEarlierCaptures([dir], level, { readDate: async () => null });
    assert.equal(level.clears, 1);
    const batchesAfterFirst = level.batches;

    const second = await loadEarlierCaptures([dir], level, { readDate: async () => null });
    assert.equal(level.clears, 1, 'no reload');
    assert.equal(level.batches, batchesAfterFirst, 'nothing written');
    // Before the background fill is over, a miss is confirmed in the store; after it, not.
    assert.deepEqual(await second.lookup('sha1:R1'), await first.lookup('sha1:R1'));
    await second.loaded();
    assert.equal(second.memory.complete, true);
    assert.equal(second.memory.digests, 1, 'the marker key is not a digest');
    const reads = level.reads;
    assert.equal(await second.lookup('sha1:R2'), null);
    assert.equal(level.reads, reads);

    // Touched: reloaded.
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(dir, 'indexes', 'index.cdxj'), later, later);
    await loadEarlierCaptures([dir], level, { readDate: async () => null });
    assert.equal(level.clears, 2);
    // Appended to: reloaded, and the new line is there.
    await appendFile(path.join(dir, 'indexes', 'index.cdxj'), formatCdxjLine(entry('sha1:R2', '20260101000000', 'http://a.test/r2')) + '\n');
    const fourth = await loadEarlierCaptures([dir], level, { readDate: async () => null });
    assert.equal(level.clears, 3);
    assert.equal((await fourth.lookup('sha1:R2'))?.url, 'http://a.test/r2');
    // Another set of jobs: reloaded, and what only the old set held is gone.
    const other = await jobWithIndex('resume-other', [entry('sha1:O1', '20260101000000', 'http://o.test/')]);
    const fifth = await loadEarlierCaptures([other], level, { readDate: async () => null });
    assert.equal(level.clears, 4);
    assert.equal(await fifth.lookup('sha1:R1'), null);
    assert.equal((await fifth.lookup('sha1:O1'))?.url, 'http://o.test/');
  });

  it('a load cut short is done again: the marker is written last', async () => {
    const dir = await jobWithIndex('cut', Array.from({ length: 50 }, (_, i) => entry(`sha1:CUT${i}`, '20260101000000', `http://a.test/${i}`)));
    const level = freshLevel();
    let batches = 0;
    const failing: ClearableByteMap = {
      batch: (...args) => (++batches === 3 ? Promise.reject(new Error('disk full')) : level.batch(...args)),
      get: (...args) => level.get(...args),
      keys: (...args) => level.keys(...args),
      clear: () => level.clear(),
    };
    await assert.rejects(loadEarlierCaptures([dir], failing, { writeBatchEntries: 10 }), { code: 'ARCHIVER_EARLIER_CAPTURES' });
    const again = await loadEarlierCaptures([dir], level, { writeBatchEntries: 10 });
    assert.equal(level.clears, 2, 'reloaded');
    assert.equal((await again.lookup('sha1:CUT49'))?.url, 'http://a.test/49');
  });

  it('indexes a job without index.cdxj from its WARCs', async () => {
    const dir = await jobWithWarc('warcs-only', false);
    const captures = await loadEarlierCaptures([dir], freshLevel());
    assert.deepEqual(await captures.lookup('sha1:WARCTWO'), { url: 'http://a.test/two', date: '2026-11-29T12:00:01.456Z' });
    assert.equal(await captures.lookup('sha1:NOPE'), null);
  });

  it('resolves relative job dirs against cwd; a missing job, or one without index or WARCs, is NoInputError', async () => {
    await jobWithIndex('relative', [entry('sha1:REL', '20260101000000', 'http://a.test/rel')]);
    const captures = await loadEarlierCaptures(['relative'], freshLevel(), { cwd: root, readDate: async () => null });
    assert.equal((await captures.lookup('sha1:REL'))?.url, 'http://a.test/rel');
    await assert.rejects(loadEarlierCaptures(['no-such-job'], freshLevel(), { cwd: root }), { code: 'ARCHIVER_NO_INPUT' });
    await mkdir(path.join(root, 'empty-job', 'warcs'), { recursive: true });
    await assert.rejects(loadEarlierCaptures([path.join(root, 'empty-job')], freshLevel()), { code: 'ARCHIVER_NO_INPUT' });
  });
});
