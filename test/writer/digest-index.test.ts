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

describe('LevelDigestIndex', () => {
  it('persists across reopening the database', async () => {
    const loc = path.join(root, 'reopen');
    const first = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await new LevelDigestIndex(first.sublevel('digests')).remember('sha1:DDDD', 'http://a.test/', '2026-11-29T12:00:00.000Z');
    await first.close();
    const second = new ClassicLevel<Buffer, Buffer>(loc, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      assert.deepEqual(await new LevelDigestIndex(second.sublevel('digests')).lookup('sha1:DDDD'), { url: 'http://a.test/', date: '2026-11-29T12:00:00.000Z' });
    } finally {
      await second.close();
    }
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
