/**
 * A link found again by a better path (issue 26: pages linked from the
 * whole topical neighbourhood under anchors naming the topic kept the rank
 * of their first, off-topic discovery): queued again only when the new
 * score beats the queued one by MARGIN, at most MAX_COPIES times, never once
 * the page was fetched; the copy claimed after the fetch is dropped, and
 * only that many.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BetterPaths, MARGIN, MAX_COPIES } from '../../src/focus/better-paths.js';

const URL_A = 'http://docs.test/pragma.html';
const URL_B = 'http://docs.test/other.html';

describe('better paths', () => {
  it('queues a link again only for a clearly better score, a bounded number of times', () => {
    const p = new BetterPaths();
    assert.equal(p.again(URL_A, 0.9), false, 'not known to be queued: the seen filter decides');
    p.queued(URL_A, 0.1);
    assert.equal(p.again(URL_A, 0.1 + MARGIN / 2), false, 'not better enough');
    let copies = 0;
    for (let score = 0.1 + MARGIN; score <= 1; score += MARGIN) if (p.again(URL_A, score)) copies++;
    assert.equal(copies, MAX_COPIES);
    assert.equal(p.again(URL_B, 1), false);
  });

  it('drops the copies claimed once the page was fetched, and never queues it again', () => {
    const p = new BetterPaths();
    p.queued(URL_A, 0);
    assert.ok(p.again(URL_A, 0.5));
    assert.equal(p.superseded(URL_A), false, 'the first copy claimed is fetched');
    p.fetched(URL_A);
    assert.equal(p.again(URL_A, 1), false, 'fetched: not queued again');
    assert.equal(p.superseded(URL_A), true, 'the other copy is dropped');
    assert.equal(p.superseded(URL_A), false, 'and only it');
    p.queued(URL_B, 0);
    p.fetched(URL_B);
    assert.equal(p.superseded(URL_B), false, 'a URL never copied is never dropped');
  });
});
