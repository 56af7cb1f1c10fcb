/**
 * A link found again by a better path is queued again, higher. The seen
 * filter keeps a URL's first discovery only, so a page first found under
 * an off-topic front page ("Pragmas", relevance 0) kept that rank however
 * many relevant pages linked to it later under anchors that named the
 * topic ("PRAGMA journal_mode"): on a real documentation site the pages most
 * linked from the topic's neighbourhood were never fetched within the
 * budget (issue 26). The frontier cannot re-rank a queued URI, so a second
 * copy goes in at the better rank (`forced`, past the seen filter), and
 * whichever copy is claimed once the page was fetched is dropped unfetched.
 *
 * Bounded: a URL is queued again only when its new score beats the one it
 * was queued with by MARGIN, at most MAX_COPIES times; at most MAX_TRACKED
 * URLs are remembered (by a 53-bit fingerprint), after which new URLs keep
 * their first rank. Only URLs this process queued are tracked, so a page
 * fetched by an earlier run of the job is never queued again; a copy queued
 * before a restart, or claimed by another node of a shared crawl, may still
 * be fetched a second time.
 */
import type { Fp64 } from '../fingerprint/rabin.js';
import { keyInto } from '../uniq/heritrix-key.js';

export const MARGIN = 0.2;
export const MAX_COPIES = 2;
export const MAX_TRACKED = 200_000;

interface Tracked {
  /** The best score it is queued with. */
  score: number;
  /** Extra copies queued and not yet claimed. */
  copies: number;
  fetched: boolean;
}

export class BetterPaths {
  readonly #tracked = new Map<number, Tracked>();
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };

  /** A URL placed again with `score`: whether to queue another copy (its rank is then `score`). */
  again(url: string, score: number): boolean {
    const t = this.#tracked.get(this.#key(url));
    if (t === undefined || t.fetched || t.copies >= MAX_COPIES || score < t.score + MARGIN) return false;
    t.score = score;
    t.copies++;
    return true;
  }

  /** URLs the seen filter let through, with the scores they were queued with. */
  queued(url: string, score: number): void {
    const key = this.#key(url);
    if (this.#tracked.has(key) || this.#tracked.size >= MAX_TRACKED) return;
    this.#tracked.set(key, { score, copies: 0, fetched: false });
  }

  /** A URL queued again lower (region-rates.ts): a better path may lift it again. */
  lowered(url: string, score: number): void {
    const t = this.#tracked.get(this.#key(url));
    if (t !== undefined) t.score = score;
  }

  /** Whether a claimed URI is a copy of a page already fetched: then it is dropped (and no longer counted). */
  superseded(url: string): boolean {
    const t = this.#tracked.get(this.#key(url));
    if (t === undefined || !t.fetched || t.copies === 0) return false;
    t.copies--;
    return true;
  }

  /** A claimed URI was fetched (or given up for good). */
  fetched(url: string): void {
    const t = this.#tracked.get(this.#key(url));
    if (t !== undefined) t.fetched = true;
  }

  #key(url: string): number {
    // The seen filter's key (host prefix, then the URL's fingerprint), cut to 53 bits from the bottom: 40 bits of the URL's own.
    const fp = keyInto(url, this.#scratch);
    return (fp.hi & 0x1fffff) * 0x100000000 + fp.lo;
  }
}
