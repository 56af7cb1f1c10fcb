/**
 * Issue 26, fourth round: on a site of several books a relevant table of
 * contents handed its whole book a rank above every other book, and the
 * book's pages, off the topic one after the other, kept it (Berkeley DB:
 * 0.341). Each directory's pages now say what a link into it is worth
 * (src/focus/region-rates.ts): less than it inherits in a directory poorer
 * than the rest of its parent, a floor in one barely looked at, nothing
 * changed on a flat site; and a queued link keeps the evidence it was
 * scored on, so that it can be scored again when claimed, a bounded number
 * of times.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPLORE, MAX_DEMOTIONS, QueuedLinkParts, RegionRates, regionalScore } from '../../src/focus/region-rates.js';

const SITE = 'http://docs.test:8080';
const NONE = { anchor: 0, around: 0, url: 0 };

describe('region rates', () => {
  it('changes nothing for links at the root of a flat site, whatever its pages were worth', () => {
    const r = new RegionRates();
    for (let i = 0; i < 20; i++) r.scored(`${SITE}/p${i}.html`, i % 4 === 0 ? 0.9 : 0);
    assert.deepEqual(r.estimate(`${SITE}/next.html?x=/a/b/`), { factor: 1, explore: 0 });
  });

  it('discounts a directory whose pages were off the topic, and gives an unexplored one a floor that fades as it is explored', () => {
    const r = new RegionRates();
    r.scored(`${SITE}/index.html`, 0);
    r.scored(`${SITE}/a/index.html`, 0.9);
    r.scored(`${SITE}/b/index.html`, 0.8);
    const fresh = r.estimate(`${SITE}/a/ch1.html`);
    assert.equal(fresh.factor, 1, 'a directory as good as the rest keeps what it inherits');
    for (let i = 1; i <= 10; i++) r.scored(`${SITE}/a/ch${i}.html`, 0);
    const spent = r.estimate(`${SITE}/a/ch11.html`);
    assert.ok(spent.factor < 0.5, `an exhausted directory: ${spent.factor}`);
    const unexplored = r.estimate(`${SITE}/c/index.html`);
    assert.equal(unexplored.factor, 1);
    assert.ok(unexplored.explore > spent.explore && unexplored.explore <= EXPLORE, `${unexplored.explore} against ${spent.explore}`);
    // The discount is measured against the rest of the parent: /b/ did well, so /a/ is poorer than it.
    const inherited = { inherited: 0.9, neighbourhood: NONE };
    assert.ok(regionalScore(inherited, r, `${SITE}/a/ch11.html`) < regionalScore({ inherited: 0, neighbourhood: NONE }, r, `${SITE}/c/index.html`) + 0.2);
    // A link's own words count in full wherever it is.
    assert.ok(regionalScore({ inherited: 0, neighbourhood: { anchor: 0.86, around: 0, url: 0 } }, r, `${SITE}/a/ch12.html`) >= 0.86);
  });

  it('reads directories up to the path, not the query or the fragment', () => {
    const r = new RegionRates();
    for (let i = 0; i < 6; i++) r.scored(`${SITE}/a/p${i}.html`, 0);
    r.scored(`${SITE}/b/p.html`, 1);
    assert.equal(r.estimate(`${SITE}/x.html?next=/a/q.html`).explore, 0, 'at the root');
    assert.ok(r.estimate(`${SITE}/a/q.html#/b/`).factor < 1);
  });
});

describe('queued link parts', () => {
  it('keeps the parts of the links queued, demotes each a bounded number of times, forgets a fetched one', () => {
    const q = new QueuedLinkParts();
    const parts = { inherited: 0.7, neighbourhood: NONE };
    q.placing(`${SITE}/a.html`, parts, false);
    q.placing(`${SITE}/b.html`, parts, false);
    q.queued([`${SITE}/a.html`]);
    assert.deepEqual(q.demotable(`${SITE}/a.html`), { ...parts, demotions: 0 });
    assert.equal(q.demotable(`${SITE}/b.html`), null, 'the seen filter did not let it through');
    for (let i = 0; i < MAX_DEMOTIONS; i++) q.demoted(`${SITE}/a.html`);
    assert.equal(q.demotable(`${SITE}/a.html`), null);
    q.placing(`${SITE}/c.html`, parts, false);
    q.queued([`${SITE}/c.html`]);
    q.placing(`${SITE}/c.html`, { inherited: 0, neighbourhood: { anchor: 1, around: 0, url: 0 } }, true);
    assert.equal(q.demotable(`${SITE}/c.html`)?.neighbourhood.anchor, 1, 'a better path\'s copy brings its parts');
    q.fetched(`${SITE}/c.html`);
    assert.equal(q.demotable(`${SITE}/c.html`), null);
  });
});
