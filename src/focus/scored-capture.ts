/**
 * One scored capture, as the crawl places its links (FocusCrawl.page):
 * its relevance, what its links inherit of it, its gap past the last
 * relevant page, and each link's rank (link-priority.ts) in its region
 * (region-rates.ts), the site's template links inheriting less
 * (template-links.ts).
 */
import { priorityOf, type CrawlUri } from '../core/crawl-uri.js';
import { FOCUS_TRAINING, relevanceAnnotation } from './annotations.js';
import { DECAY, inheritedScore, priorityOfScore, scoreOfPriority, TRAINING_INHERITED } from './link-priority.js';
import { deferEmbed, embedsWait } from './deferred-embeds.js';
import { splitTerms } from './page-terms.js';
import { regionalScore } from './region-rates.js';
import type { TemplatePage } from './template-links.js';
import { urlTerms } from './terms.js';
import type { Judgement, PreparedText } from './topic-model.js';
import type { FocusCrawl, FocusedCapture, FocusLink, Placement } from './focus-crawl.js';

/** One capture's score and the placement of its links. */
export class ScoredCapture implements FocusedCapture {
  readonly relevance: number | null;
  readonly annotations: readonly string[];
  readonly #f: FocusCrawl;
  readonly #uri: CrawlUri;
  readonly #prepared: PreparedText | null;
  readonly #training: boolean;
  /** Pages past the last relevant one this capture lies at (links of it carry it). */
  readonly #gap: number;
  /** What its links inherit. */
  readonly #inherited: number;
  /** Its embeds wait (deferred-embeds.ts). */
  readonly #embedsWait: boolean;
  /** Which of its links are the site's template (template-links.ts); null when its text was not scored. */
  readonly #template: TemplatePage | null;

  constructor(f: FocusCrawl, uri: CrawlUri, judged: Judgement | null, prepared: PreparedText | null, kind: 'training' | 'plain') {
    const relevance = judged?.relevance ?? null;
    this.#f = f;
    this.#uri = uri;
    this.relevance = relevance;
    this.#prepared = prepared;
    this.#training = kind === 'training';
    const threshold = f.focus.threshold;
    const own = uri.focusGap ?? 0;
    const chosen = this.#training || uri.seed;
    // Seeds and training pages count as relevant; a page that is not one passes its gap on unchanged.
    this.#gap = chosen || (relevance !== null && relevance >= threshold) ? 0 : relevance === null ? own : own + 1;
    this.#inherited = this.#training && relevance === null ? TRAINING_INHERITED : inheritedScore(judged?.focus ?? null, scoreOfPriority(priorityOf(uri)));
    this.#template = judged !== null ? f.templates.page() : null;
    this.#embedsWait = embedsWait({ budgeted: f.budgeted, training: this.#training, relevance, threshold, directive: uri.directive });
    this.annotations = relevance !== null ? [relevanceAnnotation(relevance)] : this.#training && f.model === null ? [FOCUS_TRAINING] : [];
  }

  queued(children: readonly CrawlUri[]): void {
    this.#f.queued(children);
  }

  place(child: CrawlUri, link: FocusLink): Placement {
    const parent = this.#uri;
    switch (link.hop) {
      case 'P':
        return 'follow';
      case 'R':
        // The same page, elsewhere: it keeps its place.
        if (parent.priority !== undefined) child.priority = parent.priority;
        if (parent.focusGap !== undefined) child.focusGap = parent.focusGap;
        return this.#f.followTraining(parent.url, child.url) ? 'forced' : 'follow';
      case 'E':
      case 'X': {
        // Part of this page: fetched whatever its relevance (transclusion), ranked as the page.
        const score = Math.max(scoreOfPriority(priorityOf(parent)), this.relevance ?? 0);
        this.#setGap(child);
        if (link.hop === 'E' && this.#embedsWait) {
          deferEmbed(child);
          return 'follow';
        }
        child.priority = priorityOfScore(score);
        // An embed made to wait by a page off the topic goes now for this one.
        return link.hop === 'E' && this.#f.placedAgain(child.url, score) ? 'forced' : 'follow';
      }
      default: {
        // Counted whether followed or not: the share is of every page's links.
        const template = this.#template?.kind(link.anchorTerms, child.url, link.context) ?? null;
        if (this.#gap > this.#f.focus.restrictHops) return 'restricted';
        // The template's links are on this page because they are on every page (template-links.ts).
        const inherited = template === null ? this.#inherited : template === 'anchor' ? DECAY * this.#inherited : 0;
        const parts = { inherited, neighbourhood: this.#neighbourhood(link) };
        const score = regionalScore(parts, this.#f.regions, child.url);
        child.priority = priorityOfScore(score);
        this.#setGap(child);
        return this.#f.placedAgain(child.url, score, parts) ? 'forced' : 'follow';
      }
    }
  }

  #setGap(child: CrawlUri): void {
    if (this.#gap > 0) child.focusGap = this.#gap;
  }

  #neighbourhood(link: FocusLink): { anchor: number; around: number; url: number } {
    const model = this.#f.model ?? this.#f.provisional;
    if (model === null) return { anchor: 0, around: 0, url: 0 };
    const languages = this.#prepared?.languages ?? model.languages;
    const short = (terms: readonly string[]): number => (terms.length === 0 ? 0 : model.shortTextScore(model.prepareTerms(terms, languages)));
    return {
      anchor: link.anchorTerms ? short(splitTerms(link.anchorTerms)) : 0,
      around: link.aroundTerms ? model.relevance(model.prepareTerms(splitTerms(link.aroundTerms), languages)) : 0,
      url: short(link.urlTerms !== undefined ? splitTerms(link.urlTerms) : urlTerms(link.url)),
    };
  }
}
