/**
 * Resolution of overrides: the longest matching SURT prefix wins, field by
 * field, over the top of the profile; a host entry covers its subdomains
 * (and only its port when it names one) and ranks as its host's SURT
 * prefix; per-host settings come from host-level matches only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfile } from '../../src/config/load-profile.js';
import { parseOverrideMatch, targetOfHost, targetOfUrl } from '../../src/config/override-match.js';
import { Overrides } from '../../src/overrides/overrides.js';
import { schemeSurt } from '../../src/url/surt.js';

const base = { name: 'site', seeds: ['https://example.org/'], userAgent: 'archiver/0.1 (+https://example.org/bot)' };

function overrides(list: unknown[], extra: Record<string, unknown> = {}): Overrides {
  return new Overrides(validateProfile({ ...base, ...extra, overrides: list }, 'p.json'));
}

test('schemeSurt: Heritrix form, https read as http, IPs unreversed, default ports dropped', () => {
  assert.equal(schemeSurt('https://www.Example.org/Blog/a?x=1'), 'http://(org,example,www,)/Blog/a?x=1');
  assert.equal(schemeSurt('http://example.org:8080/'), 'http://(org,example,:8080)/');
  assert.equal(schemeSurt('http://127.0.0.5:8421/p'), 'http://(127.0.0.5:8421)/p');
  assert.equal(schemeSurt('http://example.org:80/'), 'http://(org,example,)/');
  assert.equal(schemeSurt('ftp://example.org/'), null);
});

test('matches: what each spelling covers', () => {
  const host = parseOverrideMatch('example.org')!;
  const url = (u: string) => targetOfUrl(u)!;
  assert.equal(host.coversUrl(url('http://example.org/')), true);
  assert.equal(host.coversUrl(url('https://www.example.org:8443/x')), true, 'subdomains, any port');
  assert.equal(host.coversUrl(url('http://notexample.org/')), false, 'a label boundary');
  const port = parseOverrideMatch('example.org:8080')!;
  assert.equal(port.coversUrl(url('http://a.example.org:8080/')), true);
  assert.equal(port.coversUrl(url('http://example.org/')), false, 'only that port');
  const ip = parseOverrideMatch('127.0.0.1')!;
  assert.equal(ip.coversHost(targetOfHost('127.0.0.1:9000')), true);
  assert.equal(ip.coversHost(targetOfHost('127.0.0.10:9000')), false, 'an IP is no string prefix');
  const exact = parseOverrideMatch('http://(org,example,)/')!;
  assert.equal(exact.hostLevel, true);
  assert.equal(exact.coversHost(targetOfHost('example.org')), true);
  assert.equal(exact.coversHost(targetOfHost('www.example.org')), false, 'closed with ): that host only');
  assert.equal(exact.coversHost(targetOfHost('example.org:8080')), false);
  const domain = parseOverrideMatch('http://(org,example,')!;
  assert.equal(domain.coversHost(targetOfHost('www.example.org:443')), true);
  const path = parseOverrideMatch('https://(org,example,)/blog')!;
  assert.equal(path.hostLevel, false);
  assert.equal(path.coversUrl(url('http://example.org/blog/1')), true, 'https in the prefix covers http too');
  assert.equal(path.coversUrl(url('https://example.org/Blog/1')), false, 'the path is case-sensitive');
  assert.equal(path.coversHost(targetOfHost('example.org')), false, 'a path prefix is no host setting');
  assert.ok(host.rank < port.rank && host.rank < path.rank && exact.rank < path.rank);
  assert.equal(parseOverrideMatch('http://example.org/'), null);
  assert.equal(parseOverrideMatch('exa mple.org'), null);
});

test('the longest matching prefix wins, field by field; the rest is the top of the profile', () => {
  const o = overrides(
    [
      { match: 'http://(org,example,www,)/', politeness: { minDelayMs: 100 } },
      { match: 'example.org', politeness: { minDelayMs: 900, maxConnectionsPerHost: 3 }, limits: { maxBodyBytes: 1000, fetchTimeoutMs: 50 } },
      { match: 'http://(org,example,www,)/big/', limits: { maxBodyBytes: 5000 } },
    ],
    { politeness: { minDelayMs: 10, maxDelayMs: 2000 } },
  );
  const www = o.forHost('www.example.org');
  assert.equal(www.politeness.minDelayMs, 100, 'the more specific www entry wins minDelayMs');
  assert.equal(www.politeness.maxConnectionsPerHost, 3, 'the shorter entry still gives maxConnectionsPerHost');
  assert.equal(www.politeness.maxDelayMs, 2000, 'inherited');
  assert.deepEqual(www.matches, ['example.org', 'http://(org,example,www,)/']);
  assert.equal(o.forHost('cdn.example.org:8080').politeness.minDelayMs, 900);
  assert.equal(o.forHost('other.org').politeness.minDelayMs, 10);
  assert.deepEqual(o.forHost('other.org').matches, []);
  const big = o.forUrl('https://www.example.org/big/file.iso').limits;
  assert.equal(big.maxBodyBytes, 5000);
  assert.equal(big.fetchTimeoutMs, 50, 'from the host entry');
  assert.equal(o.forUrl('https://www.example.org/small').limits.maxBodyBytes, 1000);
  assert.equal(o.forUrl('https://other.org/').limits.maxBodyBytes, 104857600);
  assert.equal(o.maxConnectionsCeiling, 3);
});

test('equal ranks: the later entry wins', () => {
  const o = overrides([
    { match: 'example.org', politeness: { minDelayMs: 1 } },
    { match: 'http://(org,example,', politeness: { minDelayMs: 2 } },
  ]);
  assert.equal(o.forHost('example.org').politeness.minDelayMs, 2);
});

test('a port entry is more specific than the host entry', () => {
  const o = overrides([
    { match: '127.0.0.5:9000', politeness: { minDelayMs: 400 } },
    { match: '127.0.0.5', politeness: { minDelayMs: 7 } },
  ]);
  assert.equal(o.forHost('127.0.0.5:9000').politeness.minDelayMs, 400);
  assert.equal(o.forHost('127.0.0.5:9001').politeness.minDelayMs, 7);
});

test('an override\'s delay bound wins over the inherited other bound', () => {
  const o = overrides([{ match: 'a.org', politeness: { minDelayMs: 400 } }, { match: 'b.org', politeness: { maxDelayMs: 5 } }], { politeness: { minDelayMs: 0, maxDelayMs: 0 } });
  assert.deepEqual([o.forHost('a.org').politeness.minDelayMs, o.forHost('a.org').politeness.maxDelayMs], [400, 400]);
  const top = overrides([{ match: 'b.org', politeness: { maxDelayMs: 5 } }]);
  assert.deepEqual([top.forHost('b.org').politeness.minDelayMs, top.forHost('b.org').politeness.maxDelayMs], [5, 5]);
});

test('robots: an override changes one host\'s policy, and robots.unavailable field by field', () => {
  const o = overrides([{ match: 'b.org', robots: { policy: 'ignore', unavailable: { retries: 7 } } }]);
  assert.equal(o.forHost('b.org').robots.policy, 'ignore');
  assert.deepEqual(o.forHost('b.org').robots.unavailable, { policy: 'disallow', retries: 7, retryDelayMs: 60000 });
  assert.equal(o.forHost('a.org').robots.policy, 'obey');
});

test('path-level limits: the URI\'s retries follow the URL, the host\'s retries the host-level matches', () => {
  const o = overrides([
    { match: 'example.org', limits: { maxRetries: 4 } },
    { match: 'http://(org,example,)/flaky/', limits: { maxRetries: 9 } },
  ]);
  assert.equal(o.forHost('example.org').maxRetries, 4);
  assert.equal(o.forUrl('http://example.org/flaky/x').limits.maxRetries, 9);
  assert.equal(o.forUrl('http://example.org/x').limits.maxRetries, 4);
});

test('scope excludes: the most specific match that names some', () => {
  const o = overrides([
    { match: 'example.org', scope: { exclude: ['/calendar/'] } },
    { match: 'http://(org,example,)/blog', scope: { exclude: ['\\?replytocom='] } },
  ]);
  assert.deepEqual(o.excludesFor('http://example.org/calendar/2020').map(String), ['/\\/calendar\\//']);
  assert.deepEqual(o.excludesFor('http://example.org/blog/x').map(String), ['/\\?replytocom=/']);
  assert.deepEqual(o.excludesFor('http://other.org/calendar/'), []);
});

test('settings are shared by combination of matches, and frozen', () => {
  const o = overrides([{ match: 'example.org', politeness: { minDelayMs: 5 } }]);
  assert.equal(o.forHost('a.example.org'), o.forHost('b.example.org'));
  assert.ok(Object.isFrozen(o.forHost('a.example.org').politeness));
  const none = overrides([]);
  assert.equal(none.any, false);
  assert.equal(none.forHost('x.org').politeness.minDelayMs, 3000);
});

test('describeHost: the fields that differ from the top of the profile', () => {
  const o = overrides(
    [
      { match: '127.0.0.5', politeness: { minDelayMs: 400, maxConnectionsPerHost: 1 }, robots: { policy: 'ignore' }, limits: { maxPages: 50 } },
      { match: 'http://(127.0.0.5:8080)/', limits: { maxPages: 5 } },
      { match: 'http://(127.0.0.5:8080)/a/', limits: { maxBodyBytes: 9 } },
    ],
    { politeness: { minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 4 } },
  );
  assert.deepEqual(o.describeHost('127.0.0.5:8080'), {
    matches: ['127.0.0.5', 'http://(127.0.0.5:8080)/'],
    settings: { 'politeness.minDelayMs': 400, 'politeness.maxDelayMs': 400, 'politeness.maxConnectionsPerHost': 1, 'robots.policy': 'ignore', 'limits.maxPages': 5 },
  });
  assert.equal(o.describeHost('127.0.0.6'), null);
});
