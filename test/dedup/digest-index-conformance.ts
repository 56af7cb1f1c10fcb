/**
 * The DigestIndex conformance suite: what payload dedup relies on from any
 * digest index, through the interface only. The memory index and the
 * stored one (over sublevels here, over every state backend's digest map
 * in test/backends/) each run it in one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DigestIndex } from '../../src/dedup/digest-index.js';

export function digestIndexConformance(name: string, make: () => Promise<DigestIndex>): void {
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
