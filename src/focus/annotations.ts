/**
 * What a focused crawl writes into crawl.log (and reads back from it for
 * its report): a page's relevance, a page fetched to learn the topic, and
 * a link not followed for `restrictHops` (logged -5000).
 */

/** `relevance:0.734`: a 2xx HTML page's relevance, three decimals. */
export const RELEVANCE_PREFIX = 'relevance:';
export const FOCUS_TRAINING = 'focusTraining';
export const FOCUS_RESTRICTED = 'focusRestricted';
export const FOCUS_RESTRICTED_STATUS = -5000;

/** A relevance as logged: three decimals, the same number in crawl.log, the capture journal and pages.jsonl. */
export function loggedRelevance(relevance: number): number {
  return Math.round(relevance * 1000) / 1000;
}

export function relevanceAnnotation(relevance: number): string {
  return `${RELEVANCE_PREFIX}${relevance.toFixed(3)}`;
}

/** The value of a `relevance:` annotation, or null. */
export function relevanceOf(annotations: readonly string[]): number | null {
  for (const a of annotations) {
    if (!a.startsWith(RELEVANCE_PREFIX)) continue;
    const v = Number(a.slice(RELEVANCE_PREFIX.length));
    return Number.isFinite(v) ? v : null;
  }
  return null;
}
