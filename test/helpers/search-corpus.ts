/**
 * Synthetic page text for the search tests and benchmark: words of a
 * made-up vocabulary drawn with Zipf's law (a few words on every page,
 * most on few), so that phrases repeat across pages as in real text, and
 * Chinese sentences drawn from a list of common words. Deterministic for a
 * given random source.
 */

const SYLLABLES = ['ka', 'to', 'ri', 'mo', 'na', 'se', 'lu', 'pe', 'di', 'gra', 'vin', 'tor', 'el', 'os', 'am', 'qui', 'zen', 'bar', 'lo', 'mi'];

/** Common Chinese words (two characters mostly), for CJK pages. */
export const CHINESE_WORDS = [
  '网络', '档案', '历史', '今天', '明天', '读者', '图书馆', '收藏', '网站', '页面', '保存', '城市', '河流', '山水', '文化',
  '记忆', '新闻', '研究', '学生', '老师', '时间', '世界', '国家', '人民', '经济', '社会', '科学', '技术', '音乐', '艺术',
];

export class SearchCorpus {
  /** The vocabulary, most frequent first. */
  readonly words: string[];
  readonly #cumulative: Float64Array;
  readonly #rng: () => number;

  constructor(rng: () => number, vocabularySize = 50_000, zipfExponent = 1.0) {
    this.#rng = rng;
    this.words = [];
    for (let i = 0; i < vocabularySize; i++) {
      let w = '';
      let x = i + 1;
      do {
        w += SYLLABLES[x % SYLLABLES.length];
        x = Math.floor(x / SYLLABLES.length);
      } while (x > 0);
      this.words.push(w);
    }
    this.#cumulative = new Float64Array(vocabularySize);
    let total = 0;
    for (let i = 0; i < vocabularySize; i++) {
      total += 1 / Math.pow(i + 1, zipfExponent);
      this.#cumulative[i] = total;
    }
  }

  /** A word index drawn by Zipf's law. */
  wordId(): number {
    const r = this.#rng() * this.#cumulative[this.#cumulative.length - 1]!;
    let lo = 0;
    let hi = this.#cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Word ids of a text of about `chars` characters. */
  textIds(chars: number): number[] {
    const ids: number[] = [];
    let len = 0;
    while (len < chars) {
      const id = this.wordId();
      ids.push(id);
      len += this.words[id]!.length + 1;
    }
    return ids;
  }

  /** Ids as text: sentences of 8-15 words, capitalised, with full stops. */
  render(ids: readonly number[]): string {
    const out: string[] = [];
    let inSentence = 0;
    let sentenceLength = 8 + Math.floor(this.#rng() * 8);
    for (const id of ids) {
      let w = this.words[id]!;
      if (inSentence === 0) w = w.charAt(0).toUpperCase() + w.slice(1);
      inSentence++;
      if (inSentence === sentenceLength) {
        w += '.';
        inSentence = 0;
        sentenceLength = 8 + Math.floor(this.#rng() * 8);
      }
      out.push(w);
    }
    return out.join(' ');
  }

  /** A Chinese text of `words` words, no spaces, a full stop every few words. */
  chinese(words: number): string {
    let s = '';
    for (let i = 0; i < words; i++) {
      s += CHINESE_WORDS[Math.floor(this.#rng() * CHINESE_WORDS.length)]!;
      if (i % 7 === 6) s += '。';
    }
    return s;
  }
}
