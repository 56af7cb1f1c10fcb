/**
 * The seed document's term weights, W(i) = Avg(TF_i) × 1 / (ln(nDoc / n_i) + 1 / ln(nDoc − 1)),
 * checked against a small example worked out by hand (natural logarithms,
 * six decimals). Three training documents, nDoc = 3:
 *
 *   d1 = "tea tea green"   d2 = "tea oolong"   d3 = "tea green green pot"
 *
 *   term    counts (d1 d2 d3)  Avg(TF) = sum / 3   n_i
 *   tea     2 1 1              4/3 = 1.333333      3
 *   green   1 0 2              3/3 = 1             2
 *   oolong  0 1 0              1/3 = 0.333333      1
 *   pot     0 0 1              1/3 = 0.333333      1
 *
 *   1 / ln(nDoc − 1) = 1 / ln 2 = 1 / 0.693147 = 1.442695
 *   tea:    ln(3/3) = 0        → 1 / (0 + 1.442695)        = 0.693147 → W = 1.333333 × 0.693147 = 0.924196
 *   green:  ln(3/2) = 0.405465 → 1 / (0.405465 + 1.442695) = 0.541079 → W = 1 × 0.541079        = 0.541079
 *   oolong: ln(3/1) = 1.098612 → 1 / (1.098612 + 1.442695) = 0.393498 → W = 0.333333 × 0.393498 = 0.131166
 *   pot:    as oolong                                                  → W = 0.131166
 *
 * A term in every document weighs Avg(TF) × ln(nDoc − 1) (tea: 1.333333 × 0.693147).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seedFactor, seedWeights } from '../../src/focus/seed-weights.js';
import { countTerms } from '../../src/focus/term-vector.js';
import { TopicModel } from '../../src/focus/topic-model.js';

const HAND = { tea: 0.924196, green: 0.541079, oolong: 0.131166, pot: 0.131166 };
const DOCS = ['tea tea green', 'tea oolong', 'tea green green pot'];

function close(actual: number | undefined, expected: number, what: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 5e-7, `${what}: ${actual} ≠ ${expected}`);
}

describe('seed weights', () => {
  it('match the hand-computed example', () => {
    const w = seedWeights(DOCS.map((d) => countTerms(d.split(' '))))!;
    assert.equal(w.size, 4);
    for (const [term, expected] of Object.entries(HAND)) close(w.get(term), expected, term);
    close(seedFactor(3, 3), 0.693147, 'factor of a term in every document = ln(nDoc - 1)');
    close(seedFactor(3, 2), 0.541079, 'factor at n = 2');
  });

  it('are the topic of a seed-weighted model learnt from those documents as pages', () => {
    const model = TopicModel.build({ weighting: 'seed', keywords: [], docs: DOCS.map((text) => ({ title: null, text })) });
    const top = new Map(model.topTerms(10));
    for (const [term, expected] of Object.entries(HAND)) close(top.get(term), expected, term);
    assert.deepEqual(model.topTerms(2).map(([t]) => t), ['tea', 'green']);
  });

  it('are undefined for nDoc ≤ 2: null, and the model falls back to weights of 1, saying so', () => {
    assert.equal(seedWeights([countTerms(['a', 'b'])]), null);
    assert.equal(seedWeights([countTerms(['a']), countTerms(['b'])]), null);
    const notices: string[] = [];
    const withKeywords = TopicModel.build({ weighting: 'seed', keywords: ['oolong', 'pot'], docs: DOCS.slice(0, 2).map((text) => ({ title: null, text })), notice: (l) => notices.push(l) });
    assert.deepEqual(withKeywords.topTerms(10), [['oolong', 1], ['pot', 1]], 'each keyword weighs 1; the two pages are not weighed');
    assert.ok(notices.some((l) => /at least 3 training documents/.test(l) && /each keyword weighs 1/.test(l)), notices.join('\n'));
    const noKeywords = TopicModel.build({ weighting: 'seed', keywords: [], docs: DOCS.slice(0, 2).map((text) => ({ title: null, text })) });
    assert.deepEqual(new Map(noKeywords.topTerms(10)), new Map([['tea', 1], ['green', 1], ['oolong', 1]]), 'without keywords, every term of the pages weighs 1');
  });
});
