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
 * The density leaves out the keywords of the page's link anchors (`linked`),
 * still as a share of all its terms:
 * a table of contents that names the topic in three of its hundred entries
 * is no page about the topic — those three links carry their own evidence
 * (below), and the other ninety-seven inherited 0.65 from it (issue 26: on
 * a held-out site a book's contents page handed its whole list, in order,
 * a rank above every link of the pages about the topic). A page whose
 * prose names the topic keeps its density whatever its links say.
 *
 * A short text (a link's anchor, its URL's words) that names a keyword at
 * all is strong evidence: on five Debian documentation sites, 94–100% of
 * the links whose anchor or URL held a topic word led to a relevant page,
 * against 3–38% of the others, whatever the relevance of the page they sat
 * on. Its cosine says much less (one keyword in a two-word anchor, for a
 * topic of four keywords: 0.71 — no more than what a link inherits from a
 * page that keeps to the topic), so it counts on its own, saturating fast:
 * `1 − exp(−m / SHORT_MENTIONS_SCALE)`, 1 mention 0.86, 2 0.98; a keyword
 * inside a longer word (an identifier) counts INFIX_MENTION.
 */
import type { TermVector } from './term-vector.js';

/** The number of mentions that gives 1 − 1/e ≈ 0.63. */
export const MENTIONS_SCALE = 3;
/** The mentions in a short text (anchor, URL) that give 1 − 1/e. */
export const SHORT_MENTIONS_SCALE = 0.5;
/**
 * A keyword inside a longer term of a short text — an identifier glued
 * together (`DBcursor->close`, `PutEntryWCursor.html`, `pg_walfile`) — counts
 * as this much of a mention (0.78 alone). On eight Debian documentation
 * sites, 43 of the 49 pages whose URL held a keyword only inside a longer
 * word were relevant. Keywords shorter than MIN_INFIX_CHARS are not looked
 * for inside words (too many words hold them by chance).
 */
export const INFIX_MENTION = 0.75;
export const MIN_INFIX_CHARS = 4;
/** The share of a page's terms that gives 1 − 1/e: how much the page keeps to the keywords. */
export const DENSITY_SCALE = 0.03;

export interface Mentions {
  /** Saturating in the count: the page's relevance. */
  score: number;
  /** Saturating in the count's share of the page's terms: how closely the page keeps to the topic (what its links inherit). */
  density: number;
}

/** The mention scores of a text's counts for `keywords` (terms as cut by terms.ts); `linked`: its anchors' counts, left out of the density. */
export function mentionScores(counts: TermVector, keywords: ReadonlySet<string>, linked?: TermVector): Mentions {
  let m = 0;
  let inAnchors = 0;
  for (const k of keywords) {
    const n = counts.get(k) ?? 0;
    m += n;
    // Anchors are cut to their first 100 characters and may hold alt text: never more than the page.
    inAnchors += Math.min(n, linked?.get(k) ?? 0);
  }
  if (m === 0) return { score: 0, density: 0 };
  let terms = 0;
  for (const n of counts.values()) terms += n;
  // A share of all the page's terms: a page of links with a line of prose is mostly links.
  const prose = m - inAnchors;
  return { score: 1 - Math.exp(-m / MENTIONS_SCALE), density: 1 - Math.exp(-prose / terms / DENSITY_SCALE) };
}

/** A short text's keyword evidence (anchor, URL): see the file's comment. */
export function shortMentionScore(counts: TermVector, keywords: ReadonlySet<string>): number {
  let m = 0;
  for (const [t, n] of counts) {
    if (keywords.has(t)) m += n;
    else if (t.length > MIN_INFIX_CHARS && holdsKeyword(t, keywords)) m += INFIX_MENTION * n;
  }
  return m === 0 ? 0 : 1 - Math.exp(-m / SHORT_MENTIONS_SCALE);
}

function holdsKeyword(term: string, keywords: ReadonlySet<string>): boolean {
  for (const k of keywords) if (k.length >= MIN_INFIX_CHARS && term.includes(k)) return true;
  return false;
}
