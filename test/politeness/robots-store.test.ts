// Per-origin robots state: single-flight, outcomes by status, size cap, expiry on a fake clock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ROBOTS_STORE_OPTIONS, RobotsStore, isUnavailable } from '../../src/politeness/robots-store.js';
import { originOf, robotsTxtUrl } from '../../src/politeness/robots-url.js';

const UA = 'archiver/0.1 (+https://example.org/about-our-crawler)';
const ORIGIN = 'http://site.test:80';
const HOUR_MS = 3600_000;

function fetched(status: number, text = '') {
  return { kind: 'fetched' as const, status, body: Buffer.from(text, 'utf8') };
}

/** `record` for an answer that must give rules. */
function recordRules(store: RobotsStore, origin: string, result: ReturnType<typeof fetched>, now: number) {
  const rules = store.record(origin, result, now);
  assert.ok(rules !== null, `status ${result.status} gave no rules`);
  return rules;
}

describe('RobotsStore', () => {
  it('goes missing → pending → ready, once per origin', () => {
    const store = new RobotsStore();
    const t0 = 1_000_000;
    assert.equal(store.status(ORIGIN, t0), 'missing');
    store.markPending(ORIGIN);
    assert.equal(store.status(ORIGIN, t0), 'pending', 'a second asker waits instead of fetching again');
    assert.equal(store.rules(ORIGIN), null);
    const rules = recordRules(store, ORIGIN, fetched(200, 'User-agent: *\nDisallow: /private/\nCrawl-delay: 3\n'), t0);
    assert.equal(store.status(ORIGIN, t0), 'ready');
    assert.equal(store.rules(ORIGIN), rules);
    assert.equal(rules.isAllowed('http://site.test/private/a', UA), false);
    assert.equal(rules.isAllowed('http://site.test/a', UA), true);
    assert.equal(store.crawlDelaySec(ORIGIN, UA), 3);
    assert.equal(store.status('https://site.test:443', t0), 'missing', 'https is another origin');
    assert.equal(store.crawlDelaySec('https://site.test:443', UA), null);
    assert.equal(store.size, 1);
  });

  it('expires a fetched file after 24 h and keeps the stale rules during the refresh', () => {
    const store = new RobotsStore();
    const t0 = 5_000;
    store.markPending(ORIGIN);
    const old = store.record(ORIGIN, fetched(200, 'User-agent: *\nDisallow: /old\n'), t0);
    assert.equal(store.status(ORIGIN, t0 + 24 * HOUR_MS - 1), 'ready');
    assert.equal(store.status(ORIGIN, t0 + 24 * HOUR_MS), 'missing');
    store.markPending(ORIGIN);
    assert.equal(store.status(ORIGIN, t0 + 24 * HOUR_MS), 'pending');
    assert.equal(store.rules(ORIGIN), old);
    store.record(ORIGIN, fetched(200, 'User-agent: *\nDisallow: /new\n'), t0 + 24 * HOUR_MS);
    assert.equal(store.rules(ORIGIN)?.isAllowed('http://site.test/old', UA), true);
    assert.equal(store.rules(ORIGIN)?.isAllowed('http://site.test/new', UA), false);
    assert.equal(store.status(ORIGIN, t0 + 47 * HOUR_MS), 'ready');
  });

  it('allows all on 3xx and 4xx, for a day', () => {
    for (const status of [301, 302, 400, 401, 403, 404, 410]) {
      const store = new RobotsStore();
      const rules = recordRules(store, ORIGIN, fetched(status, 'User-agent: *\nDisallow: /\n'), 0);
      assert.equal(rules.kind, 'allowAll', String(status));
      assert.equal(rules.isAllowed('http://site.test/x', UA), true);
      assert.equal(store.status(ORIGIN, 23 * HOUR_MS), 'ready');
    }
  });

  it('gives no rules on 5xx, 429 and unreachable: the origin waits until HostHealth says when to re-fetch', () => {
    const results = [fetched(500), fetched(503), fetched(429), fetched(199), { kind: 'unreachable' as const }];
    for (const result of results) {
      const label = JSON.stringify(result);
      assert.equal(isUnavailable(result), true, label);
      const store = new RobotsStore();
      store.markPending(ORIGIN);
      assert.equal(store.record(ORIGIN, result, 0), null, label);
      assert.equal(store.status(ORIGIN, 0), 'pending', `${label}: still pending until told`);
      store.retryAt(ORIGIN, 60_000);
      assert.equal(store.status(ORIGIN, 59_999), 'waiting', label);
      assert.equal(store.waitingUntil(ORIGIN, 59_999), 60_000, label);
      assert.equal(store.rules(ORIGIN), null, label);
      assert.equal(store.status(ORIGIN, 60_000), 'missing', label);
    }
    for (const status of [200, 204, 301, 404, 410]) assert.equal(isUnavailable(fetched(status)), false, String(status));
  });

  it('a host whose robots.txt stays unavailable under the allow policy is crawled as allowed, for a day', () => {
    const store = new RobotsStore();
    store.allowAll(ORIGIN, 0);
    assert.equal(store.status(ORIGIN, 23 * HOUR_MS), 'ready');
    assert.equal(store.rules(ORIGIN)?.isAllowed('http://site.test/x', UA), true);
    assert.equal(store.status(ORIGIN, DEFAULT_ROBOTS_STORE_OPTIONS.refreshAfterMs), 'missing');
  });

  it('a host that recovers from 503 gets its real rules on the next fetch', () => {
    const store = new RobotsStore();
    store.retryAt(ORIGIN, 1000);
    assert.equal(store.status(ORIGIN, 1000), 'missing');
    store.markPending(ORIGIN);
    store.record(ORIGIN, fetched(200, 'User-agent: *\nDisallow: /only-this\n'), 1000);
    assert.equal(store.rules(ORIGIN)?.isAllowed('http://site.test/x', UA), true);
    assert.equal(store.rules(ORIGIN)?.isAllowed('http://site.test/only-this', UA), false);
  });

  it('parses only the first 500 KiB of an oversized robots.txt', () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(600); // ~600 KB of comments
    const tail = 'Disallow: /late\n';
    const body = Buffer.from(head + filler + tail, 'utf8');
    assert.ok(body.length > DEFAULT_ROBOTS_STORE_OPTIONS.maxBodyBytes);
    const rules = recordRules(new RobotsStore(), ORIGIN, { kind: 'fetched', status: 200, body }, 0);
    assert.equal(rules.isAllowed('http://site.test/early', UA), false);
    assert.equal(rules.isAllowed('http://site.test/late', UA), true, 'beyond the cap');
  });

  it('drops the line the cap cuts through rather than reading a shorter rule', () => {
    // Regression guard: cut at 51 bytes, "Allow: /private/ok-this-one-only" would read as
    // "Allow: /private/o", longer than "Disallow: /private/" and so opening /private/other.
    const text = 'User-agent: *\nDisallow: /private/\nAllow: /private/ok-this-one-only\n';
    const store = new RobotsStore({ maxBodyBytes: 51 });
    const rules = recordRules(store, ORIGIN, fetched(200, text), 0);
    assert.equal(rules.isAllowed('http://site.test/private/other', UA), false);
    assert.equal(rules.isAllowed('http://site.test/public', UA), true);
    const whole = recordRules(new RobotsStore(), ORIGIN, fetched(200, text), 0);
    assert.equal(whole.isAllowed('http://site.test/private/ok-this-one-only', UA), true);
  });

  it('keeps one entry per origin however often it is refreshed', () => {
    const store = new RobotsStore();
    for (let i = 0; i < 5; i++) {
      store.markPending(ORIGIN);
      store.record(ORIGIN, fetched(404), i * 25 * HOUR_MS);
    }
    store.markPending('http://other.test:80');
    assert.equal(store.size, 2);
  });
});

