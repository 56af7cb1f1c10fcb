/**
 * The frontier's bytes on disk. It used to live in an abstract-level
 * sublevel `frontier` of the crawl's `state/` LevelDB; it now writes the
 * root database through a Keyspace (cheaper per key on the main thread).
 * A job stopped under the old code must resume under the new one, so these
 * tests write state through a real `db.sublevel('frontier')`, in the old
 * layout and encodings, open the frontier on a LevelQueueStore over
 * `new Keyspace(db, 'frontier')`
 * and check that it finds every URI, queue record and host delay, and that
 * what it writes back lands on the same keys the sublevel reads.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ClassicLevel } from 'classic-level';
import type { CrawlUri } from '../../src/core/crawl-uri.js';
import type { Claim } from '../../src/frontier/frontier.js';
import { queueAssignmentFor } from '../../src/frontier/assignment.js';
import { HOSTS_START } from '../../src/frontier/queue-meta.js';
import { LevelQueueStore, entryKey } from '../../src/frontier/level-queue-store.js';
import { breadthFirst } from '../../src/frontier/queue-order.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { Keyspace, type RootLevel } from '../../src/store/keyspace.js';
import { useTempLevel } from '../helpers/temp-level.js';
import { DEFAULT_TEST_OPTIONS, uri } from './harness.js';

const state = useTempLevel();


/** next() that does not wait: a claim if one is available now, else null. */
async function tryNext(f: WorkQueueFrontier): Promise<Claim | null> {
  const ac = new AbortController();
  const result = f.next(ac.signal);
  setImmediate(() => ac.abort());
  return result;
}

const T0 = 1_700_000_000_000;

describe('frontier keyspace layout', () => {
  it('resumes state written through the old `frontier` sublevel and writes back where it reads', async () => {
    // Exactly how the old queue store opened its range and encoded its values.
    const old = state.db.sublevel<Buffer, string>('frontier', { keyEncoding: 'buffer', valueEncoding: 'utf8' });
    const policy = queueAssignmentFor(DEFAULT_TEST_OPTIONS);
    const queueOf = (u: CrawlUri): string => policy.keyFor(new URL(u.url));
    const queued: [number, CrawlUri][] = [
      [1, uri('http://a.test/1')],
      [2, uri('http://a.test/2', 'L')],
      [3, uri('http://b.test/1')],
    ];
    const meta = (queueKey: string): Buffer => Buffer.concat([Buffer.of(0xff), Buffer.from(queueKey, 'utf8')]);
    const aQueue = queueOf(uri('http://a.test/'));
    const bQueue = queueOf(uri('http://b.test/'));
    await old.batch([
      ...queued.map(([o, u]) => ({ type: 'put' as const, key: entryKey(queueOf(u), breadthFirst.sortKey(u, o)), value: JSON.stringify({ o, u }) })),
      // a.test: 4 finished, waiting its turn; b.test: 1 finished, snoozed for a minute.
      { type: 'put', key: meta(aQueue), value: JSON.stringify({ f: 4, t: 4, s: 0, w: 0, a: false, n: 1 }) },
      { type: 'put', key: meta(bQueue), value: JSON.stringify({ f: 1, t: 1, s: 1, w: T0 + 60_000, a: true, n: 2 }) },
      // a.test's host gate closed for 30 s (say a Retry-After).
      { type: 'put', key: Buffer.concat([HOSTS_START, Buffer.from('a.test:80', 'utf8')]), value: String(T0 + 30_000) },
    ]);

    const clock = { t: T0 };
    const init = { store: new LevelQueueStore(new Keyspace(state.db, 'frontier')), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: { now: () => clock.t } };
    const f = await WorkQueueFrontier.open(init);
    assert.equal(f.stats().queued, 3);
    assert.equal(f.stats().finished, 5);
    assert.equal(await tryNext(f), null, 'a.test gated and b.test snoozed by their saved times');

    clock.t = T0 + 30_001;
    const got: string[] = [];
    for (let c = await tryNext(f); c !== null; c = await tryNext(f)) {
      got.push(c.uri.url);
      await f.finished(c, { kind: 'done', delayMs: 0 });
    }
    assert.deepEqual(got, ['http://a.test/1', 'http://a.test/2']);
    clock.t = T0 + 60_001;
    const b = await tryNext(f);
    assert.equal(b?.uri.url, 'http://b.test/1');
    await f.finished(b!, { kind: 'done', delayMs: 0 });
    await f.schedule([uri('http://c.test/1')]);
    await f.close();

    // Through the old sublevel: the finished entries are gone, the new one and the new figures are there.
    const entries = await old.iterator({ lt: HOSTS_START }).all();
    assert.deepEqual(
      entries.map(([key, value]) => [key, JSON.parse(value)]),
      [[entryKey(queueOf(uri('http://c.test/1')), breadthFirst.sortKey(uri('http://c.test/1'), 4)), { o: 4, u: uri('http://c.test/1') }]],
    );
    assert.equal(JSON.parse((await old.get(meta(aQueue)))!).f, 6);
    assert.equal(JSON.parse((await old.get(meta(bQueue)))!).f, 2);

    // And nothing was written outside the range.
    const outside = await state.db.keys({ lt: Buffer.from('!frontier!', 'latin1') }).all();
    const beyond = await state.db.keys({ gte: Buffer.from('!frontier"', 'latin1') }).all();
    assert.deepEqual([...outside, ...beyond], []);
  });

  it('keeps two keyspaces of one database apart', async () => {
    const one = new WorkQueueFrontier({ store: new LevelQueueStore(new Keyspace(state.db, 'f-1')), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1 });
    const ten = new WorkQueueFrontier({ store: new LevelQueueStore(new Keyspace(state.db, 'f-10')), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1 });
    await one.schedule([uri('http://one.test/')]);
    await ten.schedule([uri('http://ten.test/')]);
    await one.close();
    await ten.close();
    const reopened = await WorkQueueFrontier.open({ store: new LevelQueueStore(new Keyspace(state.db, 'f-1')), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1 });
    assert.equal(reopened.stats().queued, 1);
    // f-10's URIs and queue records sort after f-1's metadata: a scan must stop at its space's end.
    assert.equal(reopened.queues().length, 1);
    assert.equal((await reopened.next())?.uri.url, 'http://one.test/');
    await reopened.close();
  });

  it('refuses a database whose default encodings are not buffers', async () => {
    const utf8 = new ClassicLevel<string, string>(path.join(state.dir, 'utf8'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    await utf8.open();
    try {
      const space = new Keyspace(utf8 as unknown as RootLevel, 'frontier');
      assert.throws(() => new LevelQueueStore(space), { code: 'ARCHIVER_FRONTIER_BAD_OPTIONS' });
    } finally {
      await utf8.close();
    }
  });
});
