/**
 * A topic-focused crawl, as the rest of the crawl sees it:
 *
 * - the topic model: reloaded from the job (a resume), or learnt from the
 *   keywords and the training documents — WARCs and job directories read at
 *   start, training URLs fetched first through the frontier as seeds of the
 *   highest priority (archived like any page, robots and politeness as for
 *   any URI). Until every training URL is fetched or given up (a redirect
 *   is followed, a transport failure counts as given up: its retry is
 *   crawled later like any URI), only training URLs, robots.txt, embeds
 *   and redirects are fetched — `waitMs()` puts the rest back — and then
 *   crawling by relevance starts. The model is saved in the job (record
 *   `model` of the `focus` records) with the focus settings it was learnt
 *   under; a resume with other settings learns again (kept-topic.ts).
 * - patience (patience.ts): in a crawl with a budget, `waitMs()` also puts
 *   back a link far poorer than those being claimed, and a link of a host
 *   whose last page's links are still being placed (pages-in-flight.ts).
 * - each capture scored (`page()`): a 2xx HTML page's relevance
 *   (TopicModel.judge), annotated in crawl.log (`relevance:0.734`), and
 *   where its links go: priority by link-priority.ts — a link found again
 *   by a better path is queued again (better-paths.ts) — and
 *   `restrictHops`: a link found more than that many pages past the last
 *   relevant one is not followed (`focusRestricted`). Embeds and redirects
 *   are always followed, so every archived page replays — in a crawl with a
 *   budget, those of a page judged off the topic after every scored link
 *   (deferred-embeds.ts). Seeds and training pages count as relevant for
 *   `restrictHops`: the operator chose them.
 * - the focus report at the end (focus-report.ts).
 */
import type { FocusOptions } from '../config/profile.js';
import { Directive, priorityOf, seedUri, type CrawlUri, type Hop } from '../core/crawl-uri.js';
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';
import { KeptTopic } from './kept-topic.js';
import { loggedRelevance } from './annotations.js';
import { writeFocusReport } from './focus-report.js';
import { priorityOfScore, scoreOfPriority, SCORED_BASE, SEED_PRIORITY, TRAINING_PRIORITY } from './link-priority.js';
import { BetterPaths } from './better-paths.js';
import { DEMOTE_MARGIN, QueuedLinkParts, RegionRates, regionalScore, type LinkParts } from './region-rates.js';
import { ScoredCapture, type FocusCapture, type FocusedCapture, type FocusLink } from './scored-capture.js';
import { DEFERRED_SCORE, isDeferredEmbed } from './deferred-embeds.js';
import { FOLLOW_WAIT_MS, PagesInFlight } from './pages-in-flight.js';
import { hostOf } from '../url/hosts.js';
import { Patience, PATIENCE_WAIT_MS } from './patience.js';
import { splitTerms } from './page-terms.js';
import { TemplateLinks } from './template-links.js';
import { RelevanceFeedback } from './relevance-feedback.js';
import { termsOf } from './terms.js';
import { TopicModel, type FocusDocument, type PreparedText } from './topic-model.js';
import { isTrainingUrl, readTrainingDocs } from './training-docs.js';

/** How long a URI waits while the model is learnt. */
export const TRAINING_WAIT_MS = 250;
export { TRAINING_INHERITED } from './link-priority.js';
export type { FocusCapture, FocusedCapture, FocusLink, Placement } from './scored-capture.js';

export interface FocusCrawlOptions {
  focus: FocusOptions;
  /**
   * When the crawl has a page or byte budget, links wait while far better
   * ones are fetched (patience.ts), over a window of at least twice
   * `delayMs` (the politeness delay). Without a budget (null) the order
   * changes nothing of what is fetched in the end, and waiting would only
   * slow the crawl.
   */
  patience: { delayMs: number } | null;
  /** Where the model is kept (the state backend's `focus` records; a shared store's are every node's). */
  records: RecordStore | SharedRecordStore;
  /** This node's id in a crawl of several processes (its focus report is its own). */
  node?: string;
  /** The crawl's clock (ms), for how often a shared topic is read again. */
  now?: () => number;
  /** Lines for the operator (stderr). */
  notice?: (line: string) => void;
}

export class FocusCrawl {
  readonly #focus: FocusOptions;
  readonly #notice: (line: string) => void;
  readonly #kept: KeptTopic;
  /** Training URLs (and redirect targets of them) not yet fetched or given up. */
  readonly #waiting = new Set<string>();
  readonly #trainingUrls: ReadonlySet<string>;
  /** Training documents read so far (from disk at start, then fetched ones). */
  readonly #docs: FocusDocument[] = [];
  readonly #patience: Patience | null;
  #provisional: TopicModel | null = null;
  readonly #inFlight = new PagesInFlight();
  readonly #paths = new BetterPaths();
  /** What each directory's pages were worth so far, and the evidence of each queued link (region-rates.ts). */
  readonly regions = new RegionRates();
  readonly #parts = new QueuedLinkParts();
  /** Navigation repeated across pages (template-links.ts). */
  readonly templates = new TemplateLinks();
  /** Relevance feedback (profile `focus.feedback`). */
  readonly #feedback: RelevanceFeedback | null;
  readonly #node: string | undefined;
  readonly #now: () => number;

