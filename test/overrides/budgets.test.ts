/**
 * Budgets of overrides: every budget covering a URL counts it; pages are
 * exact (a place is taken before a fetch, and given back if it captured
 * nothing); bytes stop the match once reached; a budget reached stops only
 * what its match covers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateProfile } from '../../src/config/load-profile.js';
import { Budgets } from '../../src/overrides/budgets.js';
import { Overrides } from '../../src/overrides/overrides.js';

const base = { name: 'site', seeds: ['https://example.org/'], userAgent: 'archiver/0.1 (+https://example.org/bot)' };

function budgets(list: unknown[]): Budgets {
  return new Budgets(new Overrides(validateProfile({ ...base, overrides: list }, 'p.json')));
}

test('a prefix budget inside a host budget: both count, each stops what it covers', () => {
  const b = budgets([
    { match: 'example.org', limits: { maxPages: 3 } },
    { match: 'http://(org,example,)/blog/', limits: { maxPages: 1 } },
    { match: 'other.org', politeness: { minDelayMs: 1 } },
  ]);
  assert.equal(b.any, true);
  const blog = b.take('http://example.org/blog/1');
  assert.equal(blog.kind, 'go');
  assert.equal(b.take('http://example.org/blog/2').kind, 'wait', 'the only place is taken by a fetch under way');
  b.captured('http://example.org/blog/1', 100);
  if (blog.kind === 'go') blog.release();
  assert.equal(b.take('http://example.org/blog/2').kind, 'spent');
  assert.equal(b.spent('http://example.org/blog/2'), true);
  assert.equal(b.spent('http://example.org/about'), false, 'the rest of the host goes on');
  b.captured('http://www.example.org/a', 10);
  b.captured('http://example.org/b', 10);
  assert.equal(b.spent('http://example.org/c'), true, 'the host budget: three captures, the blog page included');
  assert.equal(b.take('http://other.org/x').kind, 'go', 'no budget covers it');
  assert.deepEqual(b.report(), [
    { match: 'example.org', maxPages: 3, maxBytes: 0, pages: 3, bytes: 120, reached: true },
    { match: 'http://(org,example,)/blog/', maxPages: 1, maxBytes: 0, pages: 1, bytes: 100, reached: true },
  ]);
});

test('a place given back by a fetch that captured nothing frees the budget again', () => {
  const b = budgets([{ match: 'example.org', limits: { maxPages: 1 } }]);
  const first = b.take('http://example.org/1');
  assert.equal(b.take('http://example.org/2').kind, 'wait');
  if (first.kind === 'go') {
    first.release();
    first.release();
  }
  assert.equal(b.take('http://example.org/2').kind, 'go');
});

test('bytes: reached by the capture that crosses the limit', () => {
  const b = budgets([{ match: 'example.org:8080', limits: { maxBytes: 1000 } }]);
  b.captured('http://example.org:8080/a', 999);
  assert.equal(b.spent('http://example.org:8080/b'), false);
  b.captured('http://example.org:8080/b', 5000);
  assert.equal(b.spent('http://example.org:8080/c'), true);
  assert.equal(b.spent('http://example.org/c'), false, 'another port is another host');
});

test('no budgets: nothing to check', () => {
  const b = budgets([{ match: 'example.org', limits: { maxBodyBytes: 5 } }]);
  assert.equal(b.any, false);
  assert.equal(b.take('http://example.org/').kind, 'go');
});
