/**
 * A crawl the console runs or watches: the Crawl handle, its job directory
 * and name as the console knows it, and the history of its speed for the
 * chart, fed by the crawl's progress ticks; for a node of a crawl of
 * several processes, the queue and host tables of every node.
 */
import type { Crawl } from '../crawl/crawl.js';
import type { CrawlStatus } from '../crawl/crawl-status.js';
import { NodeWideTables } from './node-wide-tables.js';
import { RateHistory, type RateSample } from './rate-history.js';

export class LiveJob {
  readonly name: string;
  readonly dir: string;
  readonly crawl: Crawl;
  readonly history = new RateHistory();
  /** A node of a crawl of several processes whose store can be inspected: the queues and hosts of every node; null otherwise. */
  readonly wide: NodeWideTables | null;
  /** Epoch ms the console attached to it. */
  readonly startedAt: number;
  #endedAt: number | null = null;
  readonly #now: () => number;
  readonly #onSample = new Set<(sample: RateSample, status: CrawlStatus) => void>();

  constructor(opts: { name: string; dir: string; crawl: Crawl; now?: () => number }) {
    this.name = opts.name;
    this.dir = opts.dir;
    this.crawl = opts.crawl;
    this.wide = NodeWideTables.of(opts.crawl.store);
    this.#now = opts.now ?? Date.now;
    this.startedAt = this.#now();
    this.history.add(opts.crawl.status(), this.startedAt);
    opts.crawl.events.on('progress', (status) => {
      const sample = this.history.add(status, this.#now());
      if (sample !== null) for (const fn of this.#onSample) fn(sample, status);
    });
    opts.crawl.events.on('state', (e) => {
      if (e.state === 'finished') this.#endedAt = this.#now();
    });
  }

  get endedAt(): number | null {
    return this.#endedAt;
  }

  /** The console is done with it (what it opened to read the store is closed). */
  async close(): Promise<void> {
    await this.wide?.close();
  }

  /** Called with each new sample and the status it came from; returns the function that stops it. */
  onSample(fn: (sample: RateSample, status: CrawlStatus) => void): () => void {
    this.#onSample.add(fn);
    return () => {
      this.#onSample.delete(fn);
    };
  }
}
