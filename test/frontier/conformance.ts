/**
 * The Frontier conformance suite: behaviour every Frontier implementation
 * must show, checked through the interface only (the work-queue frontier
 * on LevelDB and in memory today, on Redis with per-host leases later —
 * each runs this in one line). Delays are checked on a clock the tests move
 * by hand (ManualClock), so they are exact and cost no real time; real time
 * is used only where waiting itself is the point (a next() woken by a
 * schedule, a close or an abort). Resume, failure holds and precedence have
 * files of their own (conformance-*.ts), called from here.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { FrontierOptions } from '../../src/config/profile.js';
import type { Claim, Frontier } from '../../src/frontier/frontier.js';
import { holdsConformance } from './conformance-holds.js';
import { listingConformance } from './conformance-listing.js';
import { resumeConformance } from './conformance-resume.js';
import { DEFAULT_TEST_OPTIONS, ManualClock, T0, drain, pendingFor, runTimed, simulate, sleep, take, tryNext, uri, waitFor, type FrontierFactory, type FrontierUnderTest } from './harness.js';

export { DEFAULT_TEST_OPTIONS, rng, uri } from './harness.js';

/** One frontier made for a test: the frontier, its clock, and a way to resume it. */
export interface Made {
  frontier: Frontier;
  clock: ManualClock;
  /** Close the current frontier, open another over the same store; it becomes `frontier`. */
  reopen(): Promise<Frontier>;
}

export type Make = (options?: Partial<FrontierOptions>, maxConnectionsPerHost?: number) => Promise<Made>;

