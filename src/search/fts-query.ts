/**
 * A parsed query as an FTS5 MATCH expression. User text only ever appears
 * inside FTS5 string literals (double quotes, a quote doubled), so none of
 * its characters can act as an operator; the structure around them is
 * built here.
 *
 * A term matches when its words appear, adjacent and in order, in the
 * title or the body (`{title body} : "…"`, the text prepared like a page's:
 * text-prep.ts). A term written in Han, Kana or Hangul only also matches
 * as a phrase of its character bigrams in the `cjk` column, where ICU's
 * cut of the page does not matter (a one-character term: bigrams starting
 * with it). Terms are ANDed, exclusions subtracted with FTS5's NOT.
 *
 * For an unquoted query of several words, `boost` is the phrase of all of
 * them: the store ranks the pages holding that phrase first, so the page
 * that alone contains a phrase typed without quotes comes first.
 */
import type { ParsedQuery, QueryTerm } from './query-parse.js';
import { bigramsOf, normalizeText, segmentText } from './text-prep.js';

export interface FtsQuery {
  /** The MATCH expression; null when nothing can match (no required term). */
  match: string | null;
  /** Pages matching this expression rank first; null when there is none. */
  boost: string | null;
  /** The terms' texts as normalised, for marking a snippet the engine left unmarked. */
  needles: string[];
}

const BIGRAM_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005]/u;
const BIGRAM_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005]+/gu;
const OTHER_WORD_CHAR = /[\p{L}\p{N}]/u;

export function ftsQuery(q: ParsedQuery): FtsQuery {
  const needles = q.must.map((t) => normalizeText(t.text).trim()).filter((t) => t !== '');
  if (q.must.length === 0) return { match: null, boost: null, needles };
  const must = q.must.map(termExpr);
  let match = must.length === 1 ? must[0]! : must.map((e) => `(${e})`).join(' AND ');
  if (q.not.length > 0) match = `(${match}) NOT (${q.not.map((t) => `(${termExpr(t)})`).join(' OR ')})`;
  const plain = q.must.filter((t) => !t.phrase);
  const boost = plain.length >= 2 && plain.length === q.must.length ? textPhrase(plain.map((t) => t.text).join(' ')) : null;
  return { match, boost, needles };
}

function termExpr(term: QueryTerm): string {
  const text = textPhrase(term.text);
  const cjk = bigramPhrase(normalizeText(term.text));
  return cjk === null ? text : `${text} OR ${cjk}`;
}

/** The term as a phrase of the title and body columns. */
function textPhrase(raw: string): string {
  return `{title body} : ${ftsString(segmentText(normalizeText(raw)))}`;
}

/**
 * The term as a phrase of bigrams in the `cjk` column, when its letters and
 * digits are all in the bigram scripts; null otherwise (a mixed term such
 * as "Unicode字符" is matched through the text columns only).
 */
function bigramPhrase(text: string): string | null {
  if (!BIGRAM_SCRIPT.test(text)) return null;
  if (OTHER_WORD_CHAR.test(text.replace(BIGRAM_RUNS, ''))) return null;
  const bigrams: string[] = [];
  for (const m of text.matchAll(BIGRAM_RUNS)) bigrams.push(...bigramsOf(m[0]));
  const one = bigrams.length === 1 && Array.from(bigrams[0]!).length === 1;
  return one ? `cjk : ${ftsString(bigrams[0]!)}*` : `cjk : ${ftsString(bigrams.join(' '))}`;
}

/** An FTS5 string literal: the text in double quotes, a quote doubled. */
export function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}
