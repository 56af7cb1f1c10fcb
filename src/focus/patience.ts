/**
 * Patience: best-first across hosts, when politeness is what limits the
 * crawl. The frontier hands out the best URI of whichever host is free; when
 * every host is fetched as fast as it may be (one connection each, or a
 * politeness delay), the host whose best URI is poor gets its turn as often
 * as the one full of promising URIs, and a crawl with a page budget spends
 * it on the poor ones. So a claimed link whose score is well below those
 * the crawl has lately been fetching waits a little (its queue and host
 * snooze, as after any fetch: politeness only ever gets slower), while the
 * promising hosts are fetched as fast as they allow.
 *
 * "Lately": the scores of the links fetched (not those made to wait) in
 * the last `windowMs`, at most WINDOW_CLAIMS of them. The window is at least
 * twice the politeness delay, so that a promising host fetched once per
 * delay keeps its place in it. A link waits when its score is below RATIO ×
 * their BAR_QUANTILE quantile. Nothing waits for long: once no promising
 * link is fetched for a window, the window is empty, the first link goes,
 * and the bar is what the crawl has left.
 */

/** The shortest window. */
export const WINDOW_MS = 2000;
export const WINDOW_CLAIMS = 128;
export const BAR_QUANTILE = 0.75;
export const RATIO = 0.8;
/** How long a link that waits snoozes its queue. */
export const PATIENCE_WAIT_MS = 200;

export class Patience {
  readonly #windowMs: number;
  /** Fetch times and scores, oldest first (a ring would save the shifts; the window is small). */
  readonly #at: number[] = [];
  readonly #score: number[] = [];

  /** `delayMs`: the politeness delay between two fetches of a host (the window is at least twice it). */
  constructor(delayMs = 0) {
    this.#windowMs = Math.max(WINDOW_MS, 2 * delayMs);
  }

  /** A link of `score` is claimed at `now` (ms): whether it waits; if not, it counts as fetched. */
  waits(score: number, now: number): boolean {
    while (this.#at.length > 0 && (this.#at[0]! < now - this.#windowMs || this.#at.length >= WINDOW_CLAIMS)) {
      this.#at.shift();
      this.#score.shift();
    }
    if (this.#at.length > 0 && score < RATIO * quantile(this.#score, BAR_QUANTILE)) return true;
    this.#at.push(now);
    this.#score.push(score);
    return false;
  }
}

function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
