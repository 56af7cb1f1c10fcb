/**
 * DigestIndex conformance: the memory and LevelDB backends run one suite.
 * The LevelDB one is also run on a sublevel with default (utf8/json)
 * encodings, since the crawl hands it a buffer-encoded sublevel and tests
 * another: explicit encodings must make both work. It also runs past its
 * memory cap and with every fingerprint colliding, where answers must come
 * from the store and stay exact. The StoredDigestIndex tests then check what
 * the fingerprint table is for: unknown digests answered without a read.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import { StoredDigestIndex, MemoryDigestIndex } from '../../src/dedup/digest-index.js';
import { digestIndexConformance as conformance } from './digest-index-conformance.js';
import { CountingLevel } from '../helpers/counting-level.js';
import type { Fp64 } from '../../src/fingerprint/rabin.js';

let root: string;
let db: ClassicLevel<Buffer, Buffer>;
let utf8Db: ClassicLevel<string, string>;
let n = 0;

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'archiver-'));
  db = new ClassicLevel<Buffer, Buffer>(path.join(root, 'buf'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  utf8Db = new ClassicLevel<string, string>(path.join(root, 'utf8'));
  await db.open();
  await utf8Db.open();
});
after(async () => {
  await db.close();
  await utf8Db.close();
  await rm(root, { recursive: true, force: true });
});

conformance('memory', async () => new MemoryDigestIndex());
conformance('classic-level, buffer sublevel', async () =>
  new StoredDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' })),
);
conformance('classic-level, json sublevel', async () => new StoredDigestIndex(utf8Db.sublevel<string, unknown>(`d${n++}`, { valueEncoding: 'json' })));

conformance('classic-level, batches of one', async () =>
  new StoredDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' }), { writeBatchEntries: 1 }),
);
conformance('classic-level, past its memory cap', async () =>
  new StoredDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' }), { writeBatchEntries: 1, memoryDigests: 1 }),
);
conformance('classic-level, every fingerprint colliding', async () =>
  new StoredDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' }), { writeBatchEntries: 1, fingerprint: oneFingerprint }),
);

/** A fingerprint every digest shares: only the store can tell them apart. */
function oneFingerprint(_digest: string, out: Fp64): Fp64 {
  out.hi = 0x12345678;
  out.lo = 0x9abcdef0;
  return out;
}

const captureOf = (i: number) => ({ url: `http://h${i % 7}.test/ünï/${i}`, date: `2026-11-29T12:${String(i % 60).padStart(2, '0')}:00.000Z` });


/** What the store itself holds, read past the index. */
async function stored(sub: { iterator(o: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): AsyncIterable<[string, string]> }): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for await (const [k, v] of sub.iterator({ keyEncoding: 'utf8', valueEncoding: 'utf8' })) out.set(k, JSON.parse(v));
  return out;
}

