/**
 * The QueueStore conformance suite: what the frontier relies on from any
 * place it keeps queued URIs (LevelDB, memory, Redis), checked through the
 * interface only. Each backend runs it in one line.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { QueueEntry, QueueStore } from '../../src/frontier/queue-store.js';
import type { QueueMeta } from '../../src/frontier/queue-meta.js';
import { uri } from './harness.js';

export interface StoreUnderTest {
  store: QueueStore;
  /** Another store over the same data, as after a restart. */
  again(): QueueStore;
  dispose(): Promise<void>;
  /**
   * A store several processes share (Redis), as one of them sees it: it
   * keeps figures only of queues this process holds (took on with an add),
   * each process counts ordinals from a base of its own (load() gives that
   * base, not the highest stored), and it compares whole sorted-set
   * members, so sort keys must be of one length (queue-order.ts makes
   * every one 11 bytes).
   */
  shared?: boolean;
}

const key = (...bytes: number[]): Buffer => Buffer.from(bytes);
const entry = (queueKey: string, sortKey: Buffer, o: number, url = `http://${queueKey}/${o}`): QueueEntry => ({ queueKey, sortKey, value: { o, u: uri(url) } });
const meta = (f: number): QueueMeta => ({ f, t: f, s: 0, w: 0, a: false, n: f });
const urls = (rows: { value: { u: { url: string } } }[]): string[] => rows.map((r) => r.value.u.url);

export function queueStoreConformance(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`QueueStore conformance: ${name}`, () => {
    const made: StoreUnderTest[] = [];
    const make = async (): Promise<StoreUnderTest> => {
      const under = await factory();
      made.push(under);
      return under;
    };
    afterEach(async () => {
      for (const under of made.splice(0)) await under.dispose();
    });

    it('loads an empty store as empty', async () => {
      const { store } = await make();
      const state = await store.load();
      assert.deepEqual([state.queues.size, state.hosts.size, state.ordinal], [0, 0, 0]);
      assert.deepEqual(await store.readAfter('a', null, 10), []);
    });

    it('reads one queue in sort-key order after a cursor, a limit at a time, never another queue\'s URIs', async () => {
      const { store, shared } = await make();
      // A key that another key is a prefix of, where the store allows it.
      const prefixed = shared === true ? [] : [entry('a', key(2, 0), 4)];
      const a4 = shared === true ? [] : ['http://a/4'];
      await store.add([entry('a', key(3), 3), entry('ab', key(0), 9), entry('a', key(1), 1), ...prefixed]);
      await store.add([entry('a', key(2), 2), entry('', key(1), 7), entry('a\u00e9', key(0), 8)]);
      assert.deepEqual(urls(await store.readAfter('a', null, 10)), ['http://a/1', 'http://a/2', ...a4, 'http://a/3']);
      const firstTwo = await store.readAfter('a', null, 2);
      assert.deepEqual(firstTwo.map((r) => [...r.sortKey]), [[1], [2]]);
      assert.deepEqual(urls(await store.readAfter('a', firstTwo[1]!.sortKey, 2)), [...a4, 'http://a/3']);
      assert.deepEqual(await store.readAfter('a', key(3), 2), []);
      assert.deepEqual(urls(await store.readAfter('ab', null, 10)), ['http://ab/9']);
      assert.deepEqual(urls(await store.readAfter('a\u00e9', null, 10)), ['http://a\u00e9/8']);
    });

    it('keeps URIs as JSON: what comes back equals what went in, not the same object', async () => {
      const { store } = await make();
      const u = { ...uri('http://a.test/x?q=é', 'LLE'), via: 'http://a.test/', priority: 2.5 };
      const value = { o: 42, u };
      await store.add([{ queueKey: 'a.test', sortKey: key(9), value }]);
      const [read] = await store.readAfter('a.test', null, 1);
      assert.deepEqual(read!.value, value);
      assert.notEqual(read!.value.u, u);
    });

    it('applies a commit in order: rewrites, deletes, then the figures of queues and hosts', async () => {
      const { store, again, shared } = await make();
      await store.add([entry('a', key(1), 1), entry('a', key(2), 2), entry('b', key(1), 3)]);
      await store.commit({
        ops: [
          { type: 'del', ref: { queueKey: 'a', sortKey: key(1) } },
          { type: 'put', entry: entry('a', key(2), 2, 'http://a/2-retried') },
          { type: 'put', entry: entry('a', key(0), 5, 'http://a/prerequisite') },
          { type: 'del', ref: { queueKey: 'b', sortKey: key(7) } }, // not there: nothing happens
        ],
        queues: [['a', meta(1)], ['c', meta(4)]],
        hosts: [['a:80', 1_700_000_060_000]],
      });
      await store.commit({ ops: [{ type: 'del', ref: { queueKey: 'b', sortKey: key(1) } }], queues: [['b', meta(1)], ['c', meta(5)]], hosts: [['a:80', 5], ['b:443', 7]] });
      assert.deepEqual(urls(await store.readAfter('a', null, 10)), ['http://a/prerequisite', 'http://a/2-retried']);
      assert.deepEqual(await store.readAfter('b', null, 10), []);
      for (const s of [store, again()]) {
        const state = await s.load();
        assert.deepEqual(
          [...state.queues].sort(([x], [y]) => (x < y ? -1 : 1)),
          // A shared store keeps no figures of queue c: it never took it on.
          [['a', { count: 2, meta: meta(1) }], ['b', { count: 0, meta: meta(1) }], ...(shared === true ? [] : [['c', { count: 0, meta: meta(5) }]])],
        );
        assert.deepEqual([...state.hosts].sort(), [['a:80', 5], ['b:443', 7]]);
        if (shared !== true) assert.ok(state.ordinal >= 5, `ordinal ${state.ordinal}`);
      }
    });

    it('counts every stored URI per queue on load, queues without saved figures included', async () => {
      const { store, again, shared } = await make();
      const entries: QueueEntry[] = [];
      for (let i = 1; i <= 50; i++) entries.push(entry(`q${i % 4}`, key(i), i * 3));
      await store.add(entries);
      const state = await again().load();
      assert.deepEqual(
        [...state.queues].sort(([x], [y]) => (x < y ? -1 : 1)),
        [['q0', { count: 12, meta: null }], ['q1', { count: 13, meta: null }], ['q2', { count: 13, meta: null }], ['q3', { count: 12, meta: null }]],
      );
      if (shared !== true) assert.ok(state.ordinal >= 150);
    });
  });
}
