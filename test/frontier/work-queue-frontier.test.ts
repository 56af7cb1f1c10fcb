/**
 * The LevelDB work-queue frontier: the shared conformance suites (of the
 * frontier, and of LevelQueueStore), then what only this implementation
 * promises — URIs kept out of the heap, ELF-hash spreading that still
 * honours the host limit, a head buffer that never reorders a queue,
 * rebuilding from the store after a crash, and its init's extras.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FrontierOptions } from '../../src/config/profile.js';
import { LevelQueueStore } from '../../src/frontier/level-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { Keyspace } from '../../src/store/keyspace.js';
import { useTempLevel } from '../helpers/temp-level.js';
import { frontierConformance } from './conformance.js';
import { DEFAULT_TEST_OPTIONS, rng, take, tryNext, uri } from './harness.js';
import { queueStoreConformance } from './queue-store-conformance.js';

const state = useTempLevel();
let serial = 0;


/** A fresh keyspace per frontier, like the crawl's `state/` LevelDB holds one. */
function keyspace(): Keyspace {
  return new Keyspace(state.db, `frontier-${serial++}`);
}

/** Delete everything in a keyspace. */
function clear(space: Keyspace): Promise<void> {
  return state.db.clear(space.range);
}

function init(options: Partial<FrontierOptions> = {}, maxConnectionsPerHost = 1, space = keyspace()) {
  return { store: new LevelQueueStore(space), options: { ...DEFAULT_TEST_OPTIONS, ...options }, maxConnectionsPerHost };
}

queueStoreConformance('LevelQueueStore', async () => {
  const space = keyspace();
  return { store: new LevelQueueStore(space), again: () => new LevelQueueStore(space), dispose: () => clear(space) };
});

frontierConformance('WorkQueueFrontier on LevelDB', async (setup) => {
  const space = keyspace();
  const init = { ...setup, store: new LevelQueueStore(space) };
  return {
    frontier: new WorkQueueFrontier(init),
    reopen: () => WorkQueueFrontier.open(init),
    dispose: () => clear(space),
  };
});

