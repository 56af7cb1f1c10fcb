/**
 * Patience: best-first across hosts, when politeness is what limits the
 * crawl. The frontier hands out the best URI of whichever host is free; when
 * every host is fetched as fast as it may be (one connection each, or a
 * politeness delay), the host whose best URI is poor gets its turn as often
 * as the one full of promising URIs, and a crawl with a page budget spends
 * it on the poor ones. So a claimed link whose score is well below what the
 * crawl has lately been claiming waits a little (its queue and host snooze,
 * as after any fetch: politeness only ever gets slower), while the
 * promising hosts are fetched as fast as they allow.
 *
 * "Lately": the scores of the links claimed (those made to wait included)
 * in the last WINDOW_MS, at most WINDOW_CLAIMS of them. A link waits when
 * its score is below RATIO × their BAR_QUANTILE quantile. Nothing stalls for
 * long: once only poor links are left, the waiting ones fill the window with
 * their own scores, the bar comes down to them within a window, and they
 * are fetched.
 */

export const WINDOW_MS = 2000;
export const WINDOW_CLAIMS = 128;
export const BAR_QUANTILE = 0.75;
export const RATIO = 0.8;
/** How long a link that waits snoozes its queue. */
export const PATIENCE_WAIT_MS = 200;

export class Patience {
  /** Claim times and scores, oldest first (a ring would save the shifts; the window is small). */
  readonly #at: number[] = [];
  readonly #score: number[] = [];

  /** A link of `score` is claimed at `now` (ms): whether it waits. */
  waits(score: number, now: number): boolean {
    while (this.#at.length > 0 && (this.#at[0]! < now - WINDOW_MS || this.#at.length >= WINDOW_CLAIMS)) {
      this.#at.shift();
      this.#score.shift();
    }
    const bar = this.#at.length === 0 ? 0 : quantile(this.#score, BAR_QUANTILE);
    this.#at.push(now);
    this.#score.push(score);
    return score < RATIO * bar;
  }
}

function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
