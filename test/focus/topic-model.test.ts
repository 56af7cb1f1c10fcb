/**
 * The topic model: smoothed tf-idf weights (checked by hand on two
 * documents), keywords alone weighing 1 each (and told), relevance as the
 * cosine of a page's vector with the topic, Chinese text cut into words,
 * and a model that survives toJSON / fromJSON unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopicModel } from '../../src/focus/topic-model.js';
import { smoothIdf } from '../../src/focus/tfidf-weights.js';
import { termsOf } from '../../src/focus/terms.js';

describe('topic model, tf-idf', () => {
  it('weighs the centroid of unit tf-idf vectors with idf = ln((1 + N) / (1 + df)) + 1', () => {
    // N = 2. idf(tea) = ln(3/3) + 1 = 1; idf(green) = idf(pot) = ln(3/2) + 1 = 1.405465.
    // d1 "tea tea green": (tea 2, green 1.405465), length sqrt(4 + 1.975332) = 2.444449
    //   → tea 0.818181, green 0.574960.
    // d2 "tea pot": (tea 1, pot 1.405465), length sqrt(1 + 1.975332) = 1.724915 → tea 0.579739, pot 0.814797.
    // centroid: tea (0.818181 + 0.579739) / 2 = 0.698960, green 0.287480, pot 0.407399.
    assert.ok(Math.abs(smoothIdf(2, 1) - 1.405465) < 1e-6);
    const model = TopicModel.build({ weighting: 'tfidf', keywords: [], docs: [{ title: null, text: 'tea tea green' }, { title: null, text: 'tea pot' }] });
    const w = new Map(model.topTerms(5));
    for (const [t, expected] of [['tea', 0.69896], ['pot', 0.407399], ['green', 0.28748]] as const) {
      assert.ok(Math.abs(w.get(t)! - expected) < 1e-5, `${t}: ${w.get(t)}`);
    }
    assert.deepEqual(model.topTerms(3).map(([t]) => t), ['tea', 'pot', 'green']);
  });

  it('takes keywords alone as a topic of weights 1, and says so', () => {
    const notices: string[] = [];
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['Telescope', 'galaxy  orbit'], docs: [], notice: (l) => notices.push(l) });
    assert.deepEqual(new Map(model.topTerms(10)), new Map([['telescope', 1], ['galaxy', 1], ['orbit', 1]]));
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /keywords alone: each of its 3 term\(s\) weighs 1/);
  });

  it('scores pages by cosine: on-topic above off-topic, nothing shared is 0, the topic itself 1', () => {
    const model = TopicModel.build({ weighting: 'seed', keywords: ['telescope'], docs: [] });
    assert.equal(model.relevance(model.preparePage({ title: null, text: 'telescope' })), 1);
    const on = model.relevance(model.preparePage({ title: 'The telescope', text: 'A telescope and its mirror' }));
    const off = model.relevance(model.preparePage({ title: 'Bread', text: 'Flour, water and a telescope for the oven and the bakery and more bread' }));
    assert.ok(on > off && off > 0, `${on} > ${off} > 0`);
    assert.equal(model.relevance(model.preparePage({ title: 'Bread', text: 'flour water salt' })), 0);
  });

  it('learns a Chinese topic: words cut by ICU, stop words dropped, tea pages above football pages', () => {
    const tea = [
      { title: '绿茶的冲泡', text: '绿茶的冲泡需要合适的水温，茶叶在茶壶里慢慢舒展，茶汤清香。' },
      { title: '乌龙茶与茶园', text: '乌龙茶来自高山茶园，茶农采摘嫩芽，经过发酵和烘焙，茶香浓郁。' },
      { title: '普洱茶的陈化', text: '普洱茶的茶饼需要陈化，茶汤回甘，茶具以紫砂茶壶为佳。' },
    ];
    const model = TopicModel.build({ weighting: 'tfidf', keywords: [], docs: tea });
    assert.ok(model.languages.has('zh'));
    const terms = model.topTerms(1000).map(([t]) => t);
    assert.ok(!terms.includes('的'), 'a Chinese stop word is dropped');
    assert.ok(terms.includes('乌龙茶') && terms.includes('发酵') && terms.includes('茶壶'), terms.join(' '));
    const teaPage = model.relevance(model.preparePage({ title: '红茶', text: '红茶的茶叶经过发酵，茶汤红亮，用茶壶冲泡，水温要高，茶香持久。' }));
    const footballPage = model.relevance(model.preparePage({ title: '足球比赛', text: '球队在主场比赛，前锋射门进球，守门员没有扑出点球，球迷欢呼。' }));
    assert.ok(teaPage > 0.2 && footballPage < 0.05, `tea ${teaPage}, football ${footballPage}`);
    // An anchor as short as a title scores on a page's scale.
    const anchorOn = model.shortTextScore(model.prepareTerms(termsOf('乌龙茶的冲泡'), model.languages));
    const anchorOff = model.shortTextScore(model.prepareTerms(termsOf('球队进球'), model.languages));
    assert.ok(anchorOn > 0.5 && anchorOff === 0, `${anchorOn} / ${anchorOff}`);
  });

  it('is the same model after toJSON / fromJSON', () => {
    const model = TopicModel.build({ weighting: 'tfidf', keywords: ['pot'], docs: [{ title: 'Tea', text: 'tea tea green' }, { title: 'Pots', text: 'tea pot' }] });
    const back = TopicModel.fromJSON(JSON.parse(JSON.stringify(model.toJSON())))!;
    assert.deepEqual(back.topTerms(10), model.topTerms(10));
    const page = { title: 'green tea', text: 'a green tea in a pot' };
    assert.equal(back.relevance(back.preparePage(page)), model.relevance(model.preparePage(page)));
    assert.equal(back.shortTextScore(back.prepareTerms(['tea'], back.languages)), model.shortTextScore(model.prepareTerms(['tea'], model.languages)));
    assert.equal(TopicModel.fromJSON({ version: 2 }), null);
    assert.equal(TopicModel.fromJSON('nonsense'), null);
  });
});
