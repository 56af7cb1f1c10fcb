/**
 * What the full-text engine is given for a page's title and text, and for
 * the words of a query, so that both are cut into the same words.
 *
 * SQLite's `unicode61` tokenizer (see search-store.ts) folds case, folds
 * Latin diacritics and splits at every character that is not a letter or a
 * digit, but it neither normalises nor splits scripts written without
 * spaces: a Chinese sentence would be one token. So before it sees a
 * string, this module
 *   1. normalises it to NFKC (full-width Ａ → A, ligatures, compatibility
 *      ideographs);
 *   2. removes C0 control characters (the snippet markers are two of them);
 *   3. cuts every run of Han, Hiragana, Katakana, Thai, Lao, Khmer or
 *      Myanmar characters into words with ICU's dictionary segmenter
 *      (Intl.Segmenter, word granularity) and puts U+200B ZERO WIDTH SPACE
 *      between the words and around the run: unicode61 splits there (U+200B
 *      is a format character, not a letter), and the text still reads the
 *      same in a snippet.
 * Besides, the Han, Kana and Hangul characters of a page are written out
 * as overlapping bigrams in a column of their own (`cjk`): ICU cuts the
 * same characters differently depending on what surrounds them (档案馆示例站点
 * gives 站|点, while 站点 alone is one word), and Korean glues particles to
 * words, so a query word in these scripts also matches as a phrase of its
 * bigrams there.
 */

/** Scripts ICU segments with a dictionary: no spaces between words. */
const SEGMENTED_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\u3005]+/gu;
/** Scripts also indexed as character bigrams (Han, Kana, Hangul). */
const BIGRAM_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005]+/gu;
/** A quick test before the regular expressions above: any character at or past U+0E00 (Thai). */
const MAYBE_SEGMENTED = /[\u0E00-\uFFFF]/;
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/;
/** Not ASCII: only then can NFKC change anything. */
const NOT_ASCII = /[^\u0000-\u007F]/;

export const WORD_SEPARATOR = '\u200B';

/**
 * ICU word segmentation; the locale only picks among equivalent dictionaries for these scripts.
 * Made on first use: loading ICU's dictionaries costs every process that imports this module
 * (a crawl's threads) ~20 ms and their memory, for text most pages do not have.
 */
let segmenter: Intl.Segmenter | null = null;

/** NFKC, no control characters, runs of unspaced scripts cut into words (see the file's comment). */
export function prepareText(s: string): string {
  return segmentText(normalizeText(s));
}

/** Steps 1 and 2: NFKC, control characters made spaces. */
export function normalizeText(s: string): string {
  const out = NOT_ASCII.test(s) ? s.normalize('NFKC') : s;
  return HAS_CONTROL.test(out) ? out.replace(CONTROL, ' ') : out;
}

/** Step 3, on normalised text: U+200B between the words of unspaced runs. */
export function segmentText(s: string): string {
  if (!MAYBE_SEGMENTED.test(s)) return s;
  return s.replace(SEGMENTED_RUN, (run) => WORD_SEPARATOR + segmentWords(run).join(WORD_SEPARATOR) + WORD_SEPARATOR);
}

/** The words of one run of an unspaced script, in order (punctuation left out). */
export function segmentWords(run: string): string[] {
  const words: string[] = [];
  for (const s of (segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' })).segment(run)) if (s.isWordLike) words.push(s.segment);
  return words;
}

/**
 * The overlapping character bigrams of every Han/Kana/Hangul run in `s`
 * (normalised, not segmented), space-separated; a run of one character is given as
 * itself. Runs are separated by a newline, which is no more than a
 * separator to the tokenizer: a bigram phrase cannot span two runs because
 * the bigram across the gap is never written.
 */
export function cjkBigrams(s: string): string {
  if (!MAYBE_SEGMENTED.test(s)) return '';
  const runs: string[] = [];
  for (const m of s.matchAll(BIGRAM_RUN)) runs.push(bigramsOf(m[0]).join(' '));
  return runs.join('\n');
}

/** Bigrams of one run (code points, not UTF-16 units: Han extension B lies beyond the BMP). */
export function bigramsOf(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length === 1) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/** True when `s` holds a character indexed as bigrams. */
export function hasCjk(s: string): boolean {
  BIGRAM_RUN.lastIndex = 0;
  const found = BIGRAM_RUN.test(s);
  BIGRAM_RUN.lastIndex = 0;
  return found;
}

/** What a page's row holds: title and body as prepared, and the bigrams of both. */
export interface PreparedPage {
  title: string;
  body: string;
  cjk: string;
}

export function preparePage(title: string, text: string): PreparedPage {
  const t = normalizeText(title);
  const b = normalizeText(text);
  const cjkTitle = cjkBigrams(t);
  const cjkBody = cjkBigrams(b);
  return { title: segmentText(t), body: segmentText(b), cjk: cjkTitle && cjkBody ? `${cjkTitle}\n${cjkBody}` : cjkTitle || cjkBody };
}
