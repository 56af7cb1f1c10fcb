/**
 * `overrides` in the profile: each mistake is one line naming the JSON
 * path, with the stable code; politeness and robots only at host level;
 * only the limits that make sense for part of a crawl; and nothing of the
 * top level is filled into an override (it inherits instead).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfile } from '../../src/config/load-profile.js';
import type { ProfileError } from '../../src/core/errors.js';
import { BASE_PROFILE, pathErrorOf } from '../helpers/profile-errors.js';

const base = BASE_PROFILE;

function errorOf(overrides: unknown, extra: Record<string, unknown> = {}): ProfileError {
  return pathErrorOf({ ...base, ...extra, overrides });
}

test('an override names only what it changes: no defaults are filled in', () => {
  const p = validateProfile({ ...base, overrides: [{ match: 'example.org', politeness: { minDelayMs: 400 } }] }, 'p.json');
  assert.deepEqual(p.overrides[0], { match: 'example.org', politeness: { minDelayMs: 400 } });
  assert.ok(Object.isFrozen(p.overrides[0]!.politeness));
  assert.equal(validateProfile(base, 'p.json').scope.sitemaps, 'robots');
  assert.deepEqual(validateProfile(base, 'p.json').overrides, []);
});

test('accepted: hosts, ports, SURT prefixes; politeness and robots on host-level SURT prefixes', () => {
  const ok = [
    { match: 'example.org', politeness: { maxConnectionsPerHost: 2 }, robots: { policy: 'ignore' } },
    { match: '127.0.0.1:8080', limits: { maxPages: 10, maxBytes: 1000, maxBodyBytes: 5, fetchTimeoutMs: 10, maxFetchDurationMs: 20, maxRetries: 0, retryDelayMs: 0 } },
    { match: 'http://(org,example,', politeness: { minDelayMs: 10 } },
    { match: 'http://(org,example,www,)/', robots: { unavailable: { policy: 'allow' } } },
    { match: 'https://(org,example,)/blog/', limits: { maxPages: 3 }, scope: { exclude: ['\\?replytocom='] } },
  ];
  assert.equal(validateProfile({ ...base, overrides: ok }, 'p.json').overrides.length, 5);
});

const cases: Array<[string, unknown, string, Record<string, unknown>?]> = [
  ['a match that is neither host nor SURT prefix', [{ match: 'http://example.org/blog' }], '/overrides/0/match'],
  ['a SURT prefix whose path does not start with /', [{ match: 'http://(org,example,)blog' }], '/overrides/0/match'],
  ['a missing match', [{ politeness: { minDelayMs: 1 } }], '/overrides/0'],
  ['politeness on a path prefix', [{ match: 'example.org' }, { match: 'http://(org,example,)/blog', politeness: { minDelayMs: 1 } }], '/overrides/1/politeness'],
  ['robots on a path prefix', [{ match: 'http://(org,example,)/x', robots: { policy: 'ignore' } }], '/overrides/0/robots'],
  ['maxDurationSec in an override', [{ match: 'example.org', limits: { maxDurationSec: 5 } }], '/overrides/0/limits/maxDurationSec'],
  ['maxOutlinks in an override', [{ match: 'example.org', limits: { maxOutlinks: 5 } }], '/overrides/0/limits/maxOutlinks'],
  ['a negative delay, checked as at the top', [{ match: 'example.org', politeness: { minDelayMs: -1 } }], '/overrides/0/politeness/minDelayMs'],
  ['min above max delay given together', [{ match: 'example.org', politeness: { minDelayMs: 500, maxDelayMs: 100 } }], '/overrides/0/politeness/minDelayMs'],
  ['an unknown politeness key', [{ match: 'example.org', politeness: { delay: 5 } }], '/overrides/0/politeness'],
  ['a bad robots policy name', [{ match: 'example.org', robots: { policy: 'nope' } }], '/overrides/0/robots/policy'],
  ['custom robots without text', [{ match: 'example.org', robots: { policy: 'custom' } }], '/overrides/0/robots/custom'],
  ['a bad exclude regex', [{ match: 'http://(org,example,)/a', scope: { exclude: ['('] } }], '/overrides/0/scope/exclude/0'],
  ['scope keys other than exclude', [{ match: 'example.org', scope: { maxHops: 3 } }], '/overrides/0/scope'],
  ['overrides not a list', { match: 'example.org' }, '/overrides'],
  ['a bad sitemaps mode', [], '/scope/sitemaps', { scope: { sitemaps: 'always' } }],
];
for (const [what, overrides, at, extra] of cases) {
  test(`rejects ${what} naming ${at}`, () => {
    assert.equal(errorOf(overrides, extra).path, at);
  });
}

test('the host-level rule is explained in the message', () => {
  const err = errorOf([{ match: 'http://(org,example,)/blog', politeness: { minDelayMs: 1 } }]);
  assert.match(err.message, /politeness acts per host/);
  assert.match(errorOf([{ match: 'example.org', limits: { maxDurationSec: 5 } }]).message, /not allowed in an override/);
});

test('custom robots text inherited from the top of the profile satisfies an override choosing the custom policy', () => {
  const p = validateProfile({ ...base, robots: { custom: 'User-agent: *\nDisallow: /x\n' }, overrides: [{ match: 'example.org', robots: { policy: 'custom' } }] }, 'p.json');
  assert.equal(p.overrides[0]!.robots!.policy, 'custom');
});
