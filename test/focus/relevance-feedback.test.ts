/**
 * Relevance feedback: the words that the relevant pages share, and the rest
 * of the crawl does not, join a keyword topic — bounded in number and
 * weight, never the keywords again, nothing before WIDEN_EVERY relevant
 * pages, contrasted with the irrelevant ones — and the widened topic scores a short text on them while a text
 * of the keywords scores as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TERMS, RelevanceFeedback, TERM_WEIGHT, WIDEN_EVERY } from '../../src/focus/relevance-feedback.js';
import { countTerms } from '../../src/focus/term-vector.js';
import { TopicModel } from '../../src/focus/topic-model.js';

const relevantPage = (i: number): Map<string, number> => countTerms(['replication', 'standby', 'primary', 'slot', 'archive', `page${i}`, 'server', 'the']);
const otherPage = (i: number): Map<string, number> => countTerms(['table', 'index', 'query', `other${i}`, 'server', 'the']);

describe('relevance feedback', () => {
  it('widens with the terms the relevant pages share and the others lack, every WIDEN_EVERY relevant pages', () => {
    const f = new RelevanceFeedback(new Set(['replication', 'standby']), 0.2);
    let due = 0;
    for (let i = 0; i < 40; i++) if (f.page(otherPage(i), 0)) due++;
    for (let i = 0; i < WIDEN_EVERY; i++) if (f.page(relevantPage(i), 0.9)) due++;
    assert.equal(due, 1, 'due once, at the tenth relevant page');
    const added = f.widen();
    assert.deepEqual(added.map(([t]) => t).sort(), ['archive', 'primary', 'slot']);
    assert.ok(added.every(([, w]) => w <= TERM_WEIGHT) && added.length <= MAX_TERMS);
    assert.equal(f.page(relevantPage(99), 0.9), false, 'counting starts again after a widening');
  });

  it('gives a widened topic the new terms and keeps a keyword text\'s score', () => {
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['replication', 'standby'], docs: [] });
    const wider = model.widen([['primary', 0.5]]);
    const short = (m: TopicModel, text: string): number => m.shortTextScore(m.prepareTerms(text.split(' '), m.languages));
    assert.equal(short(model, 'primary server'), 0);
    assert.ok(short(wider, 'primary server') > 0.2);
    assert.equal(short(wider, 'replication'), short(model, 'replication'));
    assert.equal(TopicModel.fromJSON(wider.toJSON())!.size, 3, 'kept as data (a resume)');
  });
});
