/**
 * Regression (issue 29): in a crawl of several processes, a seed added on
 * one node was fetched by another, which judged the seed's links against
 * its own scope — without the seed's host, taken in from the crawl's
 * records only each second (crawl-wide.ts) — and refused them (-5000
 * outOfScope). When the seeds make the scope, the node that schedules a
 * seed's links puts the seed's host in scope first, and takes in the seeds
 * recorded with it (their hosts are linked from it). Through a real
 * frontier (memory store) and real seen filters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScopeOptions } from '../../src/config/profile.js';
import { childUri, seedUri } from '../../src/core/crawl-uri.js';
import { LinkScheduler } from '../../src/crawl/link-scheduler.js';
import { Scope } from '../../src/crawl/scope.js';
import { MemoryQueueStore } from '../../src/frontier/memory-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { MemoryUriUniqFilter } from '../../src/uniq/memory-uniq-filter.js';
import { DEFAULT_TEST_OPTIONS, ManualClock } from '../frontier/harness.js';

const BASE: ScopeOptions = { hosts: ['a.test'], include: [], exclude: [], maxHops: 20, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'off' };

/** A link scheduler over `scope`, and the URLs it refused. */
function scheduler(scope: Scope): { links: LinkScheduler; refused: string[]; frontier: WorkQueueFrontier } {
  const frontier = new WorkQueueFrontier({ store: new MemoryQueueStore(), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: new ManualClock() });
  const refused: string[] = [];
  const links = new LinkScheduler({ scope, seen: new MemoryUriUniqFilter(), refusedSeen: new MemoryUriUniqFilter(), frontier, maxRedirects: 5, onRefused: (uri) => refused.push(uri.url) });
  return { links, refused, frontier };
}

test("a seed this node never added: its links are in scope here when the seeds make the scope", async () => {
  const { links, refused, frontier } = scheduler(new Scope({ ...BASE, hostsFromSeeds: true }));
  const seed = seedUri('http://n.test:8080/');
  assert.equal(await links.schedule(seed, [{ url: 'http://n.test:8080/a.html', hop: 'L', context: '' }]), 1);
  assert.deepEqual(refused, []);
  // A page that is no seed is no way in for its host.
  const page = childUri(seed, 'http://o.test/', 'L', '');
  assert.equal(await links.schedule(page, [{ url: 'http://o.test/b.html', hop: 'L', context: '' }]), 0);
  assert.deepEqual(refused, ['http://o.test/b.html']);
  await frontier.close();
});

test("a seed added on another node: the seeds recorded with it are taken in before its links are judged; a seed this node knows costs nothing", async () => {
  const scope = new Scope({ ...BASE, hostsFromSeeds: true });
  const { links, refused, frontier } = scheduler(scope);
  // Another node recorded two seeds together; this one fetched the first before its follower read them.
  const known = new Set<string>(['http://q.test/']);
  let catchUps = 0;
  links.catchUpSeedsWith(
    async () => {
      catchUps++;
      scope.addHost('m.test:8080');
      known.add('http://n.test:8080/');
      known.add('http://m.test:8080/');
    },
    (url) => known.has(url),
  );
  const seed = seedUri('http://n.test:8080/');
  assert.equal(await links.schedule(seed, [{ url: 'http://m.test:8080/x.html', hop: 'L', context: '' }]), 1);
  assert.deepEqual(refused, [], "a link to the other added seed's host is in scope");
  assert.equal(catchUps, 1);
  // Known now: the same seed (fetched again, say after a resume) costs no second catch-up.
  await links.schedule(seed, [{ url: 'http://n.test:8080/y.html', hop: 'L', context: '' }]);
  assert.equal(catchUps, 1);
  // A seed added elsewhere on a host already in scope: the seeds added with it may bring another.
  scope.addHost('p.test');
  await links.schedule(seedUri('http://p.test/new/'), [{ url: 'http://p.test/new/a.html', hop: 'L', context: '' }]);
  assert.equal(catchUps, 2);
  // A seed this node knows (it scheduled it): nothing to catch up on.
  await links.schedule(seedUri('http://q.test/'), [{ url: 'http://q.test/b.html', hop: 'L', context: '' }]);
  assert.equal(catchUps, 2);
  await frontier.close();
});

test("a profile that names its hosts: a seed of another host widens nothing", async () => {
  const { links, refused, frontier } = scheduler(new Scope(BASE));
  assert.equal(await links.schedule(seedUri('http://n.test/'), [{ url: 'http://n.test/a.html', hop: 'L', context: '' }]), 0);
  assert.deepEqual(refused, ['http://n.test/a.html']);
  await frontier.close();
});
