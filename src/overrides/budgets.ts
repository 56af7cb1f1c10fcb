/**
 * Budgets of overrides: an override's `limits.maxPages` / `maxBytes` count
 * what its match covers — captures (every response written, robots.txt
 * and sitemaps included, as the crawl's own maxPages counts) and their body
 * bytes. Once one is reached, that host or prefix is done: its remaining
 * URIs are disposed of with Heritrix's -5003 (`budgetExceeded`) as they come
 * up, and links into it are disposed of when found; the crawl goes on.
 * Every budget covering a URL counts it, so a host's budget and a prefix's
 * inside it both hold.
 *
 * Pages are exact: a fetch takes a place before it starts (`take`), so
 * several connections or hosts under one budget never overshoot it; bytes
 * are known only afterwards, so the fetch that crosses maxBytes is kept.
 */
import { targetOfUrl } from '../config/override-match.js';
import type { OverrideEntry, Overrides } from './overrides.js';

/** Heritrix's S_BLOCKED_BY_QUOTA. */
export const BUDGET_EXCEEDED_STATUS = -5003;
export const BUDGET_EXCEEDED = 'budgetExceeded';

interface Budget {
  readonly match: string;
  readonly maxPages: number;
  readonly maxBytes: number;
  pages: number;
  bytes: number;
  /** Fetches under way that took a place. */
  inFlight: number;
}

/** One budget's figures, for the reports. */
export interface BudgetReport {
  match: string;
  maxPages: number;
  maxBytes: number;
  pages: number;
  bytes: number;
  reached: boolean;
}

/** What `take` says: go (and `release()` when the fetch is over), wait for fetches under way, or the budget is spent. */
export type BudgetTake = { kind: 'go'; release: () => void } | { kind: 'wait' } | { kind: 'spent' };

const GO_FREE: BudgetTake & { kind: 'go' } = Object.freeze({ kind: 'go', release: () => {} });
const WAIT: BudgetTake = Object.freeze({ kind: 'wait' });
const SPENT: BudgetTake = Object.freeze({ kind: 'spent' });

export class Budgets {
  readonly #overrides: Overrides;
  readonly #budgets = new Map<OverrideEntry, Budget>();

  constructor(overrides: Overrides) {
    this.#overrides = overrides;
    for (const entry of overrides.entries) {
      const maxPages = entry.spec.limits?.maxPages ?? 0;
      const maxBytes = entry.spec.limits?.maxBytes ?? 0;
      if (maxPages > 0 || maxBytes > 0) this.#budgets.set(entry, { match: entry.spec.match, maxPages, maxBytes, pages: 0, bytes: 0, inFlight: 0 });
    }
  }

  /** Whether any override has a budget (callers skip their checks when none has). */
  get any(): boolean {
    return this.#budgets.size > 0;
  }

  /** Whether a budget covering `url` is reached (at discovery: fetches under way not counted). */
  spent(url: string): boolean {
    return this.#of(url).some(reached);
  }

  /**
   * Before a fetch of `url`: a place under every budget covering it. `wait`
   * when only fetches under way fill a budget (one of them may fail and
   * free its place).
   */
  take(url: string): BudgetTake {
    const budgets = this.#of(url);
    if (budgets.length === 0) return GO_FREE;
    if (budgets.some(reached)) return SPENT;
    if (budgets.some((b) => b.maxPages > 0 && b.pages + b.inFlight >= b.maxPages)) return WAIT;
    return this.#go(budgets);
  }

  /**
   * A fetch that goes whatever the budgets say (a robots.txt: the URIs of its
   * host wait for it) still holds a place while under way, so the fetches
   * that start meanwhile see it coming: it is counted when captured.
   */
  hold(url: string): { release: () => void } {
    const budgets = this.#of(url);
    return budgets.length === 0 ? GO_FREE : this.#go(budgets);
  }

  #go(budgets: Budget[]): BudgetTake & { kind: 'go' } {
    for (const b of budgets) b.inFlight++;
    let released = false;
    return {
      kind: 'go',
      release: () => {
        if (released) return;
        released = true;
        for (const b of budgets) b.inFlight--;
      },
    };
  }

  /** A capture of `url` with `bytes` of body (also replayed from crawl.log on resume). */
  captured(url: string, bytes: number): void {
    for (const b of this.#of(url)) {
      b.pages++;
      b.bytes += bytes;
    }
  }

  /** Every budget, in profile order. */
  report(): BudgetReport[] {
    return [...this.#budgets.values()].map((b) => ({ match: b.match, maxPages: b.maxPages, maxBytes: b.maxBytes, pages: b.pages, bytes: b.bytes, reached: reached(b) }));
  }

  #of(url: string): Budget[] {
    if (this.#budgets.size === 0) return [];
    const target = targetOfUrl(url);
    if (target === null) return [];
    const out: Budget[] = [];
    for (const entry of this.#overrides.covering(target)) {
      const b = this.#budgets.get(entry);
      if (b !== undefined) out.push(b);
    }
    return out;
  }
}

function reached(b: Budget): boolean {
  return (b.maxPages > 0 && b.pages >= b.maxPages) || (b.maxBytes > 0 && b.bytes >= b.maxBytes);
}
