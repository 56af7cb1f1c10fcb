/**
 * The journal's closing summary: what the end of a crawl reads instead of a
 * first pass over the journal. Its borrowers are the page revisits that have
 * neither title nor text of their own, counted per digest: the page list
 * lends them their original's, and drops it once the last has passed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JournalSummaryBuilder, type SummedCapture } from '../../src/job/journal-summary.js';

function capture(n: number, over: Partial<SummedCapture> = {}): SummedCapture {
  return { url: `http://s.test/${n}`, filename: 'a.warc.gz', offset: n * 100, length: 100, seed: false, page: true, revisit: false, digest: `sha1:D${n}`, ...over };
}

test('only page revisits with neither title nor text of their own borrow, counted per digest', () => {
  const b = new JournalSummaryBuilder();
  b.add(capture(0, { seed: true }), true, true);
  b.add(capture(1, { revisit: true, digest: 'sha1:D0' }), false, false);
  b.add(capture(2, { revisit: true, digest: 'sha1:D0' }), false, false);
  b.add(capture(3, { revisit: true, digest: 'sha1:D0' }), true, false); // its own title
  b.add(capture(4, { revisit: true, digest: 'sha1:D0' }), false, true); // its own text
  b.add(capture(5, { revisit: true, digest: 'sha1:D0', page: false }), false, false); // not a page
  b.add(capture(6, { revisit: true, digest: null }), false, false); // no digest to borrow by
  b.add(capture(7, { revisit: true, digest: 'sha1:D7' }), false, false);
  const s = b.summary();
  assert.ok(s !== null);
  assert.deepEqual(s.borrowers, [['sha1:D0', 2], ['sha1:D7', 1]]);
  assert.deepEqual(s.markedSeeds, ['http://s.test/0']);
  assert.equal(s.captures, 8);
  assert.equal(s.inOrder, true);
  assert.deepEqual(s.files, [['a.warc.gz', 800]]);
});

test('a file met again after another, or an offset going back, is out of order', () => {
  const b = new JournalSummaryBuilder();
  b.add(capture(0), true, true);
  b.add(capture(1, { filename: 'b.warc.gz' }), true, true);
  b.add(capture(2), true, true);
  assert.equal(b.summary()?.inOrder, false);
  const c = new JournalSummaryBuilder();
  c.add(capture(2), true, true);
  c.add(capture(1), true, true);
  assert.equal(c.summary()?.inOrder, false);
});
