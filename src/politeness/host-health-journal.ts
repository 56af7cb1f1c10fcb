/**
 * Resume support for HostHealth: every changed host record is saved (in
 * order, in the background: changes are rare, a failure's worth) and
 * replayed on resume, so a closed host stays closed and a waiting one keeps
 * its count of retries instead of starting over. Over a store other
 * processes write too (a crawl of several nodes), `follow()` takes in what
 * they saved since, so a host closed on one node is closed on every node.
 */
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';
import type { HostHealth, HostRecord } from './host-health.js';

export class HostHealthJournal {
  readonly #records: RecordStore;
  #writes: Promise<void> = Promise.resolve();
  #failure: unknown = undefined;
  /** Where follow() reads on in a shared store's change list. */
  #cursor = 0;

  constructor(records: RecordStore) {
    this.#records = records;
  }

  /** Save `record` after every earlier save (a snapshot of it, taken now). */
  save(host: string, record: HostRecord): void {
    const value = Buffer.from(JSON.stringify(record));
    this.#writes = this.#writes.then(async () => {
      try {
        await this.#records.put(host, value);
      } catch (err) {
        this.#failure ??= err;
      }
    });
  }

  /** Resolves once every save landed; throws the first that failed. */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Before a decision on `host` in a crawl of several processes: what the others saved of it. */
  async catchUp(health: HostHealth, host: string): Promise<void> {
    const value = await this.#records.get(host);
    if (value !== undefined) health.merge(host, JSON.parse(value.toString('utf8')) as HostRecord);
  }

  /** Takes in the host records other processes saved since the last call (a shared store; 0 otherwise). */
  async follow(health: HostHealth): Promise<number> {
    if (!('changedSince' in this.#records)) return 0;
    const { entries, cursor } = await (this.#records as SharedRecordStore).changedSince(this.#cursor);
    this.#cursor = cursor;
    for (const [host, value] of entries) health.merge(host, JSON.parse(value.toString('utf8')) as HostRecord);
    return entries.length;
  }

  async restore(health: HostHealth): Promise<number> {
    let n = 0;
    for await (const [host, value] of this.#records.entries()) {
      health.restore(host, JSON.parse(value.toString('utf8')) as HostRecord);
      n++;
    }
    return n;
  }
}
