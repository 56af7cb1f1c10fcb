/**
 * One scored capture, as the crawl places its links (FocusCrawl.page):
 * its relevance, what its links inherit of it, its gap past the last
 * relevant page, and each link's rank (link-priority.ts) in its region
 * (region-rates.ts), the site's template links inheriting less
 * (template-links.ts).
 */
import type { FocusOptions } from '../config/profile.js';
import { priorityOf, type CrawlUri, type Hop } from '../core/crawl-uri.js';
import { FOCUS_TRAINING, relevanceAnnotation } from './annotations.js';
import { DECAY, inheritedScore, priorityOfScore, scoreOfPriority, TRAINING_INHERITED } from './link-priority.js';
import { deferEmbed, embedsWait } from './deferred-embeds.js';
import { splitTerms } from './page-terms.js';
import { regionalScore, type LinkParts, type RegionRates } from './region-rates.js';
import type { TemplateLinks, TemplatePage } from './template-links.js';
import { urlTerms } from './terms.js';
import type { Judgement, PreparedText, TopicModel } from './topic-model.js';

/** What the crawl tells of a capture. */
export interface FocusCapture {
  status: number;
  mime: string;
  /** An HTML page's title and visible text, and its terms when the extraction cut them (page-terms.ts). */
  page?: { title: string | null; text: string; terms?: string };
  /** The page's links as found (their anchors' words are left out of what its links inherit: mention-score.ts). */
  links?: readonly Pick<FocusLink, 'hop' | 'anchorTerms'>[];
}

/** A link as found: its hop, and for a hyperlink the terms it comes with (page-terms.ts; cut here when absent). */
export interface FocusLink {
  url: string;
  hop: Hop;
  /** Where the page gave it (`a/@href`, `link/@href`…). */
  context?: string;
  anchorTerms?: string;
  aroundTerms?: string;
  urlTerms?: string;
}

export type Placement = 'follow' | 'restricted' | 'forced';

/** A capture as scored: its relevance, and where its links go. */
export interface FocusedCapture {
  /** The page's relevance in [0, 1], three decimals (as logged); null when no text was scored (not a 2xx HTML page, or one the model learns from). */
  readonly relevance: number | null;
  /** For crawl.log. */
  readonly annotations: readonly string[];
  /** Sets the child's priority (and focus gap); `restricted`: not followed; `forced`: queued whatever the seen filter says. */
  place(child: CrawlUri, link: FocusLink): Placement;
  /** The children the seen filter let through, as queued. */
  queued(children: readonly CrawlUri[]): void;
}

/** What a scored capture asks of its crawl (FocusCrawl). */
export interface ScoringCrawl {
  readonly focus: FocusOptions;
  readonly regions: RegionRates;
  /** The site's template links, learnt as pages are placed. */
  readonly templates: TemplateLinks;
  /** The crawl has a page or byte budget. */
  readonly budgeted: boolean;
  /** The topic, once learnt; `provisional` while it is being learnt. */
  readonly model: TopicModel | null;
  readonly provisional: TopicModel | null;
  /** Whether a link already queued is queued again at `score` (a better path, or a region that turned out poorer). */
  placedAgain(url: string, score: number, parts?: LinkParts): boolean;
  queued(children: readonly CrawlUri[]): void;
  /** Whether a training page's link to `to` is followed whatever the seen filter says. */
  followTraining(from: string, to: string): boolean;
}

/** One capture's score and the placement of its links. */
export class ScoredCapture implements FocusedCapture {
  readonly relevance: number | null;
  readonly annotations: readonly string[];
  readonly #f: ScoringCrawl;
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

  constructor(f: ScoringCrawl, uri: CrawlUri, judged: Judgement | null, prepared: PreparedText | null, kind: 'training' | 'plain') {
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
