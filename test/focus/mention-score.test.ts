/**
 * A keyword topic's relevance saturates in the count of mentions (issue 26:
 * the cosine of a page about the keywords sat at 0.05–0.3 against a
 * threshold of 0.2); what its links inherit saturates in their share of
 * the page's terms, so a long page naming the topic in passing passes on less.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkScore } from '../../src/focus/link-priority.js';
import { mentionScores, shortMentionScore } from '../../src/focus/mention-score.js';
import { TopicModel } from '../../src/focus/topic-model.js';
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

/**
 * Issue 26, second round: a link whose anchor or URL names a keyword led to
 * a relevant page 94–100% of the time on five real documentation sites, but
 * its cosine (one keyword in a two-word anchor, four keywords: 0.71) was no
 * more than what an evidence-free link inherits from a page that keeps to
 * the topic (0.7), so the crawl fetched them in a mixed order.
 */
describe('keyword evidence of a short text', () => {
  it('saturates fast: 1 − exp(−2m)', () => {
    assert.equal(shortMentionScore(countTerms(['master', 'journal']), new Set(['journal', 'wal'])), 1 - Math.exp(-2));
    // 1 − e^−2 = 0.864665; two mentions 1 − e^−4 = 0.981684.
    assert.ok(Math.abs(shortMentionScore(countTerms(['wal', 'checkpoint']), new Set(['wal', 'checkpoint'])) - 0.981684) < 1e-6);
    assert.equal(shortMentionScore(countTerms(['download', 'page']), new Set(['wal'])), 0);
  });

  it('puts an anchor that names one of four keywords above the cosine it had, and a link with it above any link without', () => {
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['journal', 'wal', 'checkpoint', 'rollback'], docs: [] });
    // The cosine of "master journal" with four keywords of weight 1: 1 / (√2 · 2) = 0.353553, over that of
    // the heaviest term alone (1 / 2): 0.707107. The keyword evidence, 0.864665, is larger.
    const anchor = model.shortTextScore(model.prepareTerms(['master', 'journal'], model.languages));
    assert.ok(Math.abs(anchor - 0.864665) < 1e-6, `${anchor}`);
    // On an off-topic page (inherited 0): 0.864665; no words on the topic, on a page all about it (inherited 1): 0.7.
    assert.ok(linkScore(0, { anchor, around: 0, url: 0 }) > linkScore(1, { anchor: 0, around: 0, url: 0 }));
    assert.ok(Math.abs(linkScore(1, { anchor: 0, around: 0, url: 0 }) - 0.7) < 1e-9);
  });
});

/**
 * Issue 26, third round: a book's table of contents on a held-out site
 * (Berkeley DB) named the topic in seven of its forty entries, so its
 * density gave every entry 0.65 to inherit, and the crawl fetched the whole
 * list in order, above the links of the pages about the topic. The words of
 * a page's anchors are the links' own evidence, not the page's: they are
 * left out of what the links inherit, and the rest stays a share of all the
 * page's terms.
 */
describe('what a page of links passes on', () => {
  const tocAnchors = (): Map<string, number> => countTerms([...Array<string>(7).fill('replication'), ...Array.from({ length: 193 }, (_, i) => `entry${i}`)]);

  it('passes nothing on for keywords that are all in its anchors, and keeps its relevance', () => {
    const toc = page(7, 200);
    const whole = mentionScores(toc, KEYWORDS);
    const prose = mentionScores(toc, KEYWORDS, tocAnchors());
    assert.equal(prose.score, whole.score);
    assert.ok(whole.density > 0.6, `${whole.density}`);
    assert.equal(prose.density, 0);
  });

  it('keeps the density of keywords its prose holds, over all its terms', () => {
    const article = page(40, 400);
    const oneLink = countTerms(['replication', 'setup']);
    const d = mentionScores(article, KEYWORDS, oneLink).density;
    assert.ok(Math.abs(d - (1 - Math.exp(-39 / 440 / 0.03))) < 1e-12, `${d}`);
  });

  it('leaves anchors out of the focus of a keyword topic\'s model too, not out of its relevance', () => {
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['replication', 'standby'], docs: [] });
    const text = model.preparePage({ title: 'Contents', text: `${'Replication setup. '.repeat(7)}${Array.from({ length: 60 }, (_, i) => `chapter${i}`).join(' ')}` });
    const anchors = model.linkedTerms(['replication setup', 'replication setup', 'replication setup', 'replication setup', 'replication setup', 'replication setup', 'replication setup'], text.languages);
    const whole = model.judge(text);
    const prose = model.judge(text, anchors);
    assert.equal(prose.relevance, whole.relevance);
    assert.ok(whole.focus > 0.3, `${whole.focus}`);
    assert.equal(prose.focus, 0);
  });
});

describe('a keyword inside an identifier', () => {
  it('counts as most of a mention in an anchor or URL', () => {
    const s = shortMentionScore(countTerms(['dbcursor', 'close']), new Set(['cursor', 'cursors']));
    assert.ok(Math.abs(s - (1 - Math.exp(-0.75 / 0.5))) < 1e-12, `${s}`);
    assert.ok(s < shortMentionScore(countTerms(['cursor', 'close']), new Set(['cursor'])));
  });

  it('is not looked for when the keyword is shorter than four letters', () => {
    assert.equal(shortMentionScore(countTerms(['walkthrough']), new Set(['wal'])), 0);
    assert.ok(shortMentionScore(countTerms(['pg', 'walfile']), new Set(['wal', 'walfile'])) > 0.8);
  });
});
