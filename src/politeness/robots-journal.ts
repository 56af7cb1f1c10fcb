/**
 * Resume support for robots.txt: every robots result the crawl records is
 * also kept in the crawl's state (origin → what was decided and when, the
 * body ≤ 500 KiB), and replayed into a fresh RobotsStore when a job resumes,
 * so a restart neither fetches every host's robots.txt again nor forgets
 * that one is being waited for. Over a store other processes write too (a
 * crawl of several nodes), `follow()` takes in what they recorded since, so
 * a host's robots.txt is fetched once for the whole crawl.
 */
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';
import type { RobotsFetchResult, RobotsStore } from './robots-store.js';

/** The head line of a saved entry; the robots.txt body follows it. */
type Saved =
  /** An answer with rules, fetched at `at`. */
  | { at: number; status: number }
  /** Unavailable: no fetch before `until` (null: never). */
  | { at: number; until: number | null }
  /** Unavailable, retries spent, crawled as allowed. */
  | { at: number; allowAll: true }
  /** Written by earlier versions for an unreachable robots.txt: fetched again. */
  | { at: number; unreachable: true };

export class RobotsJournal {
  readonly #records: RecordStore;
  /** Where follow() reads on in a shared store's change list. */
  #cursor = 0;

  constructor(records: RecordStore) {
    this.#records = records;
  }

  /** A robots.txt answer that gave rules. */
  async saveFetched(origin: string, result: Extract<RobotsFetchResult, { kind: 'fetched' }>, at: number): Promise<void> {
    await this.#put(origin, { at, status: result.status }, result.body);
  }

  /** Unavailable: waiting until `untilMs` (Infinity: the host is closed). */
  async saveWaiting(origin: string, untilMs: number, at: number): Promise<void> {
    await this.#put(origin, { at, until: Number.isFinite(untilMs) ? untilMs : null });
  }

  async saveAllowAll(origin: string, at: number): Promise<void> {
    await this.#put(origin, { at, allowAll: true });
  }

  /** Replays every saved result into `store`, with its original times (expiry stays right). */
  async restore(store: RobotsStore): Promise<number> {
    const shared = this.#shared();
    if (shared !== null) {
      this.#cursor = 0;
      return this.follow(store);
    }
    let n = 0;
    for await (const [origin, value] of this.#records.entries()) if (this.#apply(store, origin, value)) n++;
    return n;
  }

  /** Takes in results other processes saved since the last call (a shared store; 0 otherwise). */
  async follow(store: RobotsStore): Promise<number> {
    const shared = this.#shared();
    if (shared === null) return 0;
    const { entries, cursor } = await shared.changedSince(this.#cursor);
    this.#cursor = cursor;
    let n = 0;
    for (const [origin, value] of entries) if (this.#apply(store, origin, value)) n++;
    return n;
  }

  /**
   * What another process of a shared crawl saved for `origin`, taken into
   * `store` now rather than at the next follow(): true when there was
   * something. Always false over a store of one process.
   */
  async lookup(store: RobotsStore, origin: string): Promise<boolean> {
    if (this.#shared() === null) return false;
    const value = await this.#records.get(origin);
    return value !== undefined && this.#apply(store, origin, value);
  }

  #shared(): SharedRecordStore | null {
    return 'changedSince' in this.#records ? (this.#records as SharedRecordStore) : null;
  }

  #apply(store: RobotsStore, origin: string, value: Buffer): boolean {
    const newline = value.indexOf(0x0a);
    if (newline < 0) return false;
    const head = JSON.parse(value.subarray(0, newline).toString('utf8')) as Saved;
    if ('status' in head) store.record(origin, { kind: 'fetched', status: head.status, body: value.subarray(newline + 1) }, head.at);
    else if ('until' in head) store.retryAt(origin, head.until ?? Infinity);
    else if ('allowAll' in head) store.allowAll(origin, head.at);
    else return false;
    return true;
  }

  async #put(origin: string, head: Saved, body: Buffer = Buffer.alloc(0)): Promise<void> {
    await this.#records.put(origin, Buffer.concat([Buffer.from(JSON.stringify(head) + '\n'), body]));
  }
}
