/**
 * A page's relevance to a topic named by keywords: how often it mentions
 * them, saturating. The cosine of a page with a handful of keywords is
 * small however much the page is about them (a page of 5,000 words that
 * names "replication" 190 times scored 0.05–0.3, below or about the
 * default threshold of 0.2: issue 26), because every other word of the
 * page lengthens its vector. Counting instead:
 *
 *   score = 1 − exp(−m / MENTIONS_SCALE)
 *
 * with m the keyword terms' count in the page (a title's counted twice, as
 * for the cosine): 1 mention 0.28, 2 0.49, 3 0.63, 5 0.81, 10 0.96. One
 * passing mention is at the threshold's edge, a page that keeps to the
 * topic near 1, whatever its length.
 *
 * What a page's links inherit is another matter: a long reference page
 * or an index that names the topic a hundred times among ten thousand
 * words links mostly elsewhere. So the links inherit the same saturation
 * of the keywords' share of the page's terms (`density`): 3% gives 0.63.
 *
 * A short text (a link's anchor, its URL's words) that names a keyword at
 * all is strong evidence: on five Debian documentation sites, 94–100% of
 * the links whose anchor or URL held a topic word led to a relevant page,
 * against 3–38% of the others, whatever the relevance of the page they sat
 * on. Its cosine says much less (one keyword in a two-word anchor, for a
 * topic of four keywords: 0.71 — no more than what a link inherits from a
 * page that keeps to the topic), so it counts on its own, saturating fast:
 * `1 − exp(−m / SHORT_MENTIONS_SCALE)`, 1 mention 0.86, 2 0.98.
 */
import type { TermVector } from './term-vector.js';

/** The number of mentions that gives 1 − 1/e ≈ 0.63. */
export const MENTIONS_SCALE = 3;
/** The mentions in a short text (anchor, URL) that give 1 − 1/e. */
export const SHORT_MENTIONS_SCALE = 0.5;
/** The share of a page's terms that gives 1 − 1/e: how much the page keeps to the keywords. */
export const DENSITY_SCALE = 0.03;

export interface Mentions {
  /** Saturating in the count: the page's relevance. */
  score: number;
  /** Saturating in the count's share of the page's terms: how closely the page keeps to the topic (what its links inherit). */
  density: number;
}

/** The mention scores of a text's counts for `keywords` (terms as cut by terms.ts). */
export function mentionScores(counts: TermVector, keywords: ReadonlySet<string>): Mentions {
  let m = 0;
  for (const k of keywords) m += counts.get(k) ?? 0;
  if (m === 0) return { score: 0, density: 0 };
  let terms = 0;
  for (const n of counts.values()) terms += n;
  return { score: 1 - Math.exp(-m / MENTIONS_SCALE), density: 1 - Math.exp(-m / terms / DENSITY_SCALE) };
}

/** A short text's keyword evidence (anchor, URL): see the file's comment. */
export function shortMentionScore(counts: TermVector, keywords: ReadonlySet<string>): number {
  let m = 0;
  for (const k of keywords) m += counts.get(k) ?? 0;
  return m === 0 ? 0 : 1 - Math.exp(-m / SHORT_MENTIONS_SCALE);
}
