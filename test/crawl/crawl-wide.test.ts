/**
 * A crawl of several processes acts as one: what one node records — a
 * host it closed (robots.txt unavailable, transport failures), an
 * operator's exclusion — every other node takes in within a second,
 * without a restart (the follower runs each second in crawl.ts; here two
 * nodes' parts over one Redis, and over a 3-master Redis Cluster). Before,
 * another node learned of a closed host only at its own first failure
 * there, and of an exclusion only when it restarted; a seed recorded by a
 * process that runs no crawl (`archiver serve --store`) reached no node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScopeOptions } from '../../src/config/profile.js';
import { JobRecords } from '../../src/crawl/job-records.js';
import { OperatorExclusions } from '../../src/crawl/operator-exclusions.js';
import { crawlWideFollower } from '../../src/crawl/crawl-wide.js';
import { Scope } from '../../src/crawl/scope.js';
import { HostHealth, type HostHealthOptions } from '../../src/politeness/host-health.js';
import { HostHealthJournal } from '../../src/politeness/host-health-journal.js';
import { RobotsJournal } from '../../src/politeness/robots-journal.js';
import { RobotsStore } from '../../src/politeness/robots-store.js';
import { CrawlKeys } from '../../src/store/redis/crawl-keys.js';
import { redisRecords } from '../../src/store/redis/redis-records.js';
import type { SharedRecordStore } from '../../src/store/record-store.js';
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { uri } from '../frontier/harness.js';

const HEALTH: HostHealthOptions = { maxRetries: 1, retryDelayMs: 10, robots: { policy: 'disallow', retries: 0, retryDelayMs: 10 } };
const SCOPE = { hosts: ['a.test', 'b.test'], include: [], exclude: [], maxHops: 20, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'off' } as ScopeOptions;

for (const variant of REDIS_VARIANTS) describe(`crawl-wide records (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;

  /** One node's parts that hear of the others, over the crawl's shared records. */
  function nodeParts(keys: CrawlKeys, jobRecords: SharedRecordStore = redisRecords(suite.link, keys, 'job')) {
    const healthJournal = new HostHealthJournal(redisRecords(suite.link, keys, 'health'));
    const parts = {
      robotsJournal: new RobotsJournal(redisRecords(suite.link, keys, 'robots')),
      robotsStore: new RobotsStore(),
      healthJournal,
      health: new HostHealth(HEALTH, (host, record) => healthJournal.save(host, record)),
      job: new JobRecords(jobRecords),
      exclusions: new OperatorExclusions(),
      scope: new Scope(SCOPE),
      /** Seeds the follower handed on, in order. */
      seeds: [] as string[],
    };
    const follower = crawlWideFollower({ ...parts, seedsAdded: async (urls) => void parts.seeds.push(...urls) });
    return { ...parts, follow: follower.step, fresh: follower.fresh };
  }

  /** Runs `follow` each second, as a crawl does, until `seen()`; the time that took. */
  async function within(follow: () => Promise<void>, seen: () => boolean): Promise<number> {
    const started = performance.now();
    for (;;) {
      await follow();
      if (seen()) return performance.now() - started;
      if (performance.now() - started > 5000) return Infinity;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  it('a host closed on one node is closed on the other within a second', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const a = nodeParts(keys);
    const b = nodeParts(keys);
    await b.follow();
    // Node a: transport failures in a row close the host.
    let rounds = 0;
    // Each failure after the last wait ended (a failure during a wait is the same round).
    while (a.health.transportFailed('a.test:80', -2, Date.now() + rounds * 1000).kind !== 'closed') assert.ok(++rounds < 10, 'closed after maxRetries rounds');
    await a.healthJournal.flush();
    assert.equal(b.health.verdict('a.test:80').kind, 'open', 'not yet taken in');
    const ms = await within(b.follow, () => b.health.verdict('a.test:80').kind === 'closed');
    assert.ok(ms <= 1000, `taken in after ${ms} ms`);
    assert.equal(b.health.verdict('b.test:80').kind, 'open', 'other hosts stay open');
    assert.deepEqual(b.health.closed().map((h) => h.host), ['a.test:80']);
  });

  it('a robots.txt another node fetched is read from the records at once, before the next follow (no second fetch)', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const a = nodeParts(keys);
    const b = nodeParts(keys);
    await b.follow();
    const origin = 'http://a.test';
    const body = Buffer.from('User-agent: *\nDisallow: /private/\n');
    await a.robotsJournal.saveFetched(origin, { kind: 'fetched', status: 200, body }, Date.now());
    assert.notEqual(b.robotsStore.status(origin, Date.now()), 'ready', 'b has not followed yet');
    assert.equal(await b.robotsJournal.lookup(b.robotsStore, origin), true);
    assert.equal(b.robotsStore.status(origin, Date.now()), 'ready');
    assert.equal(b.robotsStore.rules(origin)?.isAllowed('http://a.test/private/x', 'archiver'), false, 'with a\'s rules');
    assert.equal(await b.robotsJournal.lookup(b.robotsStore, 'http://b.test'), false, 'nothing saved for another origin');
  });

  it('an exclusion added on one node refuses links and drops queued URIs on the other within a second, and a resume keeps it', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const a = nodeParts(keys);
    const b = nodeParts(keys);
    await b.follow();
    const url = 'http://a.test/private/x.html';
    assert.equal(b.scope.decide(uri(url, 'L')).accept, true);
    await a.job.addExclusion('/private/', Date.now());
    const ms = await within(b.follow, () => b.exclusions.matches(url));
    assert.ok(ms <= 1000, `taken in after ${ms} ms`);
    assert.deepEqual(b.scope.decide(uri(url, 'L')), { accept: false, status: -5000, reason: 'excluded' });
    assert.equal(b.scope.decide(uri('http://a.test/public/x.html', 'L')).accept, true);
    // A node started later (a resume) reads it with the job's records.
    assert.deepEqual(await nodeParts(keys).job.exclusions(), ['/private/']);
  });

  it('a seed recorded from outside the crawl (serve --store) reaches every node within a second, once each', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const a = nodeParts(keys);
    const b = nodeParts(keys);
    await Promise.all([a.follow(), b.follow()]);
    const outside = new JobRecords(redisRecords(suite.link, keys, 'job'));
    await outside.addSeeds(['http://c.test/'], Date.now());
    await outside.addExclusion('/nope/', Date.now());
    for (const node of [a, b]) {
      const ms = await within(node.follow, () => node.seeds.length > 0);
      assert.ok(ms <= 1000, `taken in after ${ms} ms`);
      assert.deepEqual(node.seeds, ['http://c.test/'], 'the seed, and not the exclusion');
      assert.ok(node.exclusions.has('/nope/'));
    }
    await a.follow();
    assert.deepEqual(a.seeds, ['http://c.test/'], 'handed on once');
    assert.deepEqual(await outside.addedSeeds(), ['http://c.test/'], 'kept for a resume');
  });

  it('seeds added together are taken in together: a node following while they are recorded sees none of them or all', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const a = nodeParts(keys);
    const batch = Array.from({ length: 200 }, (_, i) => `http://h${i}.test/`);
    let recorded = false;
    const adding = new JobRecords(redisRecords(suite.link, keys, 'job')).addSeeds(batch, Date.now()).then(() => (recorded = true));
    const seen: number[] = [];
    while (!recorded) {
      await a.follow();
      seen.push(a.seeds.length);
    }
    await adding;
    await a.follow();
    seen.push(a.seeds.length);
    assert.deepEqual([...new Set(seen)].filter((n) => n !== 0 && n !== batch.length), [], `seeds taken in, follow by follow: ${seen.join(' ')}`);
    assert.deepEqual(a.seeds, batch);
  });

  it('fresh(): a seed recorded while a step is under way is taken in by it, not hidden by the step that read before it', async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    // The step under way has read the change list, and its answer is held until the seed is in.
    const records = redisRecords(suite.link, keys, 'job');
    let read = (): void => undefined;
    const wasRead = new Promise<void>((r) => (read = r));
    let release = (): void => undefined;
    let hold: Promise<void> | null = new Promise<void>((r) => (release = r));
    const held: SharedRecordStore = {
      ...records,
      changedSince: async (cursor) => {
        const answer = await records.changedSince(cursor);
        read();
        if (hold !== null) await hold;
        return answer;
      },
    };
    const a = nodeParts(keys, held);
    const under = a.follow();
    await wasRead;
    await new JobRecords(records).addSeeds(['http://d.test/'], Date.now());
    const fresh = a.fresh();
    hold = null;
    release();
    await Promise.all([under, fresh]);
    assert.deepEqual(a.seeds, ['http://d.test/']);
  });
});
