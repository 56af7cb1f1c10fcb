/**
 * Decides whether a capture is a duplicate of an earlier one by payload
 * digest. Lookup-then-remember on the index is not atomic, so two identical
 * payloads fetched at the same moment would both be archived in full; the
 * in-flight map makes the second one wait for the first's decision.
 */
import type { DigestCapture, DigestIndex } from '../writer/digest-index.js';

interface Pending {
  url: string;
  date: string;
  earlier: Promise<DigestCapture | null>;
}

export class PayloadDedup {
  readonly #index: DigestIndex;
  readonly #inFlight = new Map<string, Pending>();

  constructor(index: DigestIndex) {
    this.#index = index;
  }

  /** The capture this one revisits, or null when it is the first with this payload. */
  async originalOf(digest: string, url: string, date: string): Promise<DigestCapture | null> {
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

  async #decide(digest: string, url: string, date: string): Promise<DigestCapture | null> {
    const earlier = await this.#index.lookup(digest);
    if (!earlier) await this.#index.remember(digest, url, date);
    return earlier;
  }
}
