/**
 * Relevance feedback (Rocchio's idea, kept small): the topic learns from
 * the pages the crawl judges relevant. A topic given by a few keywords
 * names its subject but not the words around it — the "primary", "slot"
 * and "archive" of a replication chapter — and a link whose anchor holds
 * only those words is ranked as if it said nothing.
 *
 * Every page that scores at least RELEVANT_BAR adds its distinct terms to
 * a count of relevant pages holding each term; of the pages scoring below
 * the crawl's threshold, one in BACKGROUND_EVERY (every one of the first
 * BACKGROUND_ALL) adds them to the background count — a sample, so that
 * the crawl's pages are not walked twice; a focused crawl fetches mostly
 * relevant pages, so the contrast is with the irrelevant ones (Rocchio's
 * negative examples). After every WIDEN_EVERY relevant pages, once
 * MIN_BACKGROUND irrelevant pages are counted, the terms held by at least
 * MIN_SHARE of the relevant pages and at least RATIO times as often as in
 * the background are ranked by share × log(ratio), and the best MAX_TERMS
 * of them join the topic, each weighing TERM_WEIGHT × its share of the
 * keywords' weight. Bounded: at most MAX_VOCABULARY terms are counted.
 */

export const RELEVANT_BAR = 0.6;
export const BACKGROUND_EVERY = 4;
export const BACKGROUND_ALL = 200;
export const MIN_BACKGROUND = 10;
export const WIDEN_EVERY = 10;
export const MIN_SHARE = 0.3;
export const RATIO = 2;
export const MAX_TERMS = 10;
export const TERM_WEIGHT = 0.5;
export const MAX_VOCABULARY = 50_000;

export class RelevanceFeedback {
  readonly #relevant = new Map<string, number>();
  readonly #background = new Map<string, number>();
  #relevantPages = 0;
  #backgroundPages = 0;
  #irrelevantPages = 0;
  #sinceWiden = 0;
  readonly #exclude: ReadonlySet<string>;
  readonly #threshold: number;

  /** `exclude`: terms already in the topic's core (the keywords); `threshold`: the crawl's (below it, a page is background). */
  constructor(exclude: ReadonlySet<string>, threshold: number) {
    this.#exclude = exclude;
    this.#threshold = threshold;
  }

  /** A page judged: its term counts and relevance. Returns true when the topic is due to be widened. */
  page(counts: ReadonlyMap<string, number>, relevance: number): boolean {
    if (relevance < this.#threshold) {
      this.#irrelevantPages++;
      if (this.#irrelevantPages <= BACKGROUND_ALL || this.#irrelevantPages % BACKGROUND_EVERY === 0) {
        this.#backgroundPages++;
        add(this.#background, counts);
      }
    }
    if (relevance < RELEVANT_BAR) return false;
    this.#relevantPages++;
    add(this.#relevant, counts);
    return ++this.#sinceWiden >= WIDEN_EVERY && this.#backgroundPages >= MIN_BACKGROUND;
  }

  /** The terms to add to the topic, heaviest first, each with its weight as a share of a keyword's. */
  widen(): Array<[string, number]> {
    this.#sinceWiden = 0;
    if (this.#relevantPages === 0 || this.#backgroundPages === 0) return [];
    const ranked: Array<[string, number, number]> = [];
    for (const [t, n] of this.#relevant) {
      if (this.#exclude.has(t)) continue;
      const share = n / this.#relevantPages;
      if (share < MIN_SHARE) continue;
      // A term of the relevant pages always counts in the background once: no division by 0.
      const background = Math.max(1, this.#background.get(t) ?? 0) / this.#backgroundPages;
      const ratio = share / background;
      if (ratio < RATIO) continue;
      ranked.push([t, share * Math.log(ratio), share]);
    }
    ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return ranked.slice(0, MAX_TERMS).map(([t, , share]) => [t, TERM_WEIGHT * share]);
  }
}

function add(into: Map<string, number>, counts: ReadonlyMap<string, number>): void {
  for (const t of counts.keys()) {
    const n = into.get(t);
    if (n !== undefined) into.set(t, n + 1);
    else if (into.size < MAX_VOCABULARY) into.set(t, 1);
  }
}