function gcNow(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('WorkQueueFrontier specifics', () => {
  it('keeps 200k queued URIs out of the heap', async () => {
    const store = keyspace();
    const f = new WorkQueueFrontier(init({}, 1, store));
    gcNow();
    const before = process.memoryUsage().heapUsed;
    const total = 200_000;
    const pad = 'x'.repeat(60);
    for (let start = 0; start < total; start += 2000) {
      const batch = [];
      for (let i = start; i < start + 2000; i++) batch.push(uri(`http://host${i % 100}.test/${pad}/page-${i}`, 'LL'));
      await f.schedule(batch);
    }
    gcNow();
    const grown = process.memoryUsage().heapUsed - before;
    // Held in memory these URIs would take well over 200k × 200 bytes = 40 MB;
    // measured ~1.2 MB after a forced GC. 16 MB leaves 13 times that, and
    // still fails a frontier that keeps them on the heap.
    assert.ok(grown < 16 * 1024 * 1024, `heap grew ${(grown / 1048576).toFixed(1)} MB for ${total} queued URIs`);
    assert.equal(f.stats().queued, total);
    const claim = await f.next();
    assert.equal(claim?.uri.url, `http://host0.test/${pad}/page-0`);
    await f.close();
    await clear(store);
  });

  it('spreads one host over several ELF-hash queues and still keeps it within its limit', async () => {
    const f = new WorkQueueFrontier(init({ queueAssignment: 'elfHash', elfHashBuckets: 8, elfHashOf: 'url' }, 2));
    await f.schedule(Array.from({ length: 40 }, (_, i) => uri(`http://big.test/page/${i}`)));
    assert.ok(f.stats().queuesByState.inactive >= 4, 'one host should land in several queues');
    let inFlight = 0;
    let most = 0;
    const keys = new Set<string>();
    const worker = async () => {
      for (let c = await f.next(); c !== null; c = await f.next()) {
        inFlight++;
        most = Math.max(most, inFlight);
        keys.add(c.queueKey);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        await f.finished(c, { kind: 'done', delayMs: 0 });
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    assert.ok(keys.size >= 4, `claims came from ${keys.size} queues`);
    assert.equal(most, 2);
    assert.equal(f.stats().finished, 40);
    await f.close();
  });

  it('hands out the smallest key first through a tiny head buffer, across inserts, retries and defers', async () => {
    const random = rng(7);
    const f = new WorkQueueFrontier({ ...init(), headBufferSize: 2 });
    // Model: remaining URIs with their (directive, hops, ordinal) sort tuple.
    const model: { url: string; d: number; h: number; o: number }[] = [];
    let ordinal = 0;
    let n = 0;
    const add = async (count: number) => {
      const batch = [];
      for (let i = 0; i < count; i++) {
        const hops = 'L'.repeat(Math.floor(random() * 4)) + (random() < 0.2 ? 'E' : '');
        const u = uri(`http://a.test/${n++}`, hops);
        batch.push(u);
        model.push({ url: u.url, d: u.directive, h: hops.length, o: ++ordinal });
      }
      await f.schedule(batch);
    };
    const smallest = () => [...model].sort((x, y) => x.d - y.d || x.h - y.h || x.o - y.o)[0]!;
    await add(10);
    for (let step = 0; step < 200 && model.length > 0; step++) {
      const claim = await f.next();
      assert.equal(claim?.uri.url, smallest().url, `step ${step}`);
      const r = random();
      if (r < 0.15) {
        await f.finished(claim!, { kind: 'retry', delayMs: 0 });
      } else if (r < 0.2) {
        const pre = uri(`http://a.test/pre-${n++}`, 'P');
        model.push({ url: pre.url, d: 0, h: 1, o: ++ordinal });
        await f.finished(claim!, { kind: 'defer', delayMs: 0, prerequisite: pre });
      } else {
        model.splice(model.findIndex((m) => m.url === claim!.uri.url), 1);
        await f.finished(claim!, { kind: 'done', delayMs: 0 });
      }
      if (random() < 0.3) await add(1 + Math.floor(random() * 4));
    }
    await f.close();
  });

  it('rebuilds its queues from the store after a crash, repeatedly', async () => {
    const store = keyspace();
    const first = new WorkQueueFrontier(init({}, 1, store));
    await first.schedule([uri('http://a.test/1'), uri('http://a.test/2', 'L'), uri('http://b.test/1')]);
    const held = await first.next(); // in process when the "crash" happens
    assert.equal(held?.uri.url, 'http://a.test/1');
    const done = await first.next();
    await first.finished(done!, { kind: 'done', delayMs: 0 });
    // Deletes are written behind; a crash before they land would refetch b.test/1 (allowed),
    // this test models a crash just after.
    await first.flush();
    // No close, no finished(held): the process died.

    const second = await WorkQueueFrontier.open(init({}, 1, store));
    assert.equal(second.stats().queued, 2);
    // a.test was in a session and stays in it; b.test finished before the crash and is remembered.
    assert.equal(second.stats().queuesByState.ready, 1);
    assert.equal(second.stats().queuesByState.exhausted, 1);
    assert.equal(second.stats().finished, 1);
    await second.schedule([uri('http://a.test/3', 'L')]);
    const c = await second.next();
    await second.finished(c!, { kind: 'retry', delayMs: 0 });
    await second.close();

    const third = await WorkQueueFrontier.open(init({}, 1, store));
    const order: string[] = [];
    for (let claim = await third.next(); claim !== null; claim = await third.next()) {
      order.push(`${claim.uri.url}#${claim.uri.retries}`);
      await third.finished(claim, { kind: 'done', delayMs: 0 });
    }
    // a.test/1 survived as in-process, then was retried once; a.test/3 was numbered after the reopen.
    assert.deepEqual(order.sort(), ['http://a.test/1#1', 'http://a.test/2#0', 'http://a.test/3#0'].sort());
    assert.deepEqual(order.filter((u) => u.startsWith('http://a.test/')), ['http://a.test/1#1', 'http://a.test/2#0', 'http://a.test/3#0']);
    await third.close();
    const reopened = await WorkQueueFrontier.open(init({}, 1, store));
    assert.equal(reopened.stats().queued, 0);
    assert.equal(await reopened.next(), null);
  });

  it('finishing a URI released before wakes no waiter while nothing became claimable', async () => {
    // Each waiter woken takes the lock to find nothing: on a crawl of one host that was a second
    // failed claim per URI (~3% of a crawl's CPU on small pages).
    class Watched extends WorkQueueFrontier {
      get wakes(): number {
        return this.changes.version;
      }
    }
    const f = new Watched(init());
    await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://a.test/3')]);
    const first = await take(f);
    await f.released(first, 0);
    const second = await take(f);
    const before = f.wakes;
    await f.finished(first, { kind: 'done', delayMs: 0 });
    assert.equal(f.wakes, before, 'a.test is busy with the second URI: nothing to wake anyone for');
    // A retry puts a URI back: that is a change to wake for.
    await f.released(second, 0);
    const third = await take(f);
    const beforeRetry = f.wakes;
    await f.finished(second, { kind: 'retry', delayMs: 0 });
    assert.ok(f.wakes > beforeRetry, 'a retried URI is queued again');
    await f.finished(third, { kind: 'done', delayMs: 0 });
    const again = await take(f);
    await f.finished(again, { kind: 'done', delayMs: 0 });
    assert.equal(await tryNext(f), null);
    await f.close();
  });

  it('rejects bad options and unparsable URLs with stable codes', async () => {
    assert.throws(() => new WorkQueueFrontier(init({}, 0)), { code: 'ARCHIVER_FRONTIER_BAD_OPTIONS' });
    assert.throws(() => new WorkQueueFrontier(init({ queueAssignment: 'ip' as never })), { code: 'ARCHIVER_FRONTIER_UNKNOWN_POLICY' });
    const f = new WorkQueueFrontier(init());
    await assert.rejects(f.schedule([uri('not a url')]), { code: 'ARCHIVER_FRONTIER_BAD_URI' });
    await f.close();
    await assert.rejects(f.schedule([uri('http://a.test/')]), { code: 'ARCHIVER_FRONTIER_CLOSED' });
  });

  it('writes a retry without holding its lock, and a head reload reads the retry back', { timeout: 5000 }, async () => {
    // finished() with a retry used to hold the frontier's lock until the
    // rewrite reached LevelDB, so a host answering robots.txt with 500 (all
    // its URIs retried) stalled every claim. Hold LevelDB's writes: claims
    // from memory go on, and a claim that must reload the head from the
    // store waits for the rewrite instead of reading the old entry.
    const db = state.db;
    const realBatch = db.batch.bind(db);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const f = new WorkQueueFrontier({ ...init({}, 2), headBufferSize: 1 });
    await f.schedule(['http://a.test/1', 'http://a.test/2', 'http://a.test/3'].map((u) => uri(u, 'L')));
    const one = (await f.next())!;
    const two = (await f.next())!;
    (db as { batch: unknown }).batch = (...args: unknown[]) => {
      const batch = (realBatch as (...a: unknown[]) => { write: () => Promise<void> })(...args);
      const write = batch.write.bind(batch);
      batch.write = async () => {
        await gate;
        await write();
      };
      return batch;
    };
    try {
      // Offered back into a head of one, /1 pushes /2 out of it: /2 must be read back from the store.
      const retried = [f.finished(two, { kind: 'retry', delayMs: 0 }), f.finished(one, { kind: 'retry', delayMs: 0 })];
      const again = (await f.next())!;
      assert.deepEqual([again.uri.url, again.uri.retries], ['http://a.test/1', 1]);
      const reloaded = f.next();
      await new Promise((resolve) => setImmediate(resolve));
      open();
      const second = (await reloaded)!;
      assert.deepEqual([second.uri.url, second.uri.retries], ['http://a.test/2', 1]);
      await Promise.all(retried);
      for (const c of [again, second]) await f.finished(c, { kind: 'done', delayMs: 0 });
      const last = (await f.next())!;
      assert.equal(last.uri.url, 'http://a.test/3');
      await f.finished(last, { kind: 'done', delayMs: 0 });
    } finally {
      open();
      (db as { batch: unknown }).batch = realBatch;
      await f.close();
    }
  });

  it('a head refill skips a scheduled URI whose put landed before the URI joined its queue', async () => {
    // schedule() writes without the lock and adds its URIs to their queue
    // only afterwards. Hold a schedule between the two (its batch is in
    // LevelDB, the promise not yet resolved) and make a refill read past it:
    // the refill must skip it, or it would be handed out twice.
    const db = state.db;
    const realBatch = db.batch.bind(db);
    let landed = false;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const f = new WorkQueueFrontier({ ...init(), headBufferSize: 1 });
    await f.schedule([uri('http://a.test/a0', 'L'), uri('http://a.test/y', 'LLL')]);
    (db as { batch: unknown }).batch = (...args: unknown[]) => {
      const batch = (realBatch as (...a: unknown[]) => { write: () => Promise<void> })(...args);
      const write = batch.write.bind(batch);
      batch.write = async () => {
        await write();
        landed = true;
        await gate;
      };
      return batch;
    };
    try {
      // Sorts between a0 and y (one hop against three), scheduled last.
      const held = f.schedule([uri('http://a.test/x', 'L')]);
      while (!landed) await new Promise((r) => setTimeout(r, 1));
      const claims: string[] = [];
      const first = await f.next();
      claims.push(first!.uri.url);
      const finishing = f.finished(first!, { kind: 'done', delayMs: 0 });
      // The head is empty now: this claim refills, reading x (stored, not yet queued) before y.
      const second = await f.next();
      claims.push(second!.uri.url);
      open();
      await Promise.all([held, finishing, f.finished(second!, { kind: 'done', delayMs: 0 })]);
      const third = await f.next();
      claims.push(third!.uri.url);
      await f.finished(third!, { kind: 'done', delayMs: 0 });
      assert.deepEqual(claims, ['http://a.test/a0', 'http://a.test/y', 'http://a.test/x']);
      assert.equal(await f.next(AbortSignal.timeout(50)), null);
    } finally {
      open();
      (db as { batch: unknown }).batch = realBatch;
      await f.close();
    }
  });

  it('ranks ready queues by priority even when their heads are not in memory', async () => {
    // A head buffer of one: after each claim the queue's next URI is still
    // in the store when the queue is listed ready, so it is ranked once it
    // is reloaded.
    const f = new WorkQueueFrontier({ ...init({ precedence: 'priority' }), headBufferSize: 1 });
    const priorities: Record<string, number> = { a: 1, b: 5, c: 3 };
    await f.schedule(Object.entries(priorities).flatMap(([h, p]) => [1, 2, 3].map((n) => ({ ...uri(`http://${h}.test/${n}`), priority: p }))));
    const first = [await f.next(), await f.next(), await f.next()];
    for (const claim of first) await f.finished(claim!, { kind: 'done', delayMs: 0 });
    const order: string[] = [];
    for (let c = await f.next(); c !== null; c = await f.next()) {
      order.push(new URL(c.uri.url).hostname[0]!);
      await f.finished(c, { kind: 'done', delayMs: 0 });
    }
    assert.equal(order.join(''), 'bbccaa');
    await f.close();
  });

  it('wakes a waiting next() when a hold ends', async () => {
    const f = new WorkQueueFrontier(init({ queueAssignment: 'elfHash', elfHashBuckets: 1 }));
    await f.schedule([uri('http://x.test/1'), uri('http://y.test/1')]);
    const x1 = await f.next();
    const heldAt = Date.now();
    await f.finished(x1!, { kind: 'retry', delayMs: 80, hostHeld: true });
    const y1 = await f.next();
    assert.equal(y1?.uri.url, 'http://y.test/1');
    await f.finished(y1!, { kind: 'done', delayMs: 0 });
    const again = await f.next(AbortSignal.timeout(5_000));
    assert.equal(again?.uri.url, 'http://x.test/1');
    assert.ok(Date.now() - heldAt >= 80, 'not before the hold ends');
    await f.finished(again!, { kind: 'done', delayMs: 0 });
    await f.close();
  });

  it('tells onQueueState every change of state, as it happens', async () => {
    const clock = { t: 1_700_000_000_000, now: () => clock.t };
    const space = keyspace();
    const seen: [string, string, string][] = [];
    const options = { queueAssignment: 'elfHash', elfHashBuckets: 3, balanceReplenishAmount: 2, queueTotalBudget: 5 } as const;
    const make = () => ({ ...init(options, 1, space), clock, onQueueState: (key: string, from: string, to: string) => void seen.push([key, from, to]) });
    let f = new WorkQueueFrontier(make());
    const check = (): void => {
      // Each queue's changes chain (from = the last to), end in its state, and add up to the counts.
      const last = new Map<string, string>();
      for (const [key, from, to] of seen) {
        assert.notEqual(from, to);
        assert.equal(from, last.get(key) ?? 'exhausted', `${key}: ${from} → ${to}`);
        last.set(key, to);
      }
      const counts: Record<string, number> = {};
      for (const q of f.queues()) {
        assert.equal(last.get(q.key) ?? 'exhausted', q.state, q.key);
        counts[q.state] = (counts[q.state] ?? 0) + 1;
      }
      for (const [state, n] of Object.entries(f.stats().queuesByState)) assert.equal(counts[state] ?? 0, n, state);
    };
    const random = rng(11);
    const hosts = ['a', 'b', 'c', 'd', 'e'];
    await f.schedule(Array.from({ length: 40 }, (_, i) => uri(`http://${hosts[i % 5]}.test/${i}`)));
    for (let step = 0; step < 60; step++) {
      const ac = new AbortController();
      const pending = f.next(ac.signal);
      setImmediate(() => ac.abort());
      const c = await pending;
      if (c === null) clock.t += 1_000;
      else {
        const r = random();
        const outcome = r < 0.1 ? ({ kind: 'retry', delayMs: 500, hostHeld: true } as const) : r < 0.2 ? ({ kind: 'retry', delayMs: 0 } as const) : ({ kind: 'done', delayMs: r < 0.6 ? 700 : 0 } as const);
        await f.finished(c, outcome);
      }
      check();
    }
    const kinds = new Set(seen.map(([, , to]) => to));
    for (const state of ['inactive', 'ready', 'in-process', 'snoozed', 'retired']) assert.ok(kinds.has(state), `never entered ${state}`);
    // Reopening tells the rebuilt queues' states too (from a fresh queue's).
    await f.close();
    seen.length = 0;
    f = await WorkQueueFrontier.open(make());
    check();
    assert.ok(seen.length >= f.queues().filter((q) => q.state !== 'exhausted').length);
    await f.close();
  });
});
