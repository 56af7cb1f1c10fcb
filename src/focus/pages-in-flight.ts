/**
 * Best-first on one host: a page's links must be placed before the host's
 * next URI is chosen. The frontier may fetch a host again as soon as a
 * fetch is over (after its politeness delay), while the page just fetched
 * is still parsed and its links scheduled; with a short delay, the next
 * URI is chosen before those links are in the queue, and a crawl on a
 * budget spends it on what the page before the last one pointed to (on a
 * real documentation site, the front page's whole table of contents before
 * the links of the first relevant page: issue 26).
 *
 * So in a crawl with a budget, a link claimed while a page of its host
 * claimed less than MAX_HOLD_MS ago is still being processed waits
 * FOLLOW_WAIT_MS, and is claimed again then — the queue's best by then.
 * Where the politeness delay outlasts the processing, nothing ever waits.
 */

/** How long a link waits for its host's page in process. */
export const FOLLOW_WAIT_MS = 5;
/** A page processed for longer than this (a slow write, a huge page) no longer holds its host's links. */
export const MAX_HOLD_MS = 1000;

export class PagesInFlight {
  /** Pages claimed and not settled: their host and when they were claimed. */
  readonly #pages = new Map<string, { host: string; at: number }>();
  /** Per host: pages in process, and the latest claim. */
  readonly #hosts = new Map<string, { count: number; latestAt: number }>();

  /** Whether a page of `host` claimed lately is still in process at `now`. */
  busy(host: string, now: number): boolean {
    const h = this.#hosts.get(host);
    return h !== undefined && now - h.latestAt < MAX_HOLD_MS;
  }

  claimed(url: string, host: string, now: number): void {
    if (this.#pages.has(url)) return;
    this.#pages.set(url, { host, at: now });
    const h = this.#hosts.get(host);
    if (h === undefined) this.#hosts.set(host, { count: 1, latestAt: now });
    else {
      h.count++;
      h.latestAt = Math.max(h.latestAt, now);
    }
  }

  settled(url: string): void {
    const page = this.#pages.get(url);
    if (page === undefined) return;
    this.#pages.delete(url);
    const h = this.#hosts.get(page.host)!;
    if (--h.count === 0) this.#hosts.delete(page.host);
  }
}