describe('StoredDigestIndex', () => {
  it('persists across reopening the database once flushed', async () => {
    const loc = path.join(root, 'reopen');
    const first = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new StoredDigestIndex(first.sublevel('digests'));
    await idx.remember('sha1:DDDD', 'http://a.test/', '2026-11-29T12:00:00.000Z');
    await idx.flush();
    await first.close();
    const second = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      assert.deepEqual(await new StoredDigestIndex(second.sublevel('digests')).lookup('sha1:DDDD'), { url: 'http://a.test/', date: '2026-11-29T12:00:00.000Z' });
    } finally {
      await second.close();
    }
  });

  it('writes behind in batches: a full batch reaches the store, the rest waits for flush()', async () => {
    // The documented crash window: entries short of a batch are only in memory until flushed.
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new StoredDigestIndex(sub, { writeBatchEntries: 2 });
    const capture = (i: number) => ({ url: `http://a.test/${i}`, date: `2026-11-29T12:00:0${i}.000Z` });
    // W1 starts batch [W0,W1]; W3 fills the next and first waits for that one to be written (back-pressure).
    for (let i = 0; i < 5; i++) await idx.remember(`sha1:W${i}`, capture(i).url, capture(i).date);
    let inStore = await stored(sub);
    assert.deepEqual(inStore.get('sha1:W0'), capture(0));
    assert.deepEqual(inStore.get('sha1:W1'), capture(1));
    assert.equal(inStore.has('sha1:W4'), false);
    assert.deepEqual(await idx.lookup('sha1:W4'), capture(4));
    await idx.flush();
    inStore = await stored(sub);
    assert.deepEqual([...inStore.keys()].sort(), ['sha1:W0', 'sha1:W1', 'sha1:W2', 'sha1:W3', 'sha1:W4']);
    assert.deepEqual(inStore.get('sha1:W4'), capture(4));
  });

  it('a resumed index answers from what an earlier run stored', async () => {
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const earlier = new StoredDigestIndex(sub);
    for (let i = 0; i < 600; i++) await earlier.remember(`sha1:R${i}`, `http://a.test/ünï/${i}`, `2026-11-29T12:${String(i % 60).padStart(2, '0')}:00.000Z`);
    await earlier.flush();
    const resumed = new StoredDigestIndex(sub);
    assert.deepEqual(await resumed.lookup('sha1:R599'), { url: 'http://a.test/ünï/599', date: '2026-11-29T12:59:00.000Z' });
    assert.deepEqual(await resumed.lookup('sha1:R0'), { url: 'http://a.test/ünï/0', date: '2026-11-29T12:00:00.000Z' });
    assert.equal(await resumed.lookup('sha1:R600'), null);
  });

  it('a failed batch write rejects the next call with ARCHIVER_DIGEST_INDEX', async () => {
    const loc = path.join(root, 'closing');
    const closing = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await closing.open();
    const idx = new StoredDigestIndex(closing.sublevel('digests'), { writeBatchEntries: 2 });
    await idx.remember('sha1:F1', 'http://a.test/1', '2026-11-29T12:00:00.000Z');
    // Closed under an index whose table is filled, so only the batch write can fail.
    await idx.loaded();
    await closing.close();
    await idx.remember('sha1:F2', 'http://a.test/2', '2026-11-29T12:00:00.000Z');
    await assert.rejects(idx.flush(), { code: 'ARCHIVER_DIGEST_INDEX', name: 'FatalCrawlError' });
    await assert.rejects(idx.lookup('sha1:F1'), { code: 'ARCHIVER_DIGEST_INDEX' });
  });

  it('rejects a bad batch size with ARCHIVER_INVALID_OPTION', () => {
    assert.throws(() => new StoredDigestIndex(db.sublevel('x'), { writeBatchEntries: 0 }), { code: 'ARCHIVER_INVALID_OPTION' });
  });

  it('reports a store failure as FatalCrawlError(ARCHIVER_DIGEST_INDEX)', async () => {
    const loc = path.join(root, 'closed');
    const closed = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await closed.open();
    const idx = new StoredDigestIndex(closed.sublevel('digests'));
    await closed.close();
    await assert.rejects(idx.lookup('sha1:EEEE'), { code: 'ARCHIVER_DIGEST_INDEX', name: 'FatalCrawlError' });
    await assert.rejects(idx.remember('sha1:EEEE', 'http://a.test/', 'x'), { code: 'ARCHIVER_DIGEST_INDEX' });
  });

  it('a reopened database answers every flushed digest and null for unknown ones, reading keys only on resume', async () => {
    const loc = path.join(root, 'resume-many');
    const N = 2000;
    const first = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new StoredDigestIndex(first.sublevel('digests'), { writeBatchEntries: 64 });
    for (let i = 0; i < N; i++) await idx.remember(`sha1:M${i}`, captureOf(i).url, captureOf(i).date);
    await idx.flush();
    await first.close();
    const second = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      const counting = new CountingLevel(second.sublevel('digests'));
      const resumed = new StoredDigestIndex(counting);
      // Answered at once, while the table fills in the background: confirmed in the store.
      assert.deepEqual(await Promise.all([resumed.lookup('sha1:M0'), resumed.lookup(`sha1:M${N}`)]), [captureOf(0), null]);
      assert.equal(counting.reads, 2, 'before the fill is over, misses are confirmed in the store');
      await resumed.loaded();
      counting.reads = 0;
      for (let i = N; i < 2 * N; i++) assert.equal(await resumed.lookup(`sha1:M${i}`), null);
      assert.equal(counting.reads, 0, 'the table filled from the keys holds every digest: unknown ones need no read');
      assert.equal(resumed.memory.digests, N);
      assert.equal(resumed.memory.complete, true);
      for (let i = 0; i < N; i++) assert.deepEqual(await resumed.lookup(`sha1:M${i}`), captureOf(i));
      assert.equal(counting.reads, N, 'one read per duplicate');
    } finally {
      await second.close();
    }
  });

  it('resumes on a sublevel with default (utf8/json) encodings too', async () => {
    const sub = utf8Db.sublevel<string, unknown>(`d${n++}`, { valueEncoding: 'json' });
    const earlier = new StoredDigestIndex(sub, { writeBatchEntries: 3 });
    for (let i = 0; i < 20; i++) await earlier.remember(`sha1:J${i}`, captureOf(i).url, captureOf(i).date);
    await earlier.flush();
    const resumed = new StoredDigestIndex(sub);
    for (let i = 0; i < 20; i++) assert.deepEqual(await resumed.lookup(`sha1:J${i}`), captureOf(i));
    assert.equal(await resumed.lookup('sha1:J20'), null);
    await resumed.loaded();
    assert.equal(resumed.memory.digests, 20);
    assert.equal(resumed.memory.complete, true);
  });

  it('lookups of unknown digests do not read the store while the table is complete', async () => {
    const counting = new CountingLevel(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' }));
    const idx = new StoredDigestIndex(counting, { writeBatchEntries: 8 });
    for (let i = 0; i < 100; i++) await idx.remember(`sha1:U${i}`, captureOf(i).url, captureOf(i).date);
    await idx.flush();
    for (let i = 100; i < 1100; i++) assert.equal(await idx.lookup(`sha1:U${i}`), null);
    assert.equal(counting.reads, 0);
    assert.deepEqual(await idx.lookup('sha1:U5'), captureOf(5));
    assert.equal(counting.reads, 1);
  });

  it('a fingerprint collision never makes a false revisit', async () => {
    // Two different digests, one fingerprint: the table says "maybe", the full key in the store says no.
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const counting = new CountingLevel(sub);
    const idx = new StoredDigestIndex(counting, { writeBatchEntries: 1, fingerprint: oneFingerprint });
    await idx.remember('sha1:COLLIDEA', 'http://a.test/a', '2026-11-29T12:00:00.000Z');
    await idx.flush();
    assert.equal(await idx.lookup('sha1:COLLIDEB'), null);
    assert.equal(counting.reads, 1, 'the collision was confirmed in the store');
    await idx.remember('sha1:COLLIDEB', 'http://b.test/b', '2026-11-29T12:00:01.000Z');
    await idx.flush();
    assert.deepEqual(await idx.lookup('sha1:COLLIDEA'), { url: 'http://a.test/a', date: '2026-11-29T12:00:00.000Z' });
    assert.deepEqual(await idx.lookup('sha1:COLLIDEB'), { url: 'http://b.test/b', date: '2026-11-29T12:00:01.000Z' });
    // And after a resume, where the table is filled from the keys.
    const resumed = new StoredDigestIndex(sub, { fingerprint: oneFingerprint });
    assert.equal(await resumed.lookup('sha1:COLLIDEC'), null);
    assert.deepEqual(await resumed.lookup('sha1:COLLIDEB'), { url: 'http://b.test/b', date: '2026-11-29T12:00:01.000Z' });
  });

  it('past its memory cap, answers stay exact (misses are confirmed in the store)', async () => {
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const counting = new CountingLevel(sub);
    const idx = new StoredDigestIndex(counting, { writeBatchEntries: 7, memoryDigests: 10 });
    for (let i = 0; i < 100; i++) await idx.remember(`sha1:P${i}`, captureOf(i).url, captureOf(i).date);
    assert.equal(idx.memory.digests, 10);
    assert.equal(idx.memory.complete, false);
    // Some still pending, the rest in the store: both answered.
    for (let i = 0; i < 100; i++) assert.deepEqual(await idx.lookup(`sha1:P${i}`), captureOf(i));
    await idx.flush();
    for (let i = 0; i < 100; i++) assert.deepEqual(await idx.lookup(`sha1:P${i}`), captureOf(i));
    const before = counting.reads;
    for (let i = 100; i < 150; i++) assert.equal(await idx.lookup(`sha1:P${i}`), null);
    assert.ok(counting.reads > before, 'an incomplete table sends unknown digests to the store');
    // A resumed index with the same cap fills up on load and stays exact too.
    const resumed = new StoredDigestIndex(sub, { memoryDigests: 10 });
    await resumed.loaded();
    for (let i = 0; i < 100; i++) assert.deepEqual(await resumed.lookup(`sha1:P${i}`), captureOf(i));
    for (let i = 100; i < 150; i++) assert.equal(await resumed.lookup(`sha1:P${i}`), null);
    assert.equal(resumed.memory.complete, false);
  });

  it('answers entries not yet written from memory', async () => {
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new StoredDigestIndex(sub, { writeBatchEntries: 1000 });
    for (let i = 0; i < 50; i++) await idx.remember(`sha1:Q${i}`, captureOf(i).url, captureOf(i).date);
    assert.equal((await stored(sub)).size, 0, 'nothing written yet');
    for (let i = 0; i < 50; i++) assert.deepEqual(await idx.lookup(`sha1:Q${i}`), captureOf(i));
    assert.equal(await idx.lookup('sha1:Q50'), null);
  });

  it('rejects a bad memory cap with ARCHIVER_INVALID_OPTION', () => {
    assert.throws(() => new StoredDigestIndex(db.sublevel('x'), { memoryDigests: -1 }), { code: 'ARCHIVER_INVALID_OPTION' });
    assert.throws(() => new StoredDigestIndex(db.sublevel('x'), { memoryDigests: 1.5 }), { code: 'ARCHIVER_INVALID_OPTION' });
  });
});
