/**
 * DigestIndex conformance: the memory and LevelDB backends run one suite.
 * The LevelDB one is also run on a sublevel with default (utf8/json)
 * encodings, since the crawl hands it a buffer-encoded sublevel and tests
 * another: explicit encodings must make both work.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import { LevelDigestIndex, MemoryDigestIndex, type DigestIndex } from '../../src/writer/digest-index.js';

function conformance(name: string, make: () => Promise<DigestIndex>): void {
  describe(`DigestIndex conformance: ${name}`, () => {
    it('returns null for an unknown digest', async () => {
      const idx = await make();
      assert.equal(await idx.lookup('sha1:UNKNOWNUNKNOWNUNKNOWNUNKNOWN2345'), null);
    });

    it('returns what was remembered, per digest', async () => {
      const idx = await make();
      await idx.remember('sha1:AAAA', 'http://a.test/1', '2026-11-29T12:00:00.123Z');
      await idx.remember('sha1:BBBB', 'http://b.test/ünï?q=1', '2026-11-29T12:00:01.000Z');
      assert.deepEqual(await idx.lookup('sha1:AAAA'), { url: 'http://a.test/1', date: '2026-11-29T12:00:00.123Z' });
      assert.deepEqual(await idx.lookup('sha1:BBBB'), { url: 'http://b.test/ünï?q=1', date: '2026-11-29T12:00:01.000Z' });
      assert.equal(await idx.lookup('sha1:AAAB'), null);
    });

    it('remembering again replaces the entry', async () => {
      const idx = await make();
      await idx.remember('sha1:CCCC', 'http://a.test/old', '2026-01-01T00:00:00.000Z');
      await idx.remember('sha1:CCCC', 'http://a.test/new', '2026-01-02T00:00:00.000Z');
      assert.deepEqual(await idx.lookup('sha1:CCCC'), { url: 'http://a.test/new', date: '2026-01-02T00:00:00.000Z' });
    });
  });
}

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
  new LevelDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' })),
);
conformance('classic-level, json sublevel', async () => new LevelDigestIndex(utf8Db.sublevel<string, unknown>(`d${n++}`, { valueEncoding: 'json' })));

conformance('classic-level, batches of one', async () =>
  new LevelDigestIndex(db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' }), { writeBatchEntries: 1 }),
);

/** What the store itself holds, read past the index. */
async function stored(sub: { iterator(o: { keyEncoding: 'utf8'; valueEncoding: 'utf8' }): AsyncIterable<[string, string]> }): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for await (const [k, v] of sub.iterator({ keyEncoding: 'utf8', valueEncoding: 'utf8' })) out.set(k, JSON.parse(v));
  return out;
}

describe('LevelDigestIndex', () => {
  it('persists across reopening the database once flushed', async () => {
    const loc = path.join(root, 'reopen');
    const first = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new LevelDigestIndex(first.sublevel('digests'));
    await idx.remember('sha1:DDDD', 'http://a.test/', '2026-11-29T12:00:00.000Z');
    await idx.flush();
    await first.close();
    const second = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      assert.deepEqual(await new LevelDigestIndex(second.sublevel('digests')).lookup('sha1:DDDD'), { url: 'http://a.test/', date: '2026-11-29T12:00:00.000Z' });
    } finally {
      await second.close();
    }
  });

  it('writes behind in batches: a full batch reaches the store, the rest waits for flush()', async () => {
    // The documented crash window: entries short of a batch are only in memory until flushed.
    const sub = db.sublevel<Buffer, Buffer>(`d${n++}`, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const idx = new LevelDigestIndex(sub, { writeBatchEntries: 2 });
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
    const earlier = new LevelDigestIndex(sub);
    for (let i = 0; i < 600; i++) await earlier.remember(`sha1:R${i}`, `http://a.test/ünï/${i}`, `2026-11-29T12:${String(i % 60).padStart(2, '0')}:00.000Z`);
    await earlier.flush();
    const resumed = new LevelDigestIndex(sub);
    assert.deepEqual(await resumed.lookup('sha1:R599'), { url: 'http://a.test/ünï/599', date: '2026-11-29T12:59:00.000Z' });
    assert.deepEqual(await resumed.lookup('sha1:R0'), { url: 'http://a.test/ünï/0', date: '2026-11-29T12:00:00.000Z' });
    assert.equal(await resumed.lookup('sha1:R600'), null);
  });

  it('a failed batch write rejects the next call with ARCHIVER_DIGEST_INDEX', async () => {
    const loc = path.join(root, 'closing');
    const closing = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await closing.open();
    const idx = new LevelDigestIndex(closing.sublevel('digests'), { writeBatchEntries: 2 });
    await idx.remember('sha1:F1', 'http://a.test/1', '2026-11-29T12:00:00.000Z');
    await closing.close();
    // Loaded already, so this only fails when its batch is written.
    await idx.remember('sha1:F2', 'http://a.test/2', '2026-11-29T12:00:00.000Z');
    await assert.rejects(idx.flush(), { code: 'ARCHIVER_DIGEST_INDEX', name: 'FatalCrawlError' });
    await assert.rejects(idx.lookup('sha1:F1'), { code: 'ARCHIVER_DIGEST_INDEX' });
  });

  it('rejects a bad batch size with ARCHIVER_INVALID_OPTION', () => {
    assert.throws(() => new LevelDigestIndex(db.sublevel('x'), { writeBatchEntries: 0 }), { code: 'ARCHIVER_INVALID_OPTION' });
  });

  it('reports a store failure as FatalCrawlError(ARCHIVER_DIGEST_INDEX)', async () => {
    const loc = path.join(root, 'closed');
    const closed = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await closed.open();
    const idx = new LevelDigestIndex(closed.sublevel('digests'));
    await closed.close();
    await assert.rejects(idx.lookup('sha1:EEEE'), { code: 'ARCHIVER_DIGEST_INDEX', name: 'FatalCrawlError' });
    await assert.rejects(idx.remember('sha1:EEEE', 'http://a.test/', 'x'), { code: 'ARCHIVER_DIGEST_INDEX' });
  });
});
