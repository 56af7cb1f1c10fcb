/**
 * How promising a link is, after shark-search (Hersovici et al. 1998): a
 * score in [0, 1] from what the link inherits from the page it was found
 * on and from what its neighbourhood says.
 *
 * - inherited: the larger of the page's focus (how closely it keeps to the
 *   topic, TopicModel.judge: a long page that names the topic in passing
 *   links mostly elsewhere) and DECAY × the page's own link score, so a
 *   run of irrelevant pages fades (tunnelling, a little at a time). A seed
 *   has no score of its own: its links inherit its focus like any
 *   page's, so an off-topic front page hands its table of contents nothing
 *   (issue 26: a seed that counted as 1 gave every link on it 0.5, above the
 *   topic's own neighbourhood).
 *   A link of the site's template (navigation repeated on every page,
 *   template-links.ts) inherits nothing, or DECAY × that (Prev, Up, Next).
 * - neighbourhood: the relevance to the topic of the link's anchor text, of
 *   its URL's words (both short texts put on the scale of a page's
 *   relevance, TopicModel.shortTextScore) and of the words around it, the
 *   strongest of the three, the words around weighed AROUND_WEIGHT (they
 *   are partly other links' words).
 * - score = 1 − (1 − INHERITED_WEIGHT × inherited) × (1 − neighbourhood):
 *   either signal alone ranks a link, both rank it higher, and a link whose
 *   own words name the topic (neighbourhood 1) comes before any link that
 *   has only its page's relevance (at most INHERITED_WEIGHT).
 *
 * The score becomes `CrawlUri.priority` as SCORED_BASE + score, so every
 * scored URI ranks above a sitemap's lastmod (a fraction of 1) and below
 * seeds (SEED_PRIORITY) and training pages (TRAINING_PRIORITY), which are
 * fetched first — the priority orders the fetches; it is not a score passed on.
 */

export const TRAINING_PRIORITY = 3;
export const SEED_PRIORITY = 2;
export const SCORED_BASE = 1;

/** What an irrelevant page passes on of its own score. */
export const DECAY = 0.5;
/** What a page's relevance alone is worth to its links, below a link whose own words name the topic. */
export const INHERITED_WEIGHT = 0.7;
export const AROUND_WEIGHT = 0.5;

/** The score a scored URI's priority carries (0 for seeds, training pages and URIs not scored: none is inherited). */
export function scoreOfPriority(priority: number): number {
  if (priority >= SEED_PRIORITY) return 0;
  if (priority >= SCORED_BASE) return Math.min(1, priority - SCORED_BASE);
  return 0;
}

/** The priority of a score (scores are clipped to [0, 1]; 1 stays just below a seed). */
export function priorityOfScore(score: number): number {
  return SCORED_BASE + Math.min(0.999, Math.max(0, score));
}

/** What a page's links inherit: see the file's comment. `focus` null: not a page (no text was scored). */
export function inheritedScore(focus: number | null, pageScore: number): number {
  return Math.max(focus ?? 0, DECAY * pageScore);
}

export interface Neighbourhood {
  anchor: number;
  around: number;
  url: number;
}

export function linkScore(inherited: number, n: Neighbourhood): number {
  const neighbourhood = Math.min(1, Math.max(n.anchor, n.url, AROUND_WEIGHT * n.around));
  return 1 - (1 - INHERITED_WEIGHT * Math.min(1, inherited)) * (1 - neighbourhood);
}

/**
 * What the links of a training page inherit: they are placed before the
 * topic is learnt, so their own words cannot be scored; a page the operator
 * chose is on the topic, but what it links to is not known to be (a fixed
 * 1 put all of them above every link of the crawl's relevant pages).
 */
export const TRAINING_INHERITED = 0.5;
