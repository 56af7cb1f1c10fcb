/**
 * How promising a link is, after shark-search (Hersovici et al. 1998): a
 * score in [0, 1] that mixes what the link inherits from the page it was
 * found on with what its neighbourhood says.
 *
 * - inherited: the page's relevance when the page is relevant; otherwise
 *   the larger of its relevance and DECAY × the page's own score, so a run
 *   of irrelevant pages fades (tunnelling, a little at a time);
 * - neighbourhood: the relevance to the topic of the link's anchor text
 *   (ANCHOR_SHARE) and of its URL's words (URL_SHARE), both short texts put
 *   on the scale of a page's relevance (TopicModel.shortTextScore), and of
 *   the words around it (AROUND_SHARE);
 * - score = INHERITED_SHARE × inherited + (1 − INHERITED_SHARE) × neighbourhood.
 *
 * The score becomes `CrawlUri.priority` as SCORED_BASE + score, so every
 * scored URI ranks above a sitemap's lastmod (a fraction of 1) and below
 * seeds (SEED_PRIORITY) and training pages (TRAINING_PRIORITY), which are
 * fetched first.
 */

export const TRAINING_PRIORITY = 3;
export const SEED_PRIORITY = 2;
export const SCORED_BASE = 1;

/** What an irrelevant page passes on of its own score. */
export const DECAY = 0.5;
export const INHERITED_SHARE = 0.5;
export const ANCHOR_SHARE = 0.6;
export const AROUND_SHARE = 0.2;
export const URL_SHARE = 0.2;

/** The score a URI's priority carries: 1 for seeds and training pages, the score of a scored one, 0 otherwise. */
export function scoreOfPriority(priority: number): number {
  if (priority >= SEED_PRIORITY) return 1;
  if (priority >= SCORED_BASE) return Math.min(1, priority - SCORED_BASE);
  return 0;
}

/** The priority of a score (scores are clipped to [0, 1]; 1 stays just below a seed). */
export function priorityOfScore(score: number): number {
  return SCORED_BASE + Math.min(0.999, Math.max(0, score));
}

/** What a page's links inherit: see the file's comment. `relevance` null: not a page (no text was scored). */
export function inheritedScore(relevance: number | null, threshold: number, pageScore: number): number {
  if (relevance === null) return DECAY * pageScore;
  if (relevance >= threshold) return relevance;
  return Math.max(relevance, DECAY * pageScore);
}

export interface Neighbourhood {
  anchor: number;
  around: number;
  url: number;
}

export function linkScore(inherited: number, n: Neighbourhood): number {
  const neighbourhood = ANCHOR_SHARE * n.anchor + AROUND_SHARE * n.around + URL_SHARE * n.url;
  return INHERITED_SHARE * inherited + (1 - INHERITED_SHARE) * neighbourhood;
}