describe('robots URLs', () => {
  it('robotsTxtUrl keeps scheme and authority, drops userinfo and the default port', () => {
    assert.equal(robotsTxtUrl('https://User:pw@Example.COM:443/a/b?c#d'), 'https://example.com/robots.txt');
    assert.equal(robotsTxtUrl('http://127.0.0.2:8080/x'), 'http://127.0.0.2:8080/robots.txt');
    assert.equal(robotsTxtUrl('http://[::1]:81/'), 'http://[::1]:81/robots.txt');
  });

  it('originOf spells out the port, so scheme and port separate origins', () => {
    assert.equal(originOf('http://Example.com/x'), 'http://example.com:80');
    assert.equal(originOf('https://example.com/x'), 'https://example.com:443');
    assert.equal(originOf('http://example.com:8080/x'), 'http://example.com:8080');
    assert.equal(originOf('http://[::1]:8080/'), 'http://[::1]:8080');
  });

  it('refuses URLs that have no robots.txt with a stable code', () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'mailto:a@b.c']) {
      assert.throws(() => originOf(url), (err: unknown) => (err as { code?: string }).code === 'ARCHIVER_ROBOTS_URL', url);
      assert.throws(() => robotsTxtUrl(url), (err: unknown) => (err as { code?: string }).code === 'ARCHIVER_ROBOTS_URL', url);
    }
  });
});