export function frontierConformance(name: string, factory: FrontierFactory): void {
  describe(`Frontier conformance: ${name}`, () => {
    const made: { under: FrontierUnderTest; current: () => Frontier }[] = [];
    const make: Make = async (options = {}, maxConnectionsPerHost = 1) => {
      const clock = new ManualClock();
      const under = await factory({ options: { ...DEFAULT_TEST_OPTIONS, ...options }, maxConnectionsPerHost, clock });
      const m: Made = {
        frontier: under.frontier,
        clock,
        async reopen() {
          await m.frontier.close();
          m.frontier = await under.reopen();
          return m.frontier;
        },
      };
      made.push({ under, current: () => m.frontier });
      return m;
    };
    const frontier = async (options: Partial<FrontierOptions> = {}, maxConnectionsPerHost = 1): Promise<Frontier> => (await make(options, maxConnectionsPerHost)).frontier;
    afterEach(async () => {
      for (const { under, current } of made.splice(0)) {
        await current().close();
        await under.dispose();
      }
    });

    it('returns null at once when nothing was ever scheduled', async () => {
      const f = await frontier();
      assert.equal(await f.next(), null);
    });

    it('orders a queue breadth-first: prerequisite, then directive, hops, discovery order', async () => {
      const f = await frontier();
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
      const f = await frontier({ order: 'depth-first' });
      await f.schedule([uri('http://a.test/1', 'L'), uri('http://a.test/3', 'LLL'), uri('http://a.test/2', 'LL'), uri('http://a.test/robots.txt', 'P')]);
      assert.deepEqual(await drain(f), ['http://a.test/robots.txt', 'http://a.test/3', 'http://a.test/2', 'http://a.test/1']);
    });

    it('hands out each scheduled URI exactly once, then resolves null', async () => {
      const f = await frontier();
      const urls = Array.from({ length: 30 }, (_, i) => `http://h${i % 3}.test/p${i}`);
      await f.schedule(urls.map((u) => uri(u)));
      const got = await drain(f);
      assert.deepEqual([...got].sort(), [...urls].sort());
      assert.equal(await f.next(), null);
      const stats = f.stats();
      assert.equal(stats.queued, 0);
      assert.equal(stats.inProcess, 0);
      assert.equal(stats.finished, 30);
    });

    it('wakes a waiting next() when a URI is scheduled, and with null when the last one finishes', async () => {
      const f = await frontier();
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
      const f = await frontier();
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
      const f = await frontier();
      await f.schedule([uri('http://a.test/')]);
      const held = await take(f);
      const waiting = Array.from({ length: 4 }, () => f.next());
      await sleep(10);
      await f.finished(held, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await Promise.all(waiting), [null, null, null, null]);
    });

    it('wakes waiting next() calls with null when the last URI finishes after released()', { timeout: 5000 }, async () => {
      // finished() of a URI released before wakes nobody while nothing became claimable: the last one still must.
      const f = await frontier();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      await f.released(first, 0);
      const second = await take(f);
      const waiting = Array.from({ length: 3 }, () => f.next());
      await sleep(10);
      await f.finished(first, { kind: 'done', delayMs: 0 });
      await f.released(second, 0);
      await f.finished(second, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await Promise.all(waiting), [null, null, null]);
    });

    it('never hands out a second URI of a host at its connection limit', async () => {
      const f = await frontier();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      assert.equal(first.host, 'a.test:80');
      assert.equal(await pendingFor(f, 40), 'pending');
      await f.finished(first, { kind: 'done', delayMs: 0 });
      assert.equal((await take(f)).uri.url, 'http://a.test/2');
    });

    it('allows maxConnectionsPerHost fetches of one host at once, not more', async () => {
      const f = await frontier({}, 2);
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
        const f = await frontier({ queueAssignment, elfHashBuckets: 7 }, 2);
        const uris = Array.from({ length: 60 }, (_, i) => uri(`http://h${i % 3}.test/p${i}`));
        await f.schedule(uris);
        const result = await simulate(f, 8, 3);
        assert.equal(result.fetched, 60);
        for (const [host, max] of result.maxInFlight) assert.ok(max <= 2, `${host} had ${max} in flight`);
      });
    }

    for (const queueAssignment of ['hostname', 'elfHash'] as const) {
      it(`holds a host for the delay after its fetch, and no longer (${queueAssignment})`, async () => {
        // Under elfHash a/1 and a/2 hash to different queues: the host's delay binds both.
        const { frontier: f, clock } = await make({ queueAssignment, elfHashBuckets: 7 });
        await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
        const a1 = await take(f);
        assert.equal(a1.uri.url, 'http://a.test/1');
        await f.finished(a1, { kind: 'done', delayMs: 60_000 });
        clock.advance(59_999);
        assert.equal(await tryNext(f), null, 'a.test inside its delay');
        clock.advance(1);
        assert.equal((await take(f)).uri.url, 'http://a.test/2');
      });

      it(`with released() fetches of a host never overlap and keep their delay (${queueAssignment})`, async () => {
        const { frontier: f, clock } = await make({ queueAssignment, elfHashBuckets: 7 });
        const uris = [];
        for (const host of ['a', 'b']) for (let i = 0; i < 12; i++) uris.push(uri(`http://${host}.test/${i}`));
        await f.schedule(uris);
        // Processing after the fetch takes longer than the delay: released() lets the next fetch start first.
        const run = await runTimed(f, clock, { workers: 6, fetchMs: 2, processMs: 25, delayMs: 15, release: true });
        assert.equal(run.fetched, 24);
        assert.equal(run.overlaps, 0);
        assert.equal(run.minGapMs, 15);
        assert.equal(f.stats().finished, 24);
        if (queueAssignment === 'hostname') {
          // 12 fetches of 2 ms per host, 15 ms apart, then the last one's processing.
          assert.equal(clock.t - T0, 11 * (2 + 15) + 2 + 25, 'each host fetched back to back, one delay apart');
        }
      });
    }

    it('after released(), hands out the host\'s next URI once the delay has passed, before the first is finished', async () => {
      const { frontier: f, clock } = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://a.test/3')]);
      const first = await take(f);
      await f.released(first, 60_000);
      await f.released(first, 0); // a second call changes nothing
      clock.advance(59_999);
      assert.equal(await tryNext(f), null, 'the delay runs from the release');
      clock.advance(1);
      const second = await take(f);
      assert.equal(second.uri.url, 'http://a.test/2');
      assert.equal(f.stats().inProcess, 2, 'the first URI is still in process');
      // Its 'done' delay already ran from the release: finishing it adds none.
      await f.finished(first, { kind: 'done', delayMs: 60_000 });
      await f.released(second, 0);
      const third = await take(f);
      assert.equal(third.uri.url, 'http://a.test/3');
      await f.finished(second, { kind: 'done', delayMs: 0 });
      await f.finished(third, { kind: 'done', delayMs: 0 });
      assert.equal(await f.next(), null);
      assert.equal(f.stats().finished, 3);
    });

    it('a retry decided after released() still snoozes the queue and the host', async () => {
      const { frontier: f, clock } = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      await f.released(first, 0);
      await f.finished(first, { kind: 'retry', delayMs: 10_000 });
      assert.equal(await tryNext(f), null);
      clock.advance(10_000);
      const again = await take(f);
      assert.equal(`${again.uri.url}#${again.uri.retries}`, 'http://a.test/1#1');
    });

    it('serves another host while one is snoozed', async () => {
      const f = await frontier();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2'), uri('http://b.test/1')]);
      const a1 = await take(f);
      await f.finished(a1, { kind: 'done', delayMs: 10_000 });
      assert.equal((await take(f)).uri.url, 'http://b.test/1');
    });

    it('puts a deferred URI behind its prerequisite in the same queue', async () => {
      const f = await frontier();
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

    it('keeps a retried URI at the head with retries + 1, after the retry delay', async () => {
      const { frontier: f, clock } = await make();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const first = await take(f);
      await f.finished(first, { kind: 'retry', delayMs: 0 });
      const again = await take(f);
      assert.equal(again.uri.url, 'http://a.test/1');
      assert.equal(again.uri.retries, 1);
      await f.finished(again, { kind: 'retry', delayMs: 30_000 });
      clock.advance(29_999);
      assert.equal(await tryNext(f), null, 'retry delay not respected');
      clock.advance(1);
      const third = await take(f);
      assert.equal(third.uri.retries, 2);
      await f.finished(third, { kind: 'done', delayMs: 0 });
      assert.deepEqual(await drain(f), ['http://a.test/2']);
    });

    it('sends a queue that spent its session budget to the end of the inactive list', async () => {
      const f = await frontier({ balanceReplenishAmount: 2 });
      const a = Array.from({ length: 5 }, (_, i) => uri(`http://a.test/${i}`));
      const b = Array.from({ length: 5 }, (_, i) => uri(`http://b.test/${i}`));
      await f.schedule([...a, ...b]);
      const hosts = (await drain(f)).map((u) => new URL(u).hostname[0]);
      assert.equal(hosts.join(''), 'aabbaabbab');
    });

    it('retires a queue at its total budget: its URIs stay queued, the crawl ends', async () => {
      const f = await frontier({ queueTotalBudget: 3 });
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
      const f = await frontier();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      const held = await take(f);
      const ac = new AbortController();
      const pending = f.next(ac.signal);
      setTimeout(() => ac.abort(), 20);
      assert.equal(await pending, null);
      assert.equal(await f.next(AbortSignal.abort()), null);
      await f.finished(held, { kind: 'done', delayMs: 0 });
      assert.equal((await waitFor(f)).uri.url, 'http://a.test/2');
    });

    it('rejects a claim it does not know or one finished twice', async () => {
      const f = await frontier();
      await f.schedule([uri('http://a.test/1')]);
      const claim = await take(f);
      await f.finished(claim, { kind: 'done', delayMs: 0 });
      await assert.rejects(f.finished(claim, { kind: 'done', delayMs: 0 }), { code: 'ARCHIVER_FRONTIER_UNKNOWN_CLAIM' });
      const forged: Claim = { uri: uri('http://a.test/1'), queueKey: claim.queueKey, host: claim.host };
      await assert.rejects(f.finished(forged, { kind: 'done', delayMs: 0 }), { code: 'ARCHIVER_FRONTIER_UNKNOWN_CLAIM' });
    });

    it('reports queues by state and per-queue figures', async () => {
      const { frontier: f, clock } = await make();
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
      assert.equal(a?.wakeAt, clock.t + 60_000);
      const total = Object.values(stats.queuesByState).reduce((x, y) => x + y, 0);
      assert.equal(total, f.queues().length);
    });

    it('wakes waiting next() calls with null on close', async () => {
      const f = await frontier();
      await f.schedule([uri('http://a.test/1'), uri('http://a.test/2')]);
      await take(f);
      const pending = f.next();
      await sleep(10);
      await f.close();
      assert.equal(await pending, null);
    });

    listingConformance(make);
    holdsConformance(make);
    resumeConformance(make);
  });
}
