/**
 * The Frontier conformance suite: behaviour every Frontier implementation
 * must show, checked through the interface only (LevelDB today, Redis with
 * per-host leases later — each runs this in one line). Timing checks use the
 * real clock with short delays and assert lower bounds only.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { FrontierOptions } from '../../src/config/profile.js';
import { Directive, type CrawlUri } from '../../src/core/crawl-uri.js';
import type { Claim, Frontier } from '../../src/frontier/frontier.js';
import { mulberry32 } from '../helpers/prng.js';

export interface FrontierSetup {
  options: FrontierOptions;
  maxConnectionsPerHost: number;
}

export interface FrontierUnderTest {
  frontier: Frontier;
  /** Release everything the factory made (stores, temp dirs). */
  dispose(): Promise<void>;
}

export type FrontierFactory = (setup: FrontierSetup) => Promise<FrontierUnderTest>;

export const DEFAULT_TEST_OPTIONS: FrontierOptions = Object.freeze({
  queueAssignment: 'hostname',
  elfHashBuckets: 100,
  elfHashOf: 'url',
  order: 'breadth-first',
  balanceReplenishAmount: 3000,
  queueTotalBudget: -1,
  seenMemoryKeys: 1000,
});

/** A CrawlUri with the given hop path; directive follows the last hop unless given. */
export function uri(url: string, hopPath = '', directive?: Directive): CrawlUri {
  const last = hopPath.at(-1);
  const implied = last === 'P' ? Directive.prerequisite : last === 'E' || last === 'R' ? Directive.high : Directive.normal;
  return { url, hopPath, via: null, context: '', seed: hopPath === '', directive: directive ?? implied, retries: 0, redirects: 0 };
}

/** Deterministic PRNG so a failing sequence can be replayed. */
export const rng = mulberry32;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** next() that must not be null. */
async function take(frontier: Frontier): Promise<Claim> {
  const claim = await frontier.next();
  assert.ok(claim, 'expected a claim, got null');
  return claim;
}

/** Claim and finish everything one by one (delay 0), returning URLs in claim order. */
async function drain(frontier: Frontier): Promise<string[]> {
  const order: string[] = [];
  for (let claim = await frontier.next(); claim !== null; claim = await frontier.next()) {
    order.push(claim.uri.url);
    await frontier.finished(claim, { kind: 'done', delayMs: 0 });
  }
  return order;
}

/** Is `next(signal)` still pending after `ms`? (aborts it either way) */
async function pendingFor(frontier: Frontier, ms: number): Promise<Claim | null | 'pending'> {
  const ac = new AbortController();
  const result = frontier.next(ac.signal);
  const winner = await Promise.race([result, sleep(ms).then(() => 'pending' as const)]);
  ac.abort();
  await result;
  return winner;
}

/**
 * Workers loop next → hold a while → finished(done, delayMs), recording the
 * most fetches in flight per host and the smallest gap between a host's
 * completion and its next start.
 */
