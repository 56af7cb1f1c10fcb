/**
 * In a focused crawl with a budget, a page's embeds wait for its verdict.
 * The frontier serves embeds before any link of their queue (so that what
 * is archived replays), and `limits.maxPages` counts every URI captured:
 * on real documentation sites the stylesheets, scripts and images of pages
 * off the topic took about 40% of the budget (a Sphinx site with a budget
 * of 18 fetched 3 pages: issue 26). So the embeds of a page judged
 * relevant (or a training page) are fetched at once, as before; those of a
 * page judged off the topic are queued as links below every scored link
 * (priority absent), fetched when the budget allows.
 *
 * A non-page capture (a stylesheet, a 404) has no verdict: its embeds go
 * at once only when it was itself fetched at once (as an embed or redirect
 * of a page judged relevant). An embed deferred here and then embedded by a
 * relevant page is queued again at once (better-paths.ts, from the score
 * DEFERRED_SCORE), and the deferred copy is dropped when it comes up.
 *
 * Without a budget nothing waits: the order would change nothing of what
 * is fetched in the end.
 */
import { Directive, type CrawlUri } from '../core/crawl-uri.js';

/** The score a deferred embed is tracked with (better-paths.ts): any page's embed beats it. */
export const DEFERRED_SCORE = -1;

export interface EmbedVerdict {
  /** The crawl has a page or byte budget. */
  budgeted: boolean;
  /** The page is a training page (the operator chose it). */
  training: boolean;
  /** The page's relevance, null when no text was scored (not a 2xx HTML page). */
  relevance: number | null;
  threshold: number;
  /** The capture's own directive: `high` when it was fetched as an embed or redirect. */
  directive: Directive;
}

/** Whether the embeds of a capture wait (see the file's comment). */
export function embedsWait(v: EmbedVerdict): boolean {
  if (!v.budgeted || v.training) return false;
  if (v.relevance === null) return v.directive !== Directive.high;
  return v.relevance < v.threshold;
}

/** Makes an embed wait: a link below every scored one. */
export function deferEmbed(child: CrawlUri): void {
  child.directive = Directive.normal;
  delete child.priority;
}

/** Whether a queued URI is an embed made to wait. */
export function isDeferredEmbed(uri: CrawlUri): boolean {
  return uri.directive === Directive.normal && uri.hopPath.endsWith('E');
}
