/**
 * A crawl of several processes acts as one: what one node records — a
 * host it closed (robots.txt unavailable, transport failures), an
 * operator's exclusion — every other node takes in within a second,
 * without a restart (the follower runs each second in crawl.ts; here two
 * nodes' parts over one Redis, and over a 3-master Redis Cluster). Before,
 * another node learned of a closed host only at its own first failure
 * there, and of an exclusion only when it restarted.
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
import { REDIS_VARIANTS } from '../helpers/redis-variants.js';
import { uri } from '../frontier/harness.js';

const HEALTH: HostHealthOptions = { maxRetries: 1, retryDelayMs: 10, robots: { policy: 'disallow', retries: 0, retryDelayMs: 10 } };
const SCOPE = { hosts: ['a.test', 'b.test'], include: [], exclude: [], maxHops: 20, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'off' } as ScopeOptions;

for (const variant of REDIS_VARIANTS) describe(`crawl-wide records (${variant.name})`, variant.needs(), () => {
  const suite = variant.use();
  let crawls = 0;

  /** One node's parts that hear of the others, over the crawl's shared records. */
  function nodeParts(keys: CrawlKeys, scope: ScopeOptions = SCOPE) {
    const healthJournal = new HostHealthJournal(redisRecords(suite.link, keys, 'health'));
    const parts = {
      robotsJournal: new RobotsJournal(redisRecords(suite.link, keys, 'robots')),
      robotsStore: new RobotsStore(),
      healthJournal,
      health: new HostHealth(HEALTH, (host, record) => healthJournal.save(host, record)),
      job: new JobRecords(redisRecords(suite.link, keys, 'job')),
      exclusions: new OperatorExclusions(),
      scope: new Scope(scope),
    };
    return { ...parts, follow: crawlWideFollower(parts) };
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

  // Issue 29: the node that fetched an added seed's pages refused their links (-5000 outOfScope).
  it("a seed added on one node brings its host into the other node's scope (scope from the seeds); the profile's own hosts stay put", async () => {
    const keys = new CrawlKeys(`wide${++crawls}`);
    const fromSeeds = { ...SCOPE, hosts: ['a.test'], hostsFromSeeds: true } as ScopeOptions;
    const a = nodeParts(keys, fromSeeds);
    const b = nodeParts(keys, fromSeeds);
    const named = nodeParts(keys);
    await b.follow();
    await named.follow();
    const link = uri('http://c.test:8080/page.html', 'L');
    assert.equal(b.scope.decide(link).accept, false, 'out of scope before the seed');
    await a.job.addSeed('http://c.test:8080/', Date.now());
    assert.notEqual(await within(b.follow, () => b.scope.decide(link).accept), Infinity, 'the seed\'s host taken into scope');
    assert.equal(b.scope.decide(uri('http://c.test:9090/page.html', 'L')).accept, false, 'that host and port only');
    await named.follow();
    assert.equal(named.scope.decide(link).accept, false, 'a profile that names its hosts keeps them');
  });
});
