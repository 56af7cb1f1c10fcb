/**
 * Decides whether a capture is a duplicate of an earlier one by payload
 * digest: first this crawl's own digest index, then (optionally) the
 * captures of earlier crawls (`dedup.against`). Lookup-then-remember on the
 * index is not atomic, so two identical payloads fetched at the same moment
 * would both be archived in full; the in-flight map makes the second one
 * wait for the first's decision.
 */
import type { EarlierCaptureLookup } from './earlier-captures.js';
import type { DigestIndex } from './digest-index.js';

/** The capture a revisit points at; `container` names the earlier crawl's WACZ. */
export interface RevisitTarget {
  url: string;
  /** ISO 8601. */
  date: string;
  container?: string;
}

interface Pending {
  url: string;
  date: string;
  earlier: Promise<RevisitTarget | null>;
}

export class PayloadDedup {
  readonly #index: DigestIndex;
  readonly #earlierCrawls: EarlierCaptureLookup | null;
  readonly #inFlight = new Map<string, Pending>();

  constructor(index: DigestIndex, earlierCrawls: EarlierCaptureLookup | null = null) {
    this.#index = index;
    this.#earlierCrawls = earlierCrawls;
  }

  /** The capture this one revisits, or null when it is the first with this payload. */
  async originalOf(digest: string, url: string, date: string): Promise<RevisitTarget | null> {
    const pending = this.#inFlight.get(digest);
    if (pending) return (await pending.earlier) ?? { url: pending.url, date: pending.date };
    const earlier = this.#decide(digest, url, date);
    this.#inFlight.set(digest, { url, date, earlier });
    try {
      return await earlier;
    } finally {
      this.#inFlight.delete(digest);
    }
  }

  async #decide(digest: string, url: string, date: string): Promise<RevisitTarget | null> {
    const inThisCrawl = await this.#index.lookup(digest);
    if (inThisCrawl) return inThisCrawl;
    // Not remembered in this crawl's index when an earlier crawl holds it:
    // this capture is a revisit, so later duplicates must point past it too.
    const inEarlierCrawl = this.#earlierCrawls ? await this.#earlierCrawls.lookup(digest) : null;
    if (inEarlierCrawl) return inEarlierCrawl;
    await this.#index.remember(digest, url, date);
    return null;
  }
}
