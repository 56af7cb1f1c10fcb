/**
 * Every robots policy in a real crawl, judged by what the server received.
 * One small site whose robots.txt names three agents; its home page links to
 * paths each policy decides differently, and to a page whose HTTP header
 * says `X-Robots-Tag: nofollow`. The expected requests below are worked out
 * by hand from that robots.txt (RFC 9309: the most specific group naming our
 * agent applies; the longest matching rule wins), and the User-Agent each
 * request carried is read from the server's log, so masquerading is seen
 * where it matters: on the wire.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { captureIo } from '../helpers/capture.js';
import { TEST_USER_AGENT, testProfileJson } from '../helpers/test-profile.js';

const ROBOTS_TXT = [
  'User-agent: *',
  'Disallow: /',
  '',
  'User-agent: archiver-test',
  'Disallow: /private/',
  'Allow: /private/open',
  '',
  'User-agent: Googlebot',
  'Disallow: /private/secret',
  '',
].join('\n');

const GOOGLEBOT_BROWSER = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

const PAGES: Record<string, { links: string[]; headers?: Record<string, string> }> = {
  '/': { links: ['/public', '/private/x', '/private/open', '/private/secret', '/xrt'] },
  '/public': { links: [] },
  '/private/x': { links: [] },
  '/private/open': { links: [] },
  '/private/secret': { links: [] },
  // The header alone says nofollow; the HTML says nothing.
  '/xrt': { links: ['/from-xrt'], headers: { 'X-Robots-Tag': 'nofollow' } },
  '/from-xrt': { links: [] },
};

interface Seen {
  path: string;
  userAgent: string;
}

let tmp: string;
let server: http.Server;
let origin: string;
const seen: Seen[] = [];

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-robots-crawl-'));
  server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    seen.push({ path: p, userAgent: req.headers['user-agent'] ?? '' });
    if (p === '/robots.txt') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(ROBOTS_TXT);
      return;
    }
    const page = PAGES[p];
    if (!page) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no');
      return;
    }
    const body = `<!doctype html><title>${p}</title>${page.links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`;
    res.writeHead(200, { 'Content-Type': 'text/html', ...page.headers }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(tmp, { recursive: true, force: true });
});

/** Crawls the site under `robots` and returns what the server saw, path → User-Agent. */
async function crawlWith(name: string, robots: Record<string, unknown>): Promise<Map<string, string>> {
  seen.length = 0;
  // Sitemaps off: with them on (the default), robots.txt is fetched for its Sitemap lines even where a policy needs no rules.
  const profile = validateProfile(testProfileJson(name, [`${origin}/`], path.join(tmp, name), { robots, scope: { sitemaps: 'off' } }), name);
  const summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  assert.equal(summary.status, 'FINISHED');
  const byPath = new Map<string, string>();
  for (const s of seen) {
    assert.equal(byPath.has(s.path), false, `${s.path} requested twice`);
    byPath.set(s.path, s.userAgent);
  }
  return byPath;
}

const sorted = (m: Map<string, string>): string[] => [...m.keys()].sort();

describe('robots policies in a crawl, from the server side', () => {
  test('obey: our group only; X-Robots-Tag nofollow drops the page\'s links', async () => {
    const got = await crawlWith('obey', { policy: 'obey' });
    assert.deepEqual(sorted(got), ['/', '/private/open', '/public', '/robots.txt', '/xrt']);
    for (const ua of got.values()) assert.equal(ua, TEST_USER_AGENT);
  });

  test('robotsTxtOnly: robots.txt obeyed, X-Robots-Tag not', async () => {
    const got = await crawlWith('robotsTxtOnly', { policy: 'robotsTxtOnly' });
    assert.deepEqual(sorted(got), ['/', '/from-xrt', '/private/open', '/public', '/robots.txt', '/xrt']);
  });

  test('mostFavored without masquerade: what any named agent may fetch, under our own name', async () => {
    const got = await crawlWith('mostFavored', { policy: 'mostFavored' });
    // /private/x: Googlebot may. /private/secret: no group allows it (* disallows everything).
    assert.deepEqual(sorted(got), ['/', '/private/open', '/private/x', '/public', '/robots.txt', '/xrt']);
    for (const ua of got.values()) assert.equal(ua, TEST_USER_AGENT);
  });

  test('mostFavored with masquerade: the favouring agent\'s name is sent only where it was needed', async () => {
    const got = await crawlWith('mostFavoredMasq', { policy: 'mostFavored', masquerade: true });
    assert.deepEqual(sorted(got), ['/', '/private/open', '/private/x', '/public', '/robots.txt', '/xrt']);
    assert.equal(got.get('/private/x'), 'Googlebot');
    for (const p of ['/', '/public', '/private/open', '/robots.txt', '/xrt']) assert.equal(got.get(p), TEST_USER_AGENT, p);
  });

  test('mostFavoredSet with a browser-style candidate, masqueraded: that exact string on the wire', async () => {
    const got = await crawlWith('mostFavoredSet', { policy: 'mostFavoredSet', candidateUserAgents: [GOOGLEBOT_BROWSER], masquerade: true });
    assert.deepEqual(sorted(got), ['/', '/private/open', '/private/x', '/public', '/robots.txt', '/xrt']);
    assert.equal(got.get('/private/x'), GOOGLEBOT_BROWSER);
    assert.equal(got.get('/public'), TEST_USER_AGENT);
  });

  test('mostFavoredSet with a candidate the file does not name: as obey', async () => {
    const got = await crawlWith('mostFavoredSetNone', { policy: 'mostFavoredSet', candidateUserAgents: ['SomeOtherBot/1.0'], masquerade: true });
    assert.deepEqual(sorted(got), ['/', '/private/open', '/public', '/robots.txt', '/xrt']);
  });

  test('custom: the operator\'s rules for every host, the site\'s robots.txt never asked for; X-Robots-Tag obeyed', async () => {
    const got = await crawlWith('custom', { policy: 'custom', custom: 'User-agent: *\nDisallow: /public\nDisallow: /private/secret\n' });
    assert.deepEqual(sorted(got), ['/', '/private/open', '/private/x', '/xrt']);
  });
});
