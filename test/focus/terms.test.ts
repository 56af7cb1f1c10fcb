/**
 * Words as the topic model counts them: NFKC, case folded, Latin diacritics
 * off, Chinese and Japanese cut by ICU as the archive search cuts them,
 * digits and single Latin letters dropped; a URL's words; and stop words
 * dropped only for the languages a text is in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStopWord, languagesOf, withoutStopWords } from '../../src/focus/stop-words.js';
import { termsOf, urlTerms } from '../../src/focus/terms.js';
import { segmentWords } from '../../src/search/text-prep.js';

describe('terms', () => {
  it('fold case, width and Latin diacritics; drop digits and single letters', () => {
    assert.deepEqual(termsOf('Café ÜBER déjà-vu, Ｔｅａ 2024 a x1 B'), ['cafe', 'uber', 'deja', 'vu', 'tea', 'x1']);
  });

  it('cut Chinese as the search does (ICU words), keep single Han characters', () => {
    const text = '我们喜欢绿茶和乌龙茶';
    const want = segmentWords(text);
    assert.deepEqual(termsOf(text), want);
    assert.ok(want.includes('绿茶') && want.includes('乌龙茶'), want.join('|'));
    assert.ok(termsOf('茶').includes('茶'));
  });

  it('take a URL\'s host labels, path and query words, percent-decoded', () => {
    assert.deepEqual(urlTerms('https://www.tea-house.example.org/green/%E7%BB%BF%E8%8C%B6-guide.html?topic=oolong&page=2'), [
      'tea', 'house', 'example', 'green', '绿茶', 'guide', 'oolong',
    ]);
    assert.deepEqual(urlTerms('http://127.0.0.1:8080/p/12.html'), []);
  });
});

describe('stop words', () => {
  const english = termsOf('The war was over and the man said that it was the end of the war for all of the people in the town, as they had hoped for years.');
  const german = termsOf('Der Krieg war vorbei und der Mann sagte, dass es das Ende des Krieges für alle Menschen in der Stadt war, wie sie es gehofft hatten.');

  it('are dropped for the languages present, judged by their share of the words', () => {
    assert.deepEqual([...languagesOf(english)], ['en']);
    assert.deepEqual([...languagesOf(german)], ['de']);
    const kept = withoutStopWords(english, languagesOf(english));
    // German `war` and `man` are stop words of German only: in English text they stay.
    assert.ok(kept.includes('war') && kept.includes('man'), kept.join(' '));
    assert.ok(!kept.includes('the') && !kept.includes('was'));
    assert.ok(!withoutStopWords(german, languagesOf(german)).includes('war'));
  });

  it('know Chinese, Japanese and Korean by their scripts', () => {
    assert.deepEqual([...languagesOf(termsOf('我们的茶'))], ['zh']);
    assert.ok(languagesOf(termsOf('これはお茶です')).has('ja'));
    assert.ok(languagesOf(termsOf('그리고 차')).has('ko'));
    assert.ok(isStopWord('的', new Set(['zh'])) && !isStopWord('的', new Set(['en'])));
    assert.deepEqual(withoutStopWords(termsOf('我们的绿茶'), new Set(['zh'])), ['绿茶']);
  });

  it('say nothing of a text too short to judge', () => {
    assert.equal(languagesOf(termsOf('the war')).size, 0);
  });
});
