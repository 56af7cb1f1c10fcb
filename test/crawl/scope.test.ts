/** Scope decisions: hosts (ports, subdomains), include/exclude, hop limits, transclusion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childUri, seedUri } from '../../src/core/crawl-uri.js';
import { Scope, trailingTransclusionHops } from '../../src/crawl/scope.js';

const opts = { hosts: ['example.org', '127.0.0.2:8421'], include: [], exclude: ['/private/'], maxHops: 3, transclusionHops: 1, maxPathDepth: 20, maxPathRepetitions: 2, maxUrlLength: 2083 };

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