async function simulate(frontier: Frontier, workers: number, holdMs: number, delayMs: number) {
  const inFlight = new Map<string, number>();
  const lastDone = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const queueKeys = new Map<string, Set<string>>();
  let minGapMs = Infinity;
  let fetched = 0;
  const worker = async (): Promise<void> => {
    for (let claim = await frontier.next(); claim !== null; claim = await frontier.next()) {
      const started = Date.now();
      const prev = lastDone.get(claim.host);
      if (prev !== undefined) minGapMs = Math.min(minGapMs, started - prev);
      const n = (inFlight.get(claim.host) ?? 0) + 1;
      inFlight.set(claim.host, n);
      maxInFlight.set(claim.host, Math.max(maxInFlight.get(claim.host) ?? 0, n));
      const keys = queueKeys.get(claim.host) ?? new Set<string>();
      keys.add(claim.queueKey);
      queueKeys.set(claim.host, keys);
      await sleep(holdMs);
      inFlight.set(claim.host, (inFlight.get(claim.host) ?? 1) - 1);
      lastDone.set(claim.host, Date.now());
      fetched++;
      await frontier.finished(claim, { kind: 'done', delayMs });
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { maxInFlight, minGapMs, fetched, queueKeys };
}

export function frontierConformance(name: string, factory: FrontierFactory): void {
  describe(`Frontier conformance: ${name}`, () => {
    const made: FrontierUnderTest[] = [];
    const make = async (options: Partial<FrontierOptions> = {}, maxConnectionsPerHost = 1): Promise<Frontier> => {
      const under = await factory({ options: { ...DEFAULT_TEST_OPTIONS, ...options }, maxConnectionsPerHost });
      made.push(under);
      return under.frontier;
    };
    afterEach(async () => {
      for (const under of made.splice(0)) {
        await under.frontier.close();
        await under.dispose();
      }
    });

    it('returns null at once when nothing was ever scheduled', async () => {
      const f = await make();
      assert.equal(await f.next(), null);
    });

    it('orders a queue breadth-first: prerequisite, then directive, hops, discovery order', async () => {
      const f = await make();
      await f.schedule([
        uri('http://a.test/deep', 'LL'),
        uri('http://a.test/one', 'L'),
        uri('http://a.test/two', 'L'),
        uri('http://a.test/img.png', 'LLE'),
        uri('http://a.test/robots.txt', 'P'),
      ]);
      assert.deepEqual(await drain(f), [
        'http://a.test/robots.txt',
        'http://a.test/img.png',
        'http://a.test/one',
        'http://a.test/two',
        'http://a.test/deep',
      ]);
    });

    it('orders depth-first on request, prerequisites still first', async () => {
      const f = await make({ order: 'depth-first' });
      await f.schedule([uri('http://a.test/1', 'L'), uri('http://a.test/3', 'LLL'), uri('http://a.test/2', 'LL'), uri('http://a.test/robots.txt', 'P')]);
      assert.deepEqual(await drain(f), ['http://a.test/robots.txt', 'http://a.test/3', 'http://a.test/2', 'http://a.test/1']);
    });

    it('hands out each scheduled URI exactly once, then resolves null', async () => {
      const f = await make();
      const urls = Array.from({ length: 30 }, (_, i) => `http://h${i % 3}.test/p${i}`);
      await f.schedule(urls.map((u) => uri(u)));
      const got = await drain(f);
      assert.deepEqual([...got].sort(), [...urls].sort());
      const stats = f.stats();
      assert.equal(stats.queued, 0);
      assert.equal(stats.inProcess, 0);
      assert.equal(stats.finished, 30);
    });

    it('wakes a waiting next() when a URI is scheduled, and with null when the last one finishes', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/')]);
      const first = await take(f);
      const waiting = f.next();
      await sleep(20);
      await f.schedule([uri('http://b.test/', 'L')]);
      const second = await waiting;
      assert.equal(second?.uri.url, 'http://b.test/');
      const last = f.next();
      await f.finished(first, { kind: 'done', delayMs: 0 });
      await f.finished(second!, { kind: 'done', delayMs: 0 });
      assert.equal(await last, null);
    });

    it('wakes as many waiting next() calls as URIs became ready at once', { timeout: 5000 }, async () => {
      // A change wakes one waiter, which passes the turn on (change-signal.ts); without the
      // passing on, four of these five would sleep until the next change.
      const f = await make();
      await f.schedule([uri('http://a.test/')]);
      const held = await take(f);
      const waiting = Array.from({ length: 5 }, () => f.next());
      await sleep(10);
      const urls = Array.from({ length: 5 }, (_, i) => `http://h${i}.test/`);
      await f.schedule(urls.map((u) => uri(u, 'L')));
      const claims = await Promise.all(waiting);
      assert.deepEqual(claims.map((c) => c?.uri.url).sort(), urls);
      for (const c of [held, ...claims]) await f.finished(c!, { kind: 'done', delayMs: 0 });
    });

    it('resolves every waiting next() with null when the last URI finishes', { timeout: 5000 }, async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/')]);
      const held = await take(f);
      const waiting = Array.from({ length: 4 }, () => f.next());
      await sleep(10);
      await f.finished(held, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await Promise.all(waiting), [null, null, null, null]);
    });

    it('never hands out a second URI of a host at its connection limit', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      assert.equal(first.host, 'a.test:80');
      assert.equal(await pendingFor(f, 40), 'pending');
      await f.finished(first, { kind: 'done', delayMs: 0 });
      assert.equal((await take(f)).uri.url, 'http://a.test/2');
    });

    it('allows maxConnectionsPerHost fetches of one host at once, not more', async () => {
      const f = await make({}, 2);
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://a.test/3')]);
      const one = await take(f);
      const two = await take(f);
      assert.equal(await pendingFor(f, 40), 'pending');
      await f.finished(one, { kind: 'done', delayMs: 0 });
      assert.equal((await take(f)).uri.url, 'http://a.test/3');
      await f.finished(two, { kind: 'done', delayMs: 0 });
    });

    for (const queueAssignment of ['hostname', 'surtAuthority', 'elfHash'] as const) {
      it(`keeps every host within its limit under concurrent workers (${queueAssignment})`, async () => {
        const f = await make({ queueAssignment, elfHashBuckets: 7 }, 2);
        const uris = Array.from({ length: 60 }, (_, i) => uri(`http://h${i % 3}.test/p${i}`));
        await f.schedule(uris);
        const result = await simulate(f, 8, 3, 0);
        assert.equal(result.fetched, 60);
        for (const [host, max] of result.maxInFlight) assert.ok(max <= 2, `${host} had ${max} in flight`);
      });
    }

    it('respects the delay after a fetch before the same host is fetched again', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://a.test/3'), uri('http://b.test/1')]);
      const result = await simulate(f, 3, 1, 60);
      assert.equal(result.fetched, 4);
      assert.ok(result.minGapMs >= 60, `gap ${result.minGapMs} ms < 60 ms`);
    });

    it('after released(), hands out the host\'s next URI once the delay has passed, before the first is finished', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://a.test/3')]);
      const first = await take(f);
      const releasedAt = Date.now();
      await f.released(first, 60);
      await f.released(first, 0); // a second call changes nothing
      assert.equal(await pendingFor(f, 20), 'pending', 'the delay runs from the release');
      const second = await take(f);
      assert.ok(Date.now() - releasedAt >= 60, 'no new fetch of the host inside the delay');
      assert.equal(second.uri.url, 'http://a.test/2');
      assert.equal(f.stats().inProcess, 2, 'the first URI is still in process');
      // Its 'done' delay already ran from the release: finishing it adds none.
      await f.finished(first, { kind: 'done', delayMs: 60 });
      await f.released(second, 0);
      const third = await take(f);
      assert.equal(third.uri.url, 'http://a.test/3');
      await f.finished(second, { kind: 'done', delayMs: 0 });
      await f.finished(third, { kind: 'done', delayMs: 0 });
      assert.equal(await f.next(), null);
      assert.equal(f.stats().finished, 3);
    });

    for (const queueAssignment of ['hostname', 'elfHash'] as const) {
      it(`with released() fetches of a host never overlap and keep their delay (${queueAssignment})`, async () => {
        const f = await make({ queueAssignment, elfHashBuckets: 7 });
        const uris = [];
        for (const host of ['a', 'b']) for (let i = 0; i < 12; i++) uris.push(uri(`http://${host}.test/${i}`));
        await f.schedule(uris);
        const fetching = new Map<string, number>();
        const fetchEnded = new Map<string, number>();
        let overlap = 0;
        let minGapMs = Infinity;
        const worker = async (): Promise<void> => {
          for (let claim = await f.next(); claim !== null; claim = await f.next()) {
            const started = Date.now();
            const ended = fetchEnded.get(claim.host);
            if (ended !== undefined) minGapMs = Math.min(minGapMs, started - ended);
            if ((fetching.get(claim.host) ?? 0) > 0) overlap++;
            fetching.set(claim.host, (fetching.get(claim.host) ?? 0) + 1);
            await sleep(2); // the fetch
            fetching.set(claim.host, (fetching.get(claim.host) ?? 1) - 1);
            fetchEnded.set(claim.host, Date.now());
            await f.released(claim, 15);
            await sleep(25); // processing after the fetch, longer than the delay
            await f.finished(claim, { kind: 'done', delayMs: 15 });
          }
        };
        await Promise.all(Array.from({ length: 6 }, worker));
        assert.equal(overlap, 0);
        assert.ok(minGapMs >= 15, `gap ${minGapMs} ms < 15 ms`);
        assert.equal(f.stats().finished, 24);
      });
    }

    it('a retry decided after released() still snoozes the queue and the host', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      await f.released(first, 0);
      await f.finished(first, { kind: 'retry', delayMs: 10_000 });
      assert.equal(await pendingFor(f, 40), 'pending');
    });

    it('serves another host while one is snoozed', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://b.test/1')]);
      const a1 = await take(f);
      await f.finished(a1, { kind: 'done', delayMs: 10_000 });
      assert.equal((await take(f)).uri.url, 'http://b.test/1');
    });

    it('puts a deferred URI behind its prerequisite in the same queue', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/page'), uri('http://a.test/other', 'L')]);
      const page = await take(f);
      await f.finished(page, { kind: 'defer', delayMs: 0, prerequisite: uri('http://a.test/robots.txt', 'P') });
      const robots = await take(f);
      assert.equal(robots.uri.url, 'http://a.test/robots.txt');
      assert.equal(robots.queueKey, page.queueKey);
      await f.finished(robots, { kind: 'done', delayMs: 0 });
      const again = await take(f);
      assert.equal(again.uri.url, 'http://a.test/page');
      assert.equal(again.uri.retries, 0);
      await f.finished(again, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(f), ['http://a.test/other']);
    });

    it('keeps a retried URI at the head with retries + 1', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      await f.finished(first, { kind: 'retry', delayMs: 0 });
      const again = await take(f);
      assert.equal(again.uri.url, 'http://a.test/1');
      assert.equal(again.uri.retries, 1);
      const before = Date.now();
      await f.finished(again, { kind: 'retry', delayMs: 30 });
      const third = await take(f);
      assert.ok(Date.now() - before >= 30, 'retry delay not respected');
      assert.equal(third.uri.retries, 2);
      await f.finished(third, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(f), ['http://a.test/2']);
    });

    it('sends a queue that spent its session budget to the end of the inactive list', async () => {
      const f = await make({ balanceReplenishAmount: 2 });
      const a = Array.from({ length: 5 }, (_, i) => uri(`http://a.test/${i}`));
      const b = Array.from({ length: 5 }, (_, i) => uri(`http://b.test/${i}`));
      await f.schedule([...a, ...b]);
      const hosts = (await drain(f)).map((u) => new URL(u).hostname[0]);
      assert.equal(hosts.join(''), 'aabbaabbab');
    });

    it('retires a queue at its total budget: its URIs stay queued, the crawl ends', async () => {
      const f = await make({ queueTotalBudget: 3 });
      await f.schedule(Array.from({ length: 5 }, (_, i) => uri(`http://a.test/${i}`)));
      await f.schedule([uri('http://b.test/0')]);
      const got = await drain(f);
      assert.equal(got.filter((u) => u.startsWith('http://a.test/')).length, 3);
      assert.ok(got.includes('http://b.test/0'));
      await f.schedule([uri('http://a.test/late', 'L')]);
      assert.equal(await f.next(), null);
      const stats = f.stats();
      assert.equal(stats.queuesByState.retired, 1);
      assert.equal(stats.queuedInRetired, 3);
      assert.equal(stats.queued, 3);
      const report = f.queues().find((q) => q.state === 'retired');
      assert.equal(report?.queued, 3);
      assert.equal(report?.budgetSpent, 3);
    });

    it('resolves next() with null on abort, also for an already aborted signal', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const held = await take(f);
      const ac = new AbortController();
      const pending = f.next(ac.signal);
      setTimeout(() => ac.abort(), 20);
      assert.equal(await pending, null);
      assert.equal(await f.next(AbortSignal.abort()), null);
      await f.finished(held, { kind: 'done', delayMs: 0 });
      assert.equal((await take(f)).uri.url, 'http://a.test/2');
    });

    it('rejects a claim it does not know or one finished twice', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1')]);
      const claim = await take(f);
      await f.finished(claim, { kind: 'done', delayMs: 0 });
      await assert.rejects(f.finished(claim, { kind: 'done', delayMs: 0 }), { code: 'ARCHIVER_FRONTIER_UNKNOWN_CLAIM' });
      const forged: Claim = { uri: uri('http://a.test/1'), queueKey: claim.queueKey, host: claim.host };
      await assert.rejects(f.finished(forged, { kind: 'done', delayMs: 0 }), { code: 'ARCHIVER_FRONTIER_UNKNOWN_CLAIM' });
    });

    it('reports queues by state and per-queue figures', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://b.test/1')]);
      assert.equal(f.stats().queuesByState.inactive, 2);
      const claim = await take(f);
      await f.finished(claim, { kind: 'done', delayMs: 60_000 });
      const stats = f.stats();
      assert.equal(stats.queued, 2);
      assert.equal(stats.finished, 1);
      const a = f.queues().find((q) => q.key === claim.queueKey);
      assert.equal(a?.state, 'snoozed');
      assert.equal(a?.queued, 1);
      assert.equal(a?.finished, 1);
      assert.ok(a?.wakeAt !== null && a!.wakeAt! >= Date.now() + 50_000);
      const total = Object.values(stats.queuesByState).reduce((x, y) => x + y, 0);
      assert.equal(total, f.queues().length);
    });

    it('wakes waiting next() calls with null on close', async () => {
      const f = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      await take(f);
      const pending = f.next();
      await sleep(10);
      await f.close();
      assert.equal(await pending, null);
    });
  });
}
