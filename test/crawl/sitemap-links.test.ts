/**
 * From a captured sitemap to queued URIs: `<lastmod>` kept on the CrawlUri
 * and made its priority (so the frontier's `priority` precedence hands out
 * the most recently changed first), index entries queued as sitemaps one
 * level deeper up to the nesting limit, which URIs are read as sitemaps,
 * and M as a hop: never transclusion, counted for maxHops like L.
 * Through a real frontier (memory store) and real seen filters.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childUri, seedUri, type CrawlUri } from '../../src/core/crawl-uri.js';
import { LinkScheduler } from '../../src/crawl/link-scheduler.js';
import { Scope, trailingTransclusionHops } from '../../src/crawl/scope.js';
import { sitemapOutlinks, sitemapRole } from '../../src/crawl/sitemap-outlinks.js';
import { MemoryQueueStore } from '../../src/frontier/memory-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { lastmodPriority } from '../../src/sitemap/lastmod.js';
import { MAX_SITEMAP_NESTING, SITEMAP_FROM_ROBOTS } from '../../src/sitemap/sitemap-uri.js';
import { MemoryUriUniqFilter } from '../../src/uniq/memory-uniq-filter.js';
import { makeExchange } from '../writer/helpers.js';
import { index, urlset } from '../fixtures/sitemap-web.js';
import { DEFAULT_TEST_OPTIONS, ManualClock } from '../frontier/harness.js';

const scopeOpts = { hosts: ['x.test', 'y.test', 'z.test'], include: [], exclude: [], maxHops: 4, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'robots' as const };

function xmlExchange(url: string, body: string) {
  return makeExchange({ url, body: Buffer.from(body), headers: [['Content-Type', 'application/xml']] });
}

const sitemapUri = (url: string): CrawlUri => childUri(childUri(seedUri('http://x.test/'), 'http://x.test/robots.txt', 'P', 'robots'), url, 'M', SITEMAP_FROM_ROBOTS);

test('lastmod is kept on the queued URI, with the priority it gives: ready queues are handed out by it', async () => {
  const clock = new ManualClock();
  const frontier = new WorkQueueFrontier({ store: new MemoryQueueStore(), options: { ...DEFAULT_TEST_OPTIONS, precedence: 'priority' }, maxConnectionsPerHost: 1, clock });
  const links = new LinkScheduler({ scope: new Scope(scopeOpts), seen: new MemoryUriUniqFilter(), refusedSeen: new MemoryUriUniqFilter(), frontier, maxRedirects: 5, onRefused: () => {} });
  // Each host's queue is made active by a fetch in flight while the sitemap's links are queued,
  // then waits out its politeness delay, so that all three are ready at the same moment.
  await frontier.schedule(['http://z.test/', 'http://x.test/', 'http://y.test/'].map(seedUri));
  const inFlight = [(await frontier.next())!, (await frontier.next())!, (await frontier.next())!];
  const parent = sitemapUri('http://x.test/sitemap.xml');
  const body = urlset(['http://z.test/undated']).replace('</urlset>', '<url><loc>http://x.test/old</loc><lastmod>2020-01-01</lastmod></url><url><loc>http://y.test/new</loc><lastmod>2024-05-01T10:00:00Z</lastmod></url><url><loc>http://z.test/bad</loc><lastmod>soon</lastmod></url></urlset>');
  const found = (await sitemapOutlinks(xmlExchange(parent.url, body), sitemapRole(parent, 'application/xml', 'robots')!))!;
  assert.equal(await links.schedule(parent, found.links), 4);
  for (const claim of inFlight) await frontier.finished(claim, { kind: 'done', delayMs: 1000 });
  clock.advance(1000);
  const order: CrawlUri[] = [];
  for (let i = 0; i < 4; i++) {
    const claim = (await frontier.next())!;
    order.push(claim.uri);
    await frontier.finished(claim, { kind: 'done', delayMs: 0 });
  }
  // All three ready at once: the most recently changed first, then the older, then the undated (as listed).
  assert.deepEqual(order.map((u) => u.url), ['http://y.test/new', 'http://x.test/old', 'http://z.test/undated', 'http://z.test/bad']);
  const byUrl = new Map(order.map((u) => [u.url, u]));
  const newest = byUrl.get('http://y.test/new')!;
  assert.equal(newest.lastmod, '2024-05-01T10:00:00Z');
  // The README's formula, days since 1970 / 100,000, worked by hand: 2024-05-01 is day 19,844
  // (19,723 for 2024-01-01, + 31 + 29 + 31 + 30), and 10:00 is 10/24 of a day.
  assert.ok(Math.abs(newest.priority! - 0.1984441666667) < 1e-12, `${newest.priority}`);
  assert.equal(newest.priority, lastmodPriority('2024-05-01T10:00:00Z'));
  assert.equal(byUrl.get('http://x.test/old')!.priority, 0.18262, '2020-01-01 is day 18,262');
  assert.equal(lastmodPriority('1970-01-02'), 0.00001);
  assert.equal(lastmodPriority('2024-05'), 0.19844);
  assert.equal(newest.hopPath, 'PMM');
  assert.equal(newest.context, 'url/loc');
  assert.ok(byUrl.get('http://x.test/old')!.priority! < newest.priority!, 'the older page ranks lower');
  assert.equal(byUrl.get('http://z.test/bad')!.lastmod, undefined, 'a lastmod that is no date is not kept');
  assert.equal(byUrl.get('http://z.test/undated')!.priority, undefined);
  await frontier.close();
});

test('an index queues its entries as sitemaps one level deeper, up to the nesting limit', async () => {
  const idx = index(['http://x.test/a.xml', '/relative.xml', 'ftp://x.test/no.xml']);
  const top = sitemapUri('http://x.test/index.xml');
  const found = (await sitemapOutlinks(xmlExchange(top.url, idx), sitemapRole(top, 'application/xml', 'robots')!))!;
  assert.deepEqual(found.links, [
    { url: 'http://x.test/a.xml', hop: 'M', context: 'sitemap:index:1' },
    { url: 'http://x.test/relative.xml', hop: 'M', context: 'sitemap:index:1' },
  ]);
  const deep = { ...top, context: `sitemap:index:${MAX_SITEMAP_NESTING}` };
  const stopped = (await sitemapOutlinks(xmlExchange(top.url, idx), sitemapRole(deep, 'application/xml', 'robots')!))!;
  assert.deepEqual(stopped.links, []);
  assert.ok(stopped.annotations.includes('sitemapNesting'));
  const oneUp = { ...top, context: `sitemap:index:${MAX_SITEMAP_NESTING - 1}` };
  assert.equal((await sitemapOutlinks(xmlExchange(top.url, idx), sitemapRole(oneUp, 'application/xml', 'robots')!))!.links[0]!.context, `sitemap:index:${MAX_SITEMAP_NESTING}`);
});

test('which URIs are read as sitemaps, and a body that is no sitemap after all', async () => {
  const page = childUri(seedUri('http://x.test/'), 'http://x.test/feed.xml', 'L', 'a/@href');
  assert.equal(sitemapRole(page, 'application/xml', 'robots'), null, 'a linked XML file is no sitemap');
  assert.deepEqual(sitemapRole(seedUri('http://x.test/list.xml'), 'text/xml', 'robots'), { context: 'sitemap:seed', nesting: 0 }, 'a seed served as XML is tried');
  assert.equal(sitemapRole(seedUri('http://x.test/'), 'text/html', 'robots'), null);
  assert.equal(sitemapRole(sitemapUri('http://x.test/s.xml'), 'application/xml', 'off'), null);
  const sm = sitemapUri('http://x.test/s.xml');
  assert.equal(await sitemapOutlinks(makeExchange({ url: sm.url, body: Buffer.from('<html><body>soft 404</body></html>') }), sitemapRole(sm, 'text/html', 'robots')!), null);
  assert.equal(await sitemapOutlinks(makeExchange({ url: sm.url, status: 404, body: Buffer.from(urlset(['http://x.test/a'])) }), sitemapRole(sm, 'application/xml', 'robots')!), null);
});

test('the limit notice and annotation', async () => {
  const sm = sitemapUri('http://x.test/s.xml');
  const found = (await sitemapOutlinks(xmlExchange(sm.url, urlset(['http://x.test/1', 'http://x.test/2', 'http://x.test/3'])), sitemapRole(sm, 'application/xml', 'robots')!, { maxUrls: 2, maxBytes: 1 << 20 }))!;
  assert.equal(found.links.length, 2);
  assert.ok(found.annotations.includes('sitemapLimit:urls'));
  assert.equal(found.notice, "archiver: sitemap http://x.test/s.xml lists more than 2 URLs, the protocol's limit: the first 2 are followed, the rest ignored");
});

test('M is never a transclusion hop, and counts for maxHops', () => {
  assert.equal(trailingTransclusionHops('LEM'), 0);
  assert.equal(trailingTransclusionHops('MR'), 1);
  const scope = new Scope(scopeOpts);
  const parent = sitemapUri('http://x.test/sitemap.xml');
  assert.deepEqual(scope.decide(childUri(parent, 'http://elsewhere.test/p', 'M', 'url/loc')), { accept: false, status: -5000, reason: 'outOfScope' });
  // A sitemap that redirects off-scope is not followed there, although a redirect is a transclusion hop.
  const redirected = childUri(parent, 'http://elsewhere.test/sitemap.xml', 'R', parent.context);
  assert.equal(scope.decide(redirected).accept, false);
  const page = childUri(childUri(seedUri('http://x.test/'), 'http://x.test/a', 'L', 'a/@href'), 'http://elsewhere.test/b', 'R', 'location');
  assert.equal(scope.decide(page).accept, true, 'an ordinary redirect still is');
  const deep = childUri(childUri(childUri(parent, 'http://x.test/s2.xml', 'M', 'sitemap:index:1'), 'http://x.test/s3.xml', 'M', 'sitemap:index:2'), 'http://x.test/page', 'M', 'url/loc');
  assert.equal(deep.hopPath, 'PMMMM');
  assert.deepEqual(scope.decide(deep), { accept: false, status: -4001, reason: 'maxHops' });
});

test('a <loc> with a \'%\' that begins no escape is queued with it as %25, as a page\'s link is (link-resolution.ts)', async () => {
  const sm = sitemapUri('http://x.test/s.xml');
  const found = (await sitemapOutlinks(xmlExchange(sm.url, urlset(['http://x.test/operator%.html', 'http://x.test/a%41b.html?q=100%'])), sitemapRole(sm, 'application/xml', 'robots')!))!;
  assert.deepEqual(
    found.links.map((l) => l.url),
    ['http://x.test/operator%25.html', 'http://x.test/a%41b.html?q=100%25'],
  );
});