  private constructor(o: FocusCrawlOptions) {
    this.#focus = o.focus;
    this.#notice = o.notice ?? (() => {});
    this.#patience = o.patience === null ? null : new Patience(o.patience.delayMs);
    this.#trainingUrls = new Set(o.focus.training.filter(isTrainingUrl));
    this.#kept = new KeptTopic(o.records, o.focus, this.#notice);
    if (o.node !== undefined) this.#node = o.node;
    this.#now = o.now ?? Date.now;
    this.#feedback = o.focus.feedback ? new RelevanceFeedback(new Set(o.focus.keywords.flatMap((k) => termsOf(k))), o.focus.threshold) : null;
  }

  /** The model saved in the job when its settings match, else learnt from what is on disk (and, later, the training URLs). */
  static async open(o: FocusCrawlOptions): Promise<FocusCrawl> {
    const f = new FocusCrawl(o);
    if (await f.#kept.load()) return f;
    for (const doc of await readTrainingDocs(o.focus.training.filter((t) => !isTrainingUrl(t)), o.notice)) f.#docs.push(doc);
    for (const url of f.#trainingUrls) f.#waiting.add(url);
    if (f.#waiting.size === 0) await f.#learn();
    // Until the training pages are in, their links are scored by the keywords alone.
    else if (o.focus.keywords.length > 0) f.#provisional = TopicModel.build({ weighting: o.focus.weighting, keywords: o.focus.keywords, docs: [] });
    return f;
  }

  /** The keywords' topic, while the training pages are awaited (it scores their links' words). */
  get provisional(): TopicModel | null {
    return this.#provisional;
  }

  /** The model, once learnt. */
  get model(): TopicModel | null {
    return this.#kept.model;
  }

  /**
   * The training URLs to queue (seeds of the highest priority), when the
   * model is still to be learnt from them. Queued whatever the seen filter
   * says: a job resumed before its model was saved fetches them again.
   */
  trainingUris(): CrawlUri[] {
    if (this.#kept.model !== null) return [];
    return [...this.#waiting].map((url) => ({ ...seedUri(url), priority: TRAINING_PRIORITY }));
  }

  /** A seed as queued: fetched before any link. */
  seed(uri: CrawlUri): CrawlUri {
    return this.#trainingUrls.has(uri.url) ? { ...uri, priority: TRAINING_PRIORITY } : { ...uri, priority: SEED_PRIORITY };
  }

  /**
   * How long `uri`, just claimed, must wait (0: not at all). While the model
   * is learnt, links and seeds wait; training URLs, robots.txt, embeds and
   * redirects do not (they go before links in their queue: held, they would
   * hold a training URL behind them). Then, in a crawl with a budget, a
   * link waits while a page of its host is still being processed
   * (pages-in-flight.ts), or while far better ones are being claimed
   * elsewhere (patience.ts).
   */
  waitMs(uri: CrawlUri, now: number): number {
    if (uri.directive !== Directive.normal) return 0;
    if (this.#kept.model === null) return this.#waiting.has(uri.url) ? 0 : TRAINING_WAIT_MS;
    this.#kept.readShared(this.#now());
    if (this.#patience === null) return 0;
    const priority = priorityOf(uri);
    const host = hostOf(uri.url) ?? uri.url;
    if (priority < SEED_PRIORITY) {
      if (this.#inFlight.busy(host, now)) return FOLLOW_WAIT_MS;
      if (priority >= SCORED_BASE && this.#patience.waits(scoreOfPriority(priority), now)) return PATIENCE_WAIT_MS;
    }
    this.#inFlight.claimed(uri.url, host, now);
    return 0;
  }

  /** Whether a claimed URI is a copy, queued by a better path, of a page fetched meanwhile (better-paths.ts): dropped unfetched. */
  superseded(uri: CrawlUri): boolean {
    return uri.directive === Directive.normal && this.#paths.superseded(uri.url);
  }

  /** A link placed with `score`: whether to queue it again, past the seen filter (better-paths.ts). */
  placedAgain(url: string, score: number, parts?: LinkParts): boolean {
    const again = this.#paths.again(url, score);
    if (parts !== undefined) this.#parts.placing(url, parts, again);
    return again;
  }

  /**
   * A claimed link whose score fell by more than DEMOTE_MARGIN since it was
   * placed, its region's pages having turned out off the topic
   * (region-rates.ts): the copy to queue at its new rank instead of
   * fetching it; null to fetch it.
   */
  demoted(uri: CrawlUri): CrawlUri | null {
    const p = priorityOf(uri);
    if (uri.directive !== Directive.normal || p < SCORED_BASE || p >= SEED_PRIORITY || isDeferredEmbed(uri)) return null;
    const parts = this.#parts.demotable(uri.url);
    if (parts === null) return null;
    const score = regionalScore(parts, this.regions, uri.url);
    if (score >= scoreOfPriority(p) - DEMOTE_MARGIN) return null;
    this.#parts.demoted(uri.url);
    this.#paths.lowered(uri.url, score);
    return { ...uri, priority: priorityOfScore(score) };
  }

  /** Links the seen filter let through, as queued. */
  queued(children: readonly CrawlUri[]): void {
    this.#parts.queued(children.map((c) => c.url));
    for (const c of children) {
      const p = priorityOf(c);
      if (isDeferredEmbed(c)) this.#paths.queued(c.url, DEFERRED_SCORE);
      else if (c.directive === Directive.normal && p >= SCORED_BASE && p < SEED_PRIORITY) this.#paths.queued(c.url, scoreOfPriority(p));
    }
  }

  /** Whether the crawl has a page or byte budget (then links may wait, and embeds of pages off the topic). */
  get budgeted(): boolean {
    return this.#patience !== null;
  }

  /** Scores a capture; a training page still awaited becomes a training document. */
  page(uri: CrawlUri, capture: FocusCapture): FocusedCapture {
    const isPage = capture.page !== undefined && capture.status >= 200 && capture.status < 300;
    if (this.#kept.model === null) {
      const training = this.#waiting.has(uri.url);
      if (training && isPage) this.#docs.push(documentOf(capture.page!));
      return new ScoredCapture(this, uri, null, null, training ? 'training' : 'plain');
    }
    if (!isPage) return new ScoredCapture(this, uri, null, null, 'plain');
    const model = this.#kept.model;
    const prepared = model.preparePage(documentOf(capture.page!));
    const judged = model.judge(prepared, capture.links === undefined ? undefined : model.linkedTerms(anchorsOf(capture.links), prepared.languages));
    this.#learnFrom(prepared, judged.relevance);
    this.regions.scored(uri.url, judged.relevance);
    return new ScoredCapture(this, uri, { relevance: loggedRelevance(judged.relevance), focus: judged.focus }, prepared, this.#trainingUrls.has(uri.url) ? 'training' : 'plain');
  }

  /** A claimed URI's outcome: a training URL fetched or given up counts down to the model. */
  async settled(uri: CrawlUri, outcome: { kind: 'done' | 'retry' | 'defer' }): Promise<void> {
    this.#inFlight.settled(uri.url);
    if (outcome.kind === 'done') {
      this.#paths.fetched(uri.url);
      this.#parts.fetched(uri.url);
    }
    if (this.#kept.model !== null || outcome.kind === 'defer' || !this.#waiting.delete(uri.url)) return;
    if (this.#waiting.size === 0) await this.#learn();
  }

  /** The job's end: the focus report from crawl.log; waits for a model being saved. */
  async close(crawlLog: string, reportsDir: string): Promise<void> {
    await this.#kept.settledSaves();
    await writeFocusReport({ crawlLog, reportsDir, focus: this.#focus, model: this.#kept.model, ...(this.#node !== undefined ? { node: this.#node } : {}) });
  }

  get focus(): FocusOptions {
    return this.#focus;
  }

  /** A redirect of an awaited training URL: its target is awaited instead (and queued whatever the seen filter says). */
  followTraining(from: string, to: string): boolean {
    if (this.#kept.model !== null || !this.#waiting.has(from)) return false;
    this.#waiting.add(to);
    return true;
  }

  async #learn(): Promise<void> {
    const model = TopicModel.build({ weighting: this.#focus.weighting, keywords: this.#focus.keywords, docs: this.#docs, notice: this.#notice });
    this.#docs.length = 0;
    this.#provisional = null;
    const top = model.topTerms(8).map(([t]) => t).join(' ');
    this.#notice(
      `archiver: focus: topic learnt (${this.#focus.weighting}) from ${model.nDoc} training page(s) and ${this.#focus.keywords.length} keyword(s): ${model.size} term(s)${top ? `, heaviest: ${top}` : ''}`,
    );
    if (model.size === 0) this.#notice('archiver: focus: the topic has no terms (no training page could be read): every page scores 0');
    await this.#kept.learnt(model);
  }

  /** A relevant page's terms count towards widening the topic; every WIDEN_EVERY of them, it is widened, logged and saved. */
  #learnFrom(prepared: PreparedText, relevance: number): void {
    if (this.#feedback === null || this.#kept.model === null || !this.#feedback.page(prepared.counts, relevance)) return;
    const added = this.#feedback.widen().filter(([t]) => !this.#kept.widenedWith(t));
    if (added.length === 0) return;
    this.#kept.widen(added);
    this.#notice(`archiver: focus: topic widened by relevance feedback: ${added.map(([t, w]) => `${t} (${w.toFixed(2)})`).join(', ')}; ${this.#kept.model.size} term(s)`);
  }
}

function* anchorsOf(links: NonNullable<FocusCapture['links']>): Iterable<string> {
  for (const l of links) if (l.hop === 'L' && l.anchorTerms !== undefined) yield l.anchorTerms;
}

/** A captured page as the model reads it: the terms the extraction cut, when it did. */
function documentOf(page: NonNullable<FocusCapture['page']>): FocusDocument {
  return { title: page.title, text: page.text, ...(page.terms !== undefined ? { terms: splitTerms(page.terms) } : {}) };
}
