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
  /** Where followAdded() reads on in a shared store's change list. */
  #cursor = 0;

  constructor(records: RecordStore) {
    this.#records = records;
  }

  /** Seeds added while running, in the order they were added. */
  async addedSeeds(): Promise<string[]> {
    return (await this.#withPrefix(SEED)).sort((a, b) => a.at - b.at || (a.value < b.value ? -1 : 1)).map((e) => e.value);
  }

  async addSeed(url: string, at: number): Promise<void> {
    await this.#records.put(SEED + url, Buffer.from(JSON.stringify({ at })));
  }

  /** Exclusion regexes added while running, in the order they were added. */
  async exclusions(): Promise<string[]> {
    return (await this.#withPrefix(EXCLUDE)).sort((a, b) => a.at - b.at).map((e) => e.value);
  }

  async addExclusion(regex: string, at: number): Promise<void> {
    await this.#records.put(EXCLUDE + regex, Buffer.from(JSON.stringify({ at })));
  }

  /** Exclusions and seeds recorded since the last call, by any process of the crawl (a shared store; none otherwise). */
  async followAdded(): Promise<{ exclusions: string[]; seeds: string[] }> {
    if (!('changedSince' in this.#records)) return { exclusions: [], seeds: [] };
    const { entries, cursor } = await (this.#records as SharedRecordStore).changedSince(this.#cursor);
    this.#cursor = cursor;
    const withPrefix = (prefix: string): string[] => entries.filter(([key]) => key.startsWith(prefix)).map(([key]) => key.slice(prefix.length));
    return { exclusions: withPrefix(EXCLUDE), seeds: withPrefix(SEED) };
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
