/** KnownLinks: a bounded set in two generations; a URL read from the older one moves to the newer. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KnownLinks } from '../../src/crawl/known-links.js';

test('remembers links, drops the older generation when the newer fills, keeps what is still read', () => {
  const known = new KnownLinks(3);
  for (const u of ['a', 'b', 'c']) known.add(u);
  assert.equal(known.has('a'), true);
  assert.equal(known.has('z'), false);
  known.add('d'); // the newer generation (a, b, c) was full: it becomes the older, d starts a new one
  assert.equal(known.has('b'), true); // read from the older: moved into the newer (d, b)
  known.add('e'); // newer: d, b, e (full)
  known.add('f'); // older: d, b, e; newer: f — a and c are gone
  assert.equal(known.has('a'), false);
  assert.equal(known.has('c'), false);
  assert.equal(known.has('b'), true);
  assert.equal(known.has('f'), true);
});
