/**
 * Resume support for robots.txt: every robots result the crawl records is
 * also kept in the state LevelDB (origin → status, fetch time, body ≤ 500
 * KiB), and replayed into a fresh RobotsStore when a job resumes, so a
 * restart does not fetch every host's robots.txt again.
 */
import type { RobotsFetchResult, RobotsStore } from './robots-store.js';

const BUF = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;

/** The part of a LevelDB sublevel the journal uses. */
export interface RobotsLevel {
  put(key: Buffer, value: Buffer, options: typeof BUF): Promise<void>;
  iterator(options: typeof BUF): AsyncIterable<[Buffer, Buffer]>;
}

export class RobotsJournal {
  readonly #db: RobotsLevel;

  constructor(db: RobotsLevel) {
    this.#db = db;
  }

  async save(origin: string, result: RobotsFetchResult, at: number): Promise<void> {
    const head = Buffer.from(JSON.stringify(result.kind === 'fetched' ? { at, status: result.status } : { at, unreachable: true }) + '\n');
    const body = result.kind === 'fetched' ? result.body : Buffer.alloc(0);
    await this.#db.put(Buffer.from(origin), Buffer.concat([head, body]), BUF);
  }

  /** Replays every saved result into `store`, with its original fetch time (expiry stays right). */
  async restore(store: RobotsStore): Promise<number> {
    let n = 0;
    for await (const [key, value] of this.#db.iterator(BUF)) {
      const newline = value.indexOf(0x0a);
      if (newline < 0) continue;
      const head = JSON.parse(value.subarray(0, newline).toString('utf8')) as { at: number; status?: number; unreachable?: boolean };
      const result: RobotsFetchResult = head.unreachable
        ? { kind: 'unreachable' }
        : { kind: 'fetched', status: head.status ?? 0, body: value.subarray(newline + 1) };
      store.record(key.toString(), result, head.at);
      n++;
    }
    return n;
  }
}
