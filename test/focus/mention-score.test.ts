/**
 * A keyword topic's relevance saturates in the count of mentions (issue 26:
 * the cosine of a page about the keywords sat at 0.05–0.3 against a
 * threshold of 0.2); what its links inherit saturates in their share of
 * the page's terms, so a long page naming the topic in passing passes on less.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mentionScores } from '../../src/focus/mention-score.js';
import { countTerms } from '../../src/focus/term-vector.js';

const KEYWORDS = new Set(['replication', 'standby']);
const page = (mentions: number, others: number): Map<string, number> =>
  countTerms([...Array<string>(mentions).fill('replication'), ...Array.from({ length: others }, (_, i) => `word${i % 500}`)]);

describe('mention scores', () => {
  it('puts one passing mention near the threshold and a page about the keywords near 1, whatever its length', () => {
    const once = mentionScores(page(1, 2000), KEYWORDS).score;
    assert.ok(once > 0.2 && once < 0.35, `${once}`);
    assert.ok(mentionScores(page(190, 5000), KEYWORDS).score > 0.99);
    assert.equal(mentionScores(page(0, 100), KEYWORDS).score, 0);
  });

  it('rates a short page that keeps to the keywords above a long one that names them as often', () => {
    const short = mentionScores(page(20, 300), KEYWORDS);
    const long = mentionScores(page(20, 10_000), KEYWORDS);
    assert.equal(short.score, long.score);
    assert.ok(short.density > 0.8 && long.density < 0.1, `${short.density} ${long.density}`);
  });
});
