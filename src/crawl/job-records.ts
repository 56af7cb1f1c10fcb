/**
 * What a job remembers about itself across runs, beside its URIs: seeds an
 * operator added while it ran (a resumed crawl keeps them, and their hosts
 * in scope), exclusions added the same way, and the crawl time of all its
 * runs so far (so a resumed crawl reports the job's time, not just this
 * run's). Small records in the state backend.
 */
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';

const SEED = 'seed:';
const EXCLUDE = 'exclude:';
const CRAWL_TIME = 'crawlTimeMs';

export class JobRecords {
  readonly #records: RecordStore;
  /** The same store when other processes of the crawl write it too; null otherwise. */
  readonly #shared: SharedRecordStore | null;
  /** Where followAdded() reads on in a shared store's change list. */
  #cursor = 0;

  constructor(records: RecordStore) {
    this.#records = records;
    this.#shared = 'changedSince' in records ? (records as SharedRecordStore) : null;
  }

  /** Seeds added while running, in the order they were added. */
  async addedSeeds(): Promise<string[]> {
    return (await this.#withPrefix(SEED)).sort((a, b) => a.at - b.at || (a.value < b.value ? -1 : 1)).map((e) => e.value);
  }

  /**
   * Seeds added together: in a shared store, every other process takes in
   * all of them at once, so none judges a link from one of them to another's
   * host before it knows of that host (crawl-wide.ts, link-scheduler.ts).
   */
  async addSeeds(urls: readonly string[], at: number): Promise<void> {
    const value = Buffer.from(JSON.stringify({ at }));
    const entries = urls.map((url) => [SEED + url, value] as const);
    if (this.#shared !== null) await this.#shared.putAll(entries);
    else for (const [key, v] of entries) await this.#records.put(key, v);
  }

  /** Exclusion regexes added while running, in the order they were added. */
  async exclusions(): Promise<string[]> {
    return (await this.#withPrefix(EXCLUDE)).sort((a, b) => a.at - b.at).map((e) => e.value);
  }

  async addExclusion(regex: string, at: number): Promise<void> {
    await this.#records.put(EXCLUDE + regex, Buffer.from(JSON.stringify({ at })));
  }

  /**
   * Seeds and exclusions recorded since the last call, by any process of
   * the crawl — a node, or `archiver serve --store` — in a shared store;
   * none otherwise.
   */
  async followAdded(): Promise<{ seeds: string[]; exclusions: string[] }> {
    if (this.#shared === null) return { seeds: [], exclusions: [] };
    const { entries, cursor } = await this.#shared.changedSince(this.#cursor);
    this.#cursor = cursor;
    const keys = entries.map(([key]) => key);
    return {
      seeds: keys.filter((key) => key.startsWith(SEED)).map((key) => key.slice(SEED.length)),
      exclusions: keys.filter((key) => key.startsWith(EXCLUDE)).map((key) => key.slice(EXCLUDE.length)),
    };
  }

  /** Crawl time of every run saved so far, in ms (0 for a new job). */
  async crawlTimeMs(): Promise<number> {
    const raw = await this.#records.get(CRAWL_TIME);
    const n = raw === undefined ? 0 : Number(raw.toString('utf8'));
    return Number.isFinite(n) && n > 0 ? n : 0;
  }

  async saveCrawlTimeMs(totalMs: number): Promise<void> {
    await this.#records.put(CRAWL_TIME, Buffer.from(String(Math.round(totalMs))));
  }

  async #withPrefix(prefix: string): Promise<Array<{ value: string; at: number }>> {
    const out: Array<{ value: string; at: number }> = [];
    for await (const [key, raw] of this.#records.entries()) {
      if (!key.startsWith(prefix)) continue;
      const at = Number((JSON.parse(raw.toString('utf8')) as { at?: unknown }).at);
      out.push({ value: key.slice(prefix.length), at: Number.isFinite(at) ? at : 0 });
    }
    return out;
  }
}
