/**
 * Stop words, built in (no network, no data files): English, French,
 * German and Spanish, and Chinese, Japanese and Korean. Short lists of
 * function words — articles, pronouns, particles, auxiliaries, conjunctions
 * — written for this crawler, in the forms the tokenizer (terms.ts) yields:
 * folded to lower case, Latin diacritics kept off, CJK as ICU cuts it.
 *
 * Dropped only for the languages present: the Latin-script lists overlap
 * with content words of the other languages (German `war`, `man`, `die`;
 * French `car`; Spanish `sin`), so a Latin-script language counts as
 * present in a text when its stop words make up a good share of the text's
 * Latin words, and at least half the share of the best-matching language —
 * function words are two words in five of running text, a foreign list
 * matches far fewer. Chinese, Japanese and Korean are known by their
 * scripts (Han, Kana, Hangul).
 */

import { foldTerm } from './terms.js';

export type Language = 'en' | 'fr' | 'de' | 'es' | 'zh' | 'ja' | 'ko';

const LISTS: Readonly<Record<Language, string>> = {
  en: `a about above after again against all also am an and any are as at be because been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers herself him himself his
    how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves
    s t don isn aren wasn weren doesn didn wouldn shouldn couldn`,
  fr: `le la les un une des du de et à a en au aux ce ces cet cette il elle ils elles nous vous je tu on ne pas que qui quoi dont où
    est sont été être avoir ont par pour sur dans avec sans sous plus moins ou mais donc car ni se sa son ses leur leurs y lui me te
    mon ma mes ton ta tes notre nos votre vos c d l j n s qu était fait comme aussi très tout tous toute toutes`,
  de: `der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind war waren sein seine hat haben hatte wird
    werden wurde mit von zu zum zur im in am an auf aus bei für über unter nach vor durch als auch es er sie wir ihr ich du man sich
    noch nur so wie wenn dass daß was wer wo um diese dieser dieses kann können sehr schon`,
  es: `el la los las un una unos unas de del y o pero no es son fue era ser estar está están en a al con por para sin sobre que quien
    como cuando donde se su sus lo le les me te mi tu nos muy más menos ya también este esta estos estas ese esa eso hay ha han`,
  zh: `的 了 是 在 和 与 及 或 也 都 就 而 又 但 被 把 对 从 向 于 以 为 之 其 这 那 这个 那个 这些 那些 这里 那里 一个 一些 我 你 他 她 它
    我们 你们 他们 她们 它们 自己 什么 怎么 为什么 哪 哪里 谁 没有 不 没 很 还 再 更 最 太 所以 因为 如果 虽然 但是 然后 而且 并且 或者
    还是 已经 正在 将 会 能 可以 要 应该 可能 得 地 着 过 吗 呢 吧 啊 呀 嘛 等 等等 个 些 每 各 此 该 并 且 则 即 就是 只 只是 也是 还有
    这样 那样 如何 如此 通过 进行 以及 由于 关于 对于 根据 其中 之一 有 给 让 跟 比 当 上 下 中 里`,
  ja: `の に は を た が で て と し れ さ ある いる も する から な こと として い や れる など なっ ない この ため その あっ よう また
    もの という あり まで られ なる へ か だ これ によって により おり より による ず なり られる において ば なかっ なく しかし について
    せ だっ できる それ う ので なお のみ でき き つ における および いう さらに でも ら たり ます ん です`,
  ko: `이 그 저 것 수 등 및 또는 그리고 그러나 하지만 또한 있다 없다 하다 되다 이다 있는 없는 하는 되는 그것 이것 저것 우리 너 나 그들 때 더 잘`,
};

/** Word → the languages whose list holds it (folded as terms are). */
const STOP = new Map<string, Language[]>();
for (const [lang, words] of Object.entries(LISTS) as Array<[Language, string]>) {
  for (const word of words.split(/\s+/)) {
    if (word === '') continue;
    const w = foldTerm(word);
    const langs = STOP.get(w);
    if (langs === undefined) STOP.set(w, [lang]);
    else if (!langs.includes(lang)) langs.push(lang);
  }
}

const LATIN: readonly Language[] = ['en', 'fr', 'de', 'es'];
/** A Latin-script language is present when its stop words are at least this share of the text's Latin words… */
const PRESENT_SHARE = 0.1;
/** … and at least this part of the share of the language matching best. */
const PRESENT_OF_BEST = 0.5;
/** … and the text has at least this many Latin words; shorter texts say nothing. */
const MIN_LATIN_WORDS = 20;

const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LATIN_WORD = /^[a-z\p{Script=Latin}]/u;

/** The languages of built-in lists. */
export const STOP_WORD_LANGUAGES: readonly Language[] = Object.keys(LISTS) as Language[];

/** The languages present in a text's terms (see the file's comment). */
export function languagesOf(terms: readonly string[]): Set<Language> {
  const found = new Set<Language>();
  const hits = new Map<Language, number>();
  let latin = 0;
  for (const t of terms) {
    if (LATIN_WORD.test(t)) {
      latin++;
      for (const lang of STOP.get(t) ?? []) hits.set(lang, (hits.get(lang) ?? 0) + 1);
    } else if (!found.has('ja') && KANA.test(t)) found.add('ja');
    else if (!found.has('zh') && HAN.test(t)) found.add('zh');
    else if (!found.has('ko') && HANGUL.test(t)) found.add('ko');
  }
  if (latin >= MIN_LATIN_WORDS) {
    const best = Math.max(0, ...hits.values());
    for (const lang of LATIN) {
      const n = hits.get(lang) ?? 0;
      if (n >= PRESENT_SHARE * latin && n >= PRESENT_OF_BEST * best) found.add(lang);
    }
  }
  return found;
}

/** Whether `term` is a stop word of one of `languages`. */
export function isStopWord(term: string, languages: ReadonlySet<Language>): boolean {
  const langs = STOP.get(term);
  if (langs === undefined) return false;
  for (const l of langs) if (languages.has(l)) return true;
  return false;
}

/** `terms` without the stop words of `languages`. */
export function withoutStopWords(terms: readonly string[], languages: ReadonlySet<Language>): string[] {
  return terms.filter((t) => !isStopWord(t, languages));
}
