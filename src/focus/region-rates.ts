/**
 * What the crawl has learnt of each region of a site: the relevance of the
 * pages fetched so far under each directory of their URLs, and what a link
 * into a region is worth given it.
 *
 * Issue 26, fourth round: on a site of several books (Berkeley DB's
 * reference, guides and API books, each in its own directory), a relevant
 * table of contents handed its whole book a rank above every link of the
 * site's front page; the book's pages turned out off the topic one after
 * the other, and the links still queued from it kept their rank (the
 * frontier cannot re-rank), so the rest of the book was fetched before any
 * other book was opened. A link's words and its page's relevance say
 * nothing of that; the pages fetched in its directory do.
 *
 * The rate of a directory is the mean relevance of the pages fetched under
 * it, smoothed towards its parent's (PRIOR_PAGES pseudo-pages at the
 * parent's rate; the site's root towards ROOT_PRIOR), so a directory with
 * no page fetched yet has its parent's rate, and one with a few has
 * little more than them. For a link, with r the rate of its deepest
 * directory below the root with a page fetched, and r' that of the rest of
 * that directory's parent (the parent's pages outside it, smoothed alike):
 * - `factor` = min(1, r / r')²: what the link keeps of what it inherits
 *   from its page (link-priority.ts), so a region poorer than its
 *   neighbours is discounted — never its own words' evidence (a link whose
 *   anchor names the topic leads to a relevant page wherever it is). Against
 *   the rest, not the whole parent: a book fetched far more than the others
 *   is most of its parent.
 * - `explore` = EXPLORE × r × PRIOR_PAGES / (PRIOR_PAGES + n), with r the
 *   rate of the link's own directory and n the pages fetched in it: a floor
 *   for a link into a directory below the root that the crawl has barely
 *   looked at, half its parent's rate while it is unexplored, fading as
 *   pages are fetched there. It ranks such links above those of an exhausted
 *   region (tunnelling towards an unexplored book) and below any link with
 *   evidence of its own, so it only counts once the frontier's best scores
 *   are weak. Links at the root's level get no floor: on a flat site (all
 *   pages in one directory) nothing changes.
 *
 * The scores of links already queued are looked at again when claimed
 * (FocusCrawl.demoted): one that lost more than DEMOTE_MARGIN since it was
 * placed is queued again at its new rank instead of being fetched, at most
 * MAX_DEMOTIONS times (claims come in bursts: a region's links are often
 * demoted together, on what was known at the time).
 *
 * Measured (focus-real.ts, keywords, harvest): Berkeley DB 0.341 → 0.511–0.516,
 * PostgreSQL (flat) 0.633 → 0.626–0.633. Tried and left out: revising what a
 * page's links inherit by how its links fetched so far turned out (Berkeley DB
 * 0.39–0.40, whatever the prior; at the root's level only, sqlite +1 page and
 * git +2, too little for a loss not understood); a floor that does not scale with the
 * parent's rate (0.376).
 *
 * Cost: per page, at most MAX_DEPTH + 1 map updates; per link placed or
 * claimed, a scan of its URL up to the path's end and as many map
 * look-ups; no pass over the page's text. A demotion costs a frontier
 * write and a seen-filter write, as a better path's copy does. Bounded:
 * MAX_REGIONS directories and MAX_LINKS links' parts are remembered (a
 * link's until it is fetched); past them a new directory counts as
 * unexplored and a new link is never demoted. Kept in memory only: a resumed
 * crawl, or each node of a shared one, learns its regions afresh.
 */

import { linkScore } from './link-priority.js';

export const ROOT_PRIOR = 0.5;
export const PRIOR_PAGES = 3;
export const EXPLORE = 0.5;
/** Directories below the site's root counted (`/a/b/c/`). */
export const MAX_DEPTH = 3;
export const MAX_REGIONS = 50_000;
export const MAX_LINKS = 200_000;
export const DEMOTE_MARGIN = 0.1;
export const MAX_DEMOTIONS = 2;

interface Counts {
  /** Pages fetched and scored under it. */
  pages: number;
  /** Their relevance, summed. */
  relevance: number;
}

/** A link's place in its region. */
export interface RegionEstimate {
  /** What the link keeps of what it inherits. */
  factor: number;
  /** The least the link scores. */
  explore: number;
}

export class RegionRates {
  readonly #regions = new Map<string, Counts>();
  readonly #scratch: string[] = [];

