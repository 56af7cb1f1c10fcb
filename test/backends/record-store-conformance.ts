/**
 * The RecordStore conformance suite: what the journals (robots.txt results,
 * hosts' health, the job's records, the focus topic) rely on from any
 * backend's small keyed records, through the interface only. Each row of
 * the backend table runs it (backends.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { RecordStore } from '../../src/store/record-store.js';

export interface RecordsUnderTest {
  store: RecordStore;
  /** Another store over the same records, as another part of the crawl (or a restart) sees them. */
  again(): RecordStore;
  dispose(): Promise<void>;
}

const all = async (store: RecordStore): Promise<[string, string][]> => {
  const out: [string, string][] = [];
  for await (const [key, value] of store.entries()) out.push([key, value.toString('hex')]);
  return out;
};

export function recordStoreConformance(name: string, factory: () => Promise<RecordsUnderTest>): void {
  const fresh = async (t: TestContext): Promise<RecordsUnderTest> => {
    const under = await factory();
    t.after(() => under.dispose());
    return under;
  };

  describe(`RecordStore conformance: ${name}`, () => {
    it('an empty store lists nothing and answers undefined', async (t) => {
      const { store } = await fresh(t);
      assert.deepEqual(await all(store), []);
      assert.equal(await store.get('http://a.test:80'), undefined);
    });

    it('gives back the bytes put, byte for byte; a second put replaces the first', async (t) => {
      const { store } = await fresh(t);
      const binary = Buffer.from([0, 255, 10, 13, 0x80, 0]);
      await store.put('bin', binary);
      await store.put('text', Buffer.from('{"ok":true}'));
      await store.put('text', Buffer.from('{"ok":false}'));
      assert.deepEqual(await store.get('bin'), binary);
      assert.equal((await store.get('text'))?.toString(), '{"ok":false}');
      assert.deepEqual(await store.get('empty-not-put'), undefined);
    });

    it('lists every record in key order, keys as UTF-8 strings', async (t) => {
      const { store } = await fresh(t);
      const keys = ['https://b.test:443', 'http://a.test:80', 'http://ä.test:80', 'seed:2', 'seed:10'];
      for (const [i, key] of keys.entries()) await store.put(key, Buffer.of(i));
      const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      assert.deepEqual(await all(store), sorted.map((key) => [key, Buffer.of(keys.indexOf(key)).toString('hex')]));
    });

    it('deletes one record; deleting a missing one is no error', async (t) => {
      const { store } = await fresh(t);
      await store.put('a', Buffer.from('1'));
      await store.put('b', Buffer.from('2'));
      await store.del('a');
      await store.del('never');
      assert.equal(await store.get('a'), undefined);
      assert.deepEqual(await all(store), [['b', Buffer.from('2').toString('hex')]]);
    });

    it('another store over the same records sees what this one wrote', async (t) => {
      const under = await fresh(t);
      await under.store.put('kept', Buffer.from('yes'));
      await under.store.put('gone', Buffer.from('no'));
      await under.store.del('gone');
      const again = under.again();
      assert.equal((await again.get('kept'))?.toString(), 'yes');
      assert.deepEqual(await all(again), [['kept', Buffer.from('yes').toString('hex')]]);
    });
  });
}
