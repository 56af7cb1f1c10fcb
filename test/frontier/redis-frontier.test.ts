/**
 * The Redis frontier runs the shared conformance suite with one node (a
 * crawl of its own per test in one redis-server); and what only a shared
 * frontier does: two nodes split the queues, each host is held by one node
 * at a time, a dead node's queues are taken over, a URI put into a queue
 * granted but not yet adopted here counts, and URIs the store holds in a
 * queue whose holder counts none of them are crawled.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { RedisFrontier, soleNodeView, type NodeView } from '../../src/frontier/redis-frontier.js';
import { RedisQueueStore } from '../../src/frontier/redis-queue-store.js';
import { SharedWorkQueueFrontier } from '../../src/frontier/shared-work-queue-frontier.js';
import type { Claim } from '../../src/frontier/frontier.js';
import { systemClock } from '../../src/core/clock.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { frontierConformance, DEFAULT_TEST_OPTIONS, uri } from './conformance.js';
import { sleep } from './harness.js';

for (const variant of REDIS_VARIANTS) describe(`Redis frontier (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;

  frontierConformance('redis', async (setup) => {
    const keys = new CrawlKeys(`conf${++crawls}`);
    const open = () => RedisFrontier.open({ ...setup, link: suite.link, keys, node: 'n1', ordinalTag: 1, ordinalBase: 0, view: soleNodeView('n1') });
    return { frontier: await open(), reopen: open, dispose: async () => {} };
  });

  const twoNodes = (started = ['a', 'b']): { view: (me: string) => NodeView; kill: (n: string) => void; start: (n: string) => void } => {
    const dead = new Set<string>();
    // Each node's incarnation, as the opens below number them (ordinalTag).
    const tags = new Map([['a', 1], ['b', 2]]);
    const up = new Set(started);
    return {
      kill: (n) => void dead.add(n),
      start: (n) => void up.add(n),
      view: (me) => ({
        live: () => [...up].filter((n) => !dead.has(n) || n === me),
        deadIncarnations: () => [...dead].filter((n) => n !== me).map((n) => `${n}.${tags.get(n)}`),
        all: () => ['a', 'b'],
        busyQueues: () => new Map(),
        mayFinish: async () => 0,
      }),
    };
  };

  it('two nodes crawl one frontier: every URI once, one node per host at a time, both end', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('two');
    const nodes = twoNodes();
    const open = (node: string, tag: number) =>
      RedisFrontier.open({ options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node, ordinalTag: tag, ordinalBase: 0, view: nodes.view(node) });
    const a = await open('a', 1);
    const b = await open('b', 2);
    const urls = Array.from({ length: 60 }, (_, i) => `http://h${i % 6}.test/${i}`);
    // Half the URIs scheduled by each node: hosts end up split between them.
    await a.schedule(urls.slice(0, 30).map((u) => uri(u)));
    await b.schedule(urls.slice(30).map((u) => uri(u)));
    const inFlight = new Map<string, number>();
    let overlaps = 0;
    const got: string[] = [];
    const byNode = new Map<string, Set<string>>();
    const worker = async (f: RedisFrontier, name: string) => {
      for (let c = await f.next(); c !== null; c = await f.next()) {
        if ((inFlight.get(c.host) ?? 0) > 0) overlaps++;
        inFlight.set(c.host, (inFlight.get(c.host) ?? 0) + 1);
        got.push(c.uri.url);
        (byNode.get(name) ?? byNode.set(name, new Set()).get(name)!).add(c.host);
        await sleep(2);
        inFlight.set(c.host, inFlight.get(c.host)! - 1);
        await f.finished(c, { kind: 'done', delayMs: 0 });
      }
    };
    await Promise.all([worker(a, 'a'), worker(a, 'a'), worker(b, 'b'), worker(b, 'b')]);
    assert.deepEqual([...got].sort(), [...urls].sort());
    assert.equal(overlaps, 0);
    assert.ok((byNode.get('a')?.size ?? 0) > 0 && (byNode.get('b')?.size ?? 0) > 0, 'both nodes crawled');
    await a.close();
    await b.close();
  });

  it('an idle node ends only when no node queues seeds before and after its look at the queues, and none began meanwhile', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('seeding');
    // What the store says: a count of seedings begun that moves on at every ask (a node queueing seeds as this one looks), then holds still.
    let begun = 0;
    let moving = true;
    let asked = 0;
    const view: NodeView = { ...soleNodeView('n1'), mayFinish: async () => (asked++, moving ? ++begun : begun) };
    const f = await RedisFrontier.open({ options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node: 'n1', ordinalTag: 1, ordinalBase: 0, view, tickMs: 50 });
    let ended = false;
    const next = f.next().then((c) => {
      ended = c === null;
      return c;
    });
    await sleep(1500);
    assert.ok(asked >= 4, `it looked again and again: ${asked}`);
    assert.equal(ended, false, 'not over while seedings began between its two asks');
    moving = false;
    assert.equal(await next, null, 'over once the count held still around a look');
    await f.close();
  });

  it('a URI this node puts into a queue granted to it before the adoption is applied here counts in that queue', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('adopting');
    const storeOf = (node: string, tag: number) => new RedisQueueStore({ link: suite.link, keys, node, token: `${node}.${tag}`, leaseMs: 30_000, room: () => 0, ordinalBase: 0 });
    // Another node queued one URI of the host without taking the queue on: it waits for a node.
    const shared = (store: RedisQueueStore, tag: number) =>
      SharedWorkQueueFrontier.open({ options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, store, shared: { store, ordinalStride: 16, ordinalTag: tag, clockMarginMs: 0, onLocalIdle: () => {}, onRetired: () => {} } });
    const other = await shared(storeOf('b', 2), 2);
    await other.schedule([uri('http://g.test/1')]);
    const store = storeOf('a', 1);
    const f = await shared(store, 1);
    // The store grants the queue to this node with the one URI it holds; before the adoption is applied
    // here, this node queues a second URI of the host (as a page it fetched links to it).
    const adopted = await store.adopt(1, (granted) => f.adopting(granted));
    assert.equal([...adopted.values()][0]?.count, 1);
    await f.schedule([uri('http://g.test/2')]);
    await f.adopt(adopted);
    const got: string[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await Promise.race([f.next(), new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000))]);
      assert.ok(c !== null, `URI ${i + 1} of 2 handed out (got ${got.join(' ')})`);
      got.push(c.uri.url);
      await f.finished(c, { kind: 'done', delayMs: 0 });
    }
    assert.deepEqual(got.sort(), ['http://g.test/1', 'http://g.test/2']);
    assert.equal(f.stats().queued, 0);
    await f.close();
    await other.close();
  });

  it('a URI the store holds in a queue whose idle holder counts none is handed on and crawled: the crawl does not wait for ever', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('uncounted');
    const f = await RedisFrontier.open({ options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node: 'n1', ordinalTag: 1, ordinalBase: 0, view: soleNodeView('n1'), tickMs: 50 });
    await f.schedule([uri('http://u.test/1')]);
    const first = (await f.next())!;
    // What a 2-node bench crawl was left with: a URI in the store of a queue this node holds, which its
    // count here does not include (written behind the frontier's back, as this node's own store would).
    const behind = new RedisQueueStore({ link: suite.link, keys, node: 'n1', token: 'n1.9', leaseMs: 30_000, room: () => 0, ordinalBase: 0 });
    await behind.add([{ queueKey: first.queueKey, sortKey: Buffer.from('~uncounted'), value: { o: 1e9, u: uri('http://u.test/2') } }]);
    await f.finished(first, { kind: 'done', delayMs: 0 });
    const second = await f.next();
    assert.equal(second?.uri.url, 'http://u.test/2');
    await f.finished(second!, { kind: 'done', delayMs: 0 });
    assert.equal(await f.next(), null, 'then the crawl is over');
    await f.close();
  });

  it("a dead node's queues are taken over, its URIs in flight handed out again", { timeout: 30_000 }, async () => {
    const keys = new CrawlKeys('takeover');
    const nodes = twoNodes(['a']);
    const open = (node: string, tag: number) =>
      RedisFrontier.open({
        options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node, ordinalTag: tag, ordinalBase: 0, view: nodes.view(node), leaseMs: 1500, renewMs: 200,
      });
    const a = await open('a', 1);
    const urls = Array.from({ length: 10 }, (_, i) => `http://x${i % 2}.test/${i}`);
    await a.schedule(urls.map((u) => uri(u)));
    const held: Claim[] = [(await a.next())!, (await a.next())!];
    // a "dies": it stops renewing (closed without handing over) and b is told so.
    await a.close();
    nodes.kill('a');
    nodes.start('b');
    const b = await open('b', 2);
    const got: string[] = [];
    for (let c = await b.next(); c !== null; c = await b.next()) {
      got.push(c.uri.url);
      await b.finished(c, { kind: 'done', delayMs: 0 });
    }
    assert.deepEqual([...got].sort(), [...urls].sort(), `every URI, the two in flight on a again (${held.map((c) => c.uri.url)})`);
    await b.close();
  });
  /**
   * A view fixed at open: who is live, which incarnations are dead. `renewals(n)` resolves once
   * the frontier has renewed its leases n times (each renewal asks for the dead incarnations):
   * what the tests wait on instead of sleeping a guessed time.
   */
  const fixedView = (live: string[], dead: string[] = []): NodeView & { renewals(n: number): Promise<void>; renewed(): number } => {
    let count = 0;
    const waiting: Array<{ n: number; resolve: () => void }> = [];
    return {
      live: () => live,
      deadIncarnations: () => {
        count++;
        for (const w of waiting.filter((x) => x.n <= count)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
        return dead;
      },
      all: () => live,
      busyQueues: () => new Map(),
      mayFinish: async () => 0,
      renewed: () => count,
      renewals: (n) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ n, resolve }))),
    };
  };

  /** Claims `f` hands out, each finished at once, until `stop` resolves (or `want` URIs came). */
  const drainUntil = async (f: RedisFrontier, stop: Promise<unknown>, want = Infinity): Promise<string[]> => {
    const got: string[] = [];
    const ac = new AbortController();
    void stop.then(() => ac.abort());
    while (got.length < want) {
      const c = await f.next(ac.signal);
      if (c === null) break;
      got.push(c.uri.url);
      await f.finished(c, { kind: 'done', delayMs: 0 });
    }
    return got;
  };

  it("a node restarted under its id keeps its queues from a view that still counts its earlier incarnation dead", { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('reborn');
    const open = (node: string, tag: number, view: NodeView) =>
      RedisFrontier.open({ options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node, ordinalTag: tag, ordinalBase: 0, view, renewMs: 50 });
    const urls = Array.from({ length: 8 }, (_, i) => `http://r${i % 2}.test/${i}`);
    const first = await open('a', 1, fixedView(['a']));
    await first.schedule(urls.map((u) => uri(u)));
    await first.close();
    // a comes back as a.2 and loads its queues again; b's view has not seen that yet: a.1 is dead to it.
    const again = await open('a', 2, fixedView(['a']));
    const bView = fixedView(['a', 'b'], ['a.1']);
    const b = await open('b', 3, bView);
    // b renews (releasing what it takes for a.1's leases) twice before a.2 hands anything out,
    // and twice more after a.2 has handed out everything, all the while asking for work.
    await bView.renewals(2);
    let aDone!: () => void;
    const aDrained = new Promise<void>((resolve) => (aDone = resolve));
    const byB = drainUntil(b, aDrained.then(async () => bView.renewals(bView.renewed() + 2)));
    const byA = await drainUntil(again, new Promise(() => {}), urls.length);
    aDone();
    assert.deepEqual(await byB, [], "b took none of a.2's queues");
    assert.deepEqual([...byA].sort(), [...urls].sort());
    await again.close();
    await b.close();
  });

  it('a node whose lease may have expired renews before it hands out a claim, and hands out none of a queue that went elsewhere', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('expired');
    const urls = Array.from({ length: 6 }, (_, i) => `http://e.test/${i}`);
    // a renews every second but its leases last 300 ms: b takes the queue over in between.
    const aView = fixedView(['a', 'b']);
    const a = await RedisFrontier.open({
      options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node: 'a', ordinalTag: 1, ordinalBase: 0, view: aView, leaseMs: 300, renewMs: 1000,
    });
    await a.schedule(urls.map((u) => uri(u)));
    const b = await RedisFrontier.open({
      options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node: 'b', ordinalTag: 2, ordinalBase: 0, view: fixedView(['a', 'b']), leaseMs: 60_000, renewMs: 50,
    });
    // b has taken the queue over (a's lease expired); a has not renewed since and still holds it.
    while (b.busyQueues === 0) await new Promise((r) => setTimeout(r, 10));
    assert.equal(a.busyQueues, 1, 'a still believes it holds the queue');
    const renewalsBefore = aView.renewed();
    // Both ask for work at once, a without waiting for its own next renewal: a's claim comes
    // after a whole lease without one, so a renews first, learns the queue is b's, and drops it.
    let bDone!: () => void;
    const bDrained = new Promise<void>((resolve) => (bDone = resolve));
    const byA = drainUntil(a, bDrained.then(async () => aView.renewals(aView.renewed() + 1)));
    const byB = await drainUntil(b, new Promise(() => {}), urls.length);
    bDone();
    assert.deepEqual(await byA, [], 'a handed out none of the queue it lost');
    assert.deepEqual([...byB].sort(), [...urls].sort());
    assert.equal(a.busyQueues, 0, 'a dropped the queue');
    assert.ok(aView.renewed() > renewalsBefore, 'a renewed before answering');
    await a.close();
    await b.close();
  });

  it('a node that renews in time hands out its queue without an extra renewal', { timeout: 20_000 }, async () => {
    const keys = new CrawlKeys('intime');
    const urls = Array.from({ length: 4 }, (_, i) => `http://t.test/${i}`);
    const view = fixedView(['a']);
    const a = await RedisFrontier.open({
      options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: systemClock, link: suite.link, keys, node: 'a', ordinalTag: 1, ordinalBase: 0, view, leaseMs: 60_000, renewMs: 60_000,
    });
    await a.schedule(urls.map((u) => uri(u)));
    // Its first tick renews (none ran yet); after that none is due for a minute.
    await view.renewals(1);
    const renewals = view.renewed();
    const got = await drainUntil(a, new Promise(() => {}), urls.length);
    assert.deepEqual([...got].sort(), [...urls].sort());
    assert.equal(view.renewed(), renewals, 'no renewal was forced under a live lease');
    await a.close();
  });
});
