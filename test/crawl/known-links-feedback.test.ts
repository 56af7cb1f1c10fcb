/**
 * The links a crawl knows, told to the page thread: LinkScheduler says which
 * link URLs of a page went through its seen filter (onKnown), PageThread
 * hands them to the worker with the next page, and the worker leaves them
 * out of the outlinks it sends back — but never out of the metadata record,
 * never a redirect's target, and never in a focused crawl. Through a real
 * frontier (memory store), real seen filters and, compiled, a real worker.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ScopeOptions } from '../../src/config/profile.js';
import { childUri, seedUri } from '../../src/core/crawl-uri.js';
import { LinkScheduler } from '../../src/crawl/link-scheduler.js';
import { PageThread } from '../../src/crawl/page-thread.js';
import { pageWork, type PageRequest } from '../../src/crawl/page-work.js';
import { Scope } from '../../src/crawl/scope.js';
import { MemoryQueueStore } from '../../src/frontier/memory-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { sha1PayloadDigest } from '../../src/fetch/payload-digest.js';
import { MemoryUriUniqFilter } from '../../src/uniq/memory-uniq-filter.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import { DEFAULT_TEST_OPTIONS, ManualClock } from '../frontier/harness.js';
import { recordWithoutIds } from '../helpers/gzip-members.js';

const compiled = import.meta.url.endsWith('.js');

const SCOPE: ScopeOptions = { hosts: ['a.test'], include: [], exclude: [], maxHops: 20, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'off' };

test('onKnown is told the links of a page that went through the seen filter: not those refused, not again those already known', async () => {
  const frontier = new WorkQueueFrontier({ store: new MemoryQueueStore(), options: DEFAULT_TEST_OPTIONS, maxConnectionsPerHost: 1, clock: new ManualClock() });
  const told: string[][] = [];
  const links = new LinkScheduler({
    scope: new Scope(SCOPE),
    seen: new MemoryUriUniqFilter(),
    refusedSeen: new MemoryUriUniqFilter(),
    frontier,
    maxRedirects: 5,
    onRefused: () => {},
    onKnown: (urls) => told.push([...urls]),
  });
  const seed = seedUri('http://a.test/');
  const link = (url: string) => ({ url, hop: 'L' as const, context: '' });
  await links.schedule(seed, [link('http://a.test/1'), link('http://b.test/out'), link('http://a.test/2')]);
  await links.schedule(childUri(seed, 'http://a.test/1', 'L', ''), [link('http://a.test/2'), link('http://a.test/3')]);
  // A page whose links are all known tells nothing.
  await links.schedule(childUri(seed, 'http://a.test/2', 'L', ''), [link('http://a.test/1'), link('http://a.test/3')]);
  assert.deepEqual(told, [['http://a.test/1', 'http://a.test/2'], ['http://a.test/3']]);
  await frontier.close();
});

function page(n: number, hrefs: string[]): string {
  return `<!doctype html><title>Page ${n}</title><p>${'text '.repeat(500)}</p>${hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ')}`;
}

function capture(n: number, html: string, status = 200, location?: string): PageRequest {
  const body = gzipSync(Buffer.from(html));
  return {
    exchange: {
      url: `http://a.test/p${n}`,
      requestHead: Buffer.from(`GET /p${n} HTTP/1.1\r\nHost: a.test\r\n\r\n`),
      status,
      statusText: status === 200 ? 'OK' : 'Found',
      httpVersion: '1.1',
      responseHeaders: [['Content-Type', 'text/html'], ['Content-Encoding', 'gzip'], ...(location ? [['Location', location] as [string, string]] : [])],
      truncated: null,
      payloadDigest: sha1PayloadDigest(body),
      ip: '127.0.0.1',
      startedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      durationMs: 1,
    },
    body,
    hopPath: 'L',
    via: 'http://a.test/',
    version: '1.1',
    extraction: { mime: 'text/html', obeyMetaRobots: true, maxOutlinks: 6000 },
  };
}

/** The outlinks a metadata record lists, one URL per line (`outlink: <url> <hop> <context>`). */
function metadataOutlinks(member: Buffer): string[] {
  return gunzipSync(member).toString('latin1').split('\r\n').filter((l) => l.startsWith('outlink: ')).map((l) => l.split(' ')[1]!);
}

test('the worker leaves known links out of what it sends back, keeps a redirect\'s target, and its metadata record still lists every link', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  assert.equal(await thread.whenReady(), compiled);
  const first = await thread.page(capture(1, page(1, ['/nav/a', '/nav/b', '/only-1'])));
  assert.deepEqual(first.found.links.map((l) => l.url), ['http://a.test/nav/a', 'http://a.test/nav/b', 'http://a.test/only-1']);
  thread.knowLinks(['http://a.test/nav/a', 'http://a.test/nav/b', 'http://a.test/only-1']);
  const req = capture(2, page(2, ['/nav/a', '/nav/b', '/only-2']));
  const second = await thread.page(req);
  const everyLink = ['http://a.test/nav/a', 'http://a.test/nav/b', 'http://a.test/only-2'];
  if (compiled) assert.deepEqual(second.found.links.map((l) => l.url), ['http://a.test/only-2'], 'the links told are not sent back');
  else assert.deepEqual(second.found.links.map((l) => l.url), everyLink, 'from sources the work stays here, every link returned');
  // The metadata record is the one this thread would make: every link.
  const here = await pageWork(req, inProcessGzip);
  assert.deepEqual(metadataOutlinks(second.members.metadata as Buffer), everyLink);
  assert.equal(recordWithoutIds(second.members.metadata as Buffer), recordWithoutIds(here.members.metadata as Buffer));
  // A redirect's target goes back even when known (the scheduler never skips one).
  const redirect = await thread.page(capture(3, page(3, ['/nav/a']), 302, 'http://a.test/nav/b'));
  assert.deepEqual(redirect.found.links.map((l) => [l.url, l.hop]).filter(([, hop]) => hop === 'R'), [['http://a.test/nav/b', 'R']]);
  await thread.close();
});

test('a focused crawl\'s page thread is told nothing and sends every link back', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0, focusTerms: true });
  await thread.whenReady();
  thread.knowLinks(['http://a.test/nav/a']);
  const read = await thread.page(capture(4, page(4, ['/nav/a', '/only-4'])));
  assert.deepEqual(read.found.links.map((l) => l.url), ['http://a.test/nav/a', 'http://a.test/only-4']);
  await thread.close();
});
