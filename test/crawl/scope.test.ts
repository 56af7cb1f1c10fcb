/** Scope decisions: hosts (ports, subdomains), include/exclude, hop limits, transclusion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childUri, seedUri } from '../../src/core/crawl-uri.js';
import { longestRepetition, Scope, trailingTransclusionHops } from '../../src/crawl/scope.js';

const opts = { hosts: ['example.org', '127.0.0.2:8421'], include: [], exclude: ['/private/'], maxHops: 3, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083, sitemaps: 'robots' as const };

test('hosts: subdomains yes, ports only when given', () => {
  const scope = new Scope(opts);
  const seed = seedUri('https://example.org/');
  assert.equal(scope.decide(childUri(seed, 'https://www.example.org/a', 'L', '')).accept, true);
  assert.equal(scope.decide(childUri(seed, 'http://example.org:8080/a', 'L', '')).accept, true);
  assert.equal(scope.decide(childUri(seed, 'http://notexample.org/a', 'L', '')).accept, false);
  assert.equal(scope.decide(childUri(seed, 'http://127.0.0.2:8421/a', 'L', '')).accept, true);
  assert.deepEqual(scope.decide(childUri(seed, 'http://127.0.0.2:8422/a', 'L', '')), { accept: false, status: -5000, reason: 'outOfScope' });
});

test('exclude, include, unfetchable schemes', () => {
  const scope = new Scope({ ...opts, include: ['/docs/'] });
  const seed = seedUri('https://example.org/');
  assert.equal(scope.decide(childUri(seed, 'https://example.org/docs/a', 'L', '')).accept, true);
  assert.equal(scope.decide(childUri(seed, 'https://example.org/blog/a', 'L', '')).accept, false);
  assert.deepEqual(scope.decide(childUri(seed, 'https://example.org/docs/private/x', 'L', '')), { accept: false, status: -5000, reason: 'excluded' });
  assert.equal(scope.decide(childUri(seed, 'ftp://example.org/docs/', 'L', '')).accept, false);
});

test('maxHops gives -4001', () => {
  const scope = new Scope(opts);
  let uri = seedUri('https://example.org/');
  for (let i = 0; i < 3; i++) uri = childUri(uri, `https://example.org/${i}`, 'L', '');
  assert.equal(scope.decide(uri).accept, true);
  uri = childUri(uri, 'https://example.org/4', 'L', '');
  assert.deepEqual(scope.decide(uri), { accept: false, status: -4001, reason: 'maxHops' });
});

test('embeds of in-scope pages are fetched off-scope up to transclusionHops', () => {
  const scope = new Scope(opts);
  const page = childUri(seedUri('https://example.org/'), 'https://example.org/p', 'L', '');
  const img = childUri(page, 'https://cdn.other.net/i.png', 'E', 'img/@src');
  assert.equal(scope.decide(img).accept, true);
  const nested = childUri(img, 'https://cdn.other.net/j.png', 'E', '');
  assert.equal(scope.decide(nested).accept, false);
  const link = childUri(page, 'https://cdn.other.net/page', 'L', '');
  assert.equal(scope.decide(link).accept, false);
  assert.equal(trailingTransclusionHops('LLER'), 2);
  assert.equal(trailingTransclusionHops(''), 0);
});

test('seeds are always in scope', () => {
  const scope = new Scope({ ...opts, hosts: ['elsewhere.org'] });
  assert.equal(scope.decide(seedUri('https://example.org/')).accept, true);
});

test('trap rules: path depth, repeated segment runs and URL length are refused with -5000 and the rule name', () => {
  const scope = new Scope({ ...opts, maxHops: 100, maxPathDepth: 5 });
  const seed = seedUri('https://example.org/');
  const decide = (url: string) => scope.decide(childUri(seed, url, 'L', ''));
  assert.equal(decide('https://example.org/1/2/3/4/5').accept, true);
  assert.deepEqual(decide('https://example.org/1/2/3/4/5/'), { accept: false, status: -5000, reason: 'maxPathDepth' });
  const deep = new Scope({ ...opts, maxHops: 100 });
  const decideDeep = (url: string) => deep.decide(childUri(seed, url, 'L', ''));
  assert.equal(decideDeep('https://example.org/a/b/a/b/').accept, true, 'a run twice is allowed with maxPathRepetitions 2');
  assert.deepEqual(decideDeep('https://example.org/a/b/a/b/a/b/'), { accept: false, status: -5000, reason: 'maxPathRepetitions' });
  assert.deepEqual(decide('https://example.org/x/x/x'), { accept: false, status: -5000, reason: 'maxPathRepetitions' });
  assert.equal(decide('https://example.org/x/x/y?q=/x/x/x/x').accept, true, 'the query is not part of the path');
  const long = 'https://example.org/?q=' + 'x'.repeat(2083 - 23);
  assert.equal(long.length, 2083);
  assert.equal(decide(long).accept, true);
  assert.deepEqual(decide(long + 'x'), { accept: false, status: -5000, reason: 'maxUrlLength' });
});

test('trap rules apply to off-scope embeds too, not to seeds; 0 turns the path rules off', () => {
  const scope = new Scope(opts);
  const page = childUri(seedUri('https://example.org/'), 'https://example.org/p', 'L', '');
  assert.deepEqual(scope.decide(childUri(page, 'https://cdn.other.net/a/a/a/i.png', 'E', '')), { accept: false, status: -5000, reason: 'maxPathRepetitions' });
  assert.equal(scope.decide(seedUri('https://example.org/a/a/a/a/')).accept, true);
  const off = new Scope({ ...opts, maxPathDepth: 0, maxPathRepetitions: 0 });
  const deep = '/a'.repeat(50);
  assert.equal(off.decide(childUri(page, `https://example.org${deep}`, 'L', '')).accept, true);
});

test('longestRepetition counts consecutive occurrences of the most repeated run', () => {
  assert.equal(longestRepetition([]), 1);
  assert.equal(longestRepetition(['a', 'b', 'c']), 1);
  assert.equal(longestRepetition(['a', 'b', 'a', 'b', 'a', 'b', '']), 3);
  assert.equal(longestRepetition(['x', 'a', 'b', 'c', 'a', 'b', 'c', 'y']), 2);
  assert.equal(longestRepetition(['a', 'a', 'b', 'a', 'a']), 2);
  assert.equal(longestRepetition(Array(7).fill('')), 7);
  // A thousand segments is checked quickly (no regex backtracking).
  assert.equal(longestRepetition(Array.from({ length: 1000 }, (_, i) => String(i % 7))), Math.floor(1000 / 7));
});

test('an IDN host in scope.hosts matches its punycode URLs', () => {
  const scope = new Scope({ ...opts, hosts: ['bücher.example'] });
  const seed = seedUri('http://xn--bcher-kva.example/');
  assert.equal(scope.decide(childUri(seed, new URL('http://bücher.example/a').href, 'L', '')).accept, true);
  assert.equal(scope.decide(childUri(seed, 'http://xn--bcher-kva.example/b', 'L', '')).accept, true);
});
