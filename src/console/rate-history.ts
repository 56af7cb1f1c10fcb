/**
 * The recent speed of a crawl, one sample per progress tick (about a
 * second), for the console's chart: URIs, pages and kilobytes per second
 * between consecutive ticks. A ring of the last CAPACITY samples, so a page
 * opened late still draws the last minutes, and memory stays fixed.
 */
import type { CrawlStatus } from '../crawl/crawl-status.js';

/** Fifteen minutes at one tick a second. */
const CAPACITY = 900;

export interface RateSample {
  /** ISO 8601, UTC. */
  time: string;
  urisPerSec: number;
  pagesPerSec: number;
  kbPerSec: number;
}

interface Point {
  at: number;
  uris: number;
  pages: number;
  bytes: number;
}

export class RateHistory {
  readonly #samples: RateSample[] = [];
  #last: Point | null = null;

  /** Record a status taken at `now` (epoch ms); returns the new sample, null for the first status. */
  add(status: Pick<CrawlStatus, 'uris' | 'pages' | 'bytes'>, now: number): RateSample | null {
    const point: Point = { at: now, uris: status.uris, pages: status.pages, bytes: status.bytes };
    const last = this.#last;
    this.#last = point;
    if (last === null || now <= last.at) return null;
    const sec = (now - last.at) / 1000;
    const sample: RateSample = {
      time: new Date(now).toISOString(),
      urisPerSec: round1((point.uris - last.uris) / sec),
      pagesPerSec: round1((point.pages - last.pages) / sec),
      kbPerSec: round1((point.bytes - last.bytes) / 1024 / sec),
    };
    this.#samples.push(sample);
    if (this.#samples.length > CAPACITY) this.#samples.shift();
    return sample;
  }

  samples(): RateSample[] {
    return [...this.#samples];
  }
}

function round1(n: number): number {
  return Math.round(Math.max(0, n) * 10) / 10;
}