  /** A page fetched and scored. */
  scored(url: string, relevance: number): void {
    for (const key of this.#prefixes(url)) {
      let c = this.#regions.get(key);
      if (c === undefined) {
        if (this.#regions.size >= MAX_REGIONS) return;
        c = { pages: 0, relevance: 0 };
        this.#regions.set(key, c);
      }
      c.pages++;
      c.relevance += relevance;
    }
  }

  /** What a link to `url` keeps of its inheritance, and its floor. */
  estimate(url: string): RegionEstimate {
    const keys = this.#prefixes(url);
    // Smoothed rates down the URL's directories; `region` the deepest with a page fetched (depth ≥ 1), against the rest of its parent.
    let rate = ROOT_PRIOR;
    let parentRate = ROOT_PRIOR;
    let parent: Counts | undefined;
    let region: Counts | undefined;
    let regionRate = ROOT_PRIOR;
    let restRate = ROOT_PRIOR;
    let own = 0;
    keys.forEach((key, depth) => {
      const c = this.#regions.get(key);
      own = c?.pages ?? 0;
      if (c === undefined) return;
      parentRate = rate;
      rate = (c.relevance + PRIOR_PAGES * rate) / (c.pages + PRIOR_PAGES);
      if (depth > 0 && parent !== undefined) {
        region = c;
        regionRate = rate;
        restRate = (parent.relevance - c.relevance + PRIOR_PAGES * parentRate) / (parent.pages - c.pages + PRIOR_PAGES);
      }
      parent = c;
    });
    const factor = region === undefined || restRate <= 0 ? 1 : Math.min(1, regionRate / restRate) ** 2;
    const explore = keys.length > 1 ? (EXPLORE * rate * PRIOR_PAGES) / (PRIOR_PAGES + own) : 0;
    return { factor, explore };
  }

  /** The site's root (`http://h:p/`) and the URL's directories below it, at most MAX_DEPTH; a scratch array, valid until the next call. */
  #prefixes(url: string): string[] {
    const out = this.#scratch;
    out.length = 0;
    const scheme = url.indexOf('://');
    let slash = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
    if (slash < 0) return out;
    let end = url.length;
    for (const stop of ['?', '#']) {
      const at = url.indexOf(stop, slash);
      if (at >= 0 && at < end) end = at;
    }
    out.push(url.slice(0, slash + 1));
    while (out.length <= MAX_DEPTH) {
      slash = url.indexOf('/', slash + 1);
      if (slash < 0 || slash >= end) break;
      out.push(url.slice(0, slash + 1));
    }
    return out;
  }
}

/** A queued link's evidence, by which its score is computed again when claimed. */
export interface LinkParts {
  /** What it inherits of its page (before its region's factor). */
  inherited: number;
  neighbourhood: { anchor: number; around: number; url: number };
}

/** The parts of the links queued, by URL (bounded), and how often each was demoted. */
export class QueuedLinkParts {
  readonly #parts = new Map<string, LinkParts & { demotions: number }>();
  /** Parts of the links of the page being placed, until the seen filter says which were queued. */
  readonly #placing = new Map<string, LinkParts>();

  /** A link of the page being placed; `again`: queued again by a better path (better-paths.ts), so its parts are those of the new copy. */
  placing(url: string, parts: LinkParts, again: boolean): void {
    const had = again ? this.#parts.get(url) : undefined;
    if (had !== undefined) Object.assign(had, parts);
    else this.#placing.set(url, parts);
  }

  /** The links of the page just placed that were queued (a better path's copy replaces the parts it was queued with). */
  queued(urls: Iterable<string>): void {
    for (const url of urls) {
      const p = this.#placing.get(url);
      if (p === undefined) continue;
      const had = this.#parts.get(url);
      if (had !== undefined) Object.assign(had, p);
      else if (this.#parts.size < MAX_LINKS) this.#parts.set(url, { ...p, demotions: 0 });
    }
    this.#placing.clear();
  }

  /** A queued link's parts, when it may still be demoted. */
  demotable(url: string): LinkParts | null {
    const p = this.#parts.get(url);
    return p === undefined || p.demotions >= MAX_DEMOTIONS ? null : p;
  }

  demoted(url: string): void {
    const p = this.#parts.get(url);
    if (p !== undefined) p.demotions++;
  }

  /** Fetched: never demoted again, and forgotten. */
  fetched(url: string): void {
    this.#parts.delete(url);
  }
}

/** A link's score in its region: what it inherits discounted in a region poorer than the site, at least the region's exploration floor (region-rates.ts). */
export function regionalScore(parts: LinkParts, regions: RegionRates, url: string): number {
  const region = regions.estimate(url);
  return Math.max(region.explore, linkScore(parts.inherited * region.factor, parts.neighbourhood));
}
