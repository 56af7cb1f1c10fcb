/**
 * Every write of the LevelDB seen filter, in one ordered channel: puts of
 * new keys and deletes of forgotten ones go out one LevelDB batch at a
 * time, in the order asked, each batch with the new stored count, so the
 * count on disk is always exact. Requests that arrive while a batch is
 * being written wait and go out together in the next one (group commit):
 * one store call for many pages' links.
 *
 * The first failed write is kept; every later request, and allWritten(),
 * rejects with it.
 *
 * A caller producing keys faster than the store takes them should wait for
 * the write in flight (`inFlightLanded`) once `waitingKeys` grows, rather than
 * for its own: that hands the waiting group to the store at once, so the
 * next group builds up while the store writes this one. A caller that never
 * yields to the event loop otherwise (every answer from memory) would not
 * see a finished write until it waited, and the store would sit idle while
 * it works.
 */
import type { Keyspace } from '../store/keyspace.js';

const EMPTY = Buffer.alloc(0);

interface Request {
  puts: readonly Buffer[];
  dels: readonly Buffer[];
  done: () => void;
  failed: (err: unknown) => void;
}

export class SeenStoreWrites {
  readonly #space: Keyspace;
  readonly #countKey: Buffer;
  #count: number;
  #waiting: Request[] = [];
  #writing = false;
  /** Keys put or deleted by requests not yet in the store. */
  #pendingKeys = 0;
  /** Keys in the write now in flight (the rest of #pendingKeys waits for the next one). */
  #inFlightKeys = 0;
  /** Settles when the write now in flight lands, whatever its outcome. */
  #landed: Promise<void> = Promise.resolve();
  #failure: unknown = undefined;

  /** `countKey`: the full store key of the count; `count`: the count stored now. */
  constructor(space: Keyspace, countKey: Buffer, count: number) {
    this.#space = space;
    this.#countKey = countKey;
    this.#count = count;
  }

  /** Keys stored, as of the last batch that landed. */
  get count(): number {
    return this.#count;
  }

  /** Keys asked to be written or deleted and not in the store yet. */
  get pendingKeys(): number {
    return this.#pendingKeys;
  }

  /** Keys asked to be written or deleted that wait for the next write (none are in flight). */
  get waitingKeys(): number {
    return this.#pendingKeys - this.#inFlightKeys;
  }

  /** Resolves (never rejects) when the write in flight now has landed; at once if none is. */
  inFlightLanded(): Promise<void> {
    return this.#landed;
  }

  /** The first failed write, if any. */
  get failure(): unknown {
    return this.#failure;
  }

  /** Put `keys` (absent ones: the caller checked) after every earlier request. */
  put(keys: readonly Buffer[]): Promise<void> {
    return this.#request(keys, []);
  }

  /** Delete `keys` (present ones: the caller checked) after every earlier request. */
  del(keys: readonly Buffer[]): Promise<void> {
    return this.#request([], keys);
  }

  /** Resolves when every request made so far is in the store; rejects if one failed. */
  allWritten(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (!this.#writing && this.#waiting.length === 0) return Promise.resolve();
    return this.#request([], []);
  }

  #request(puts: readonly Buffer[], dels: readonly Buffer[]): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    this.#pendingKeys += puts.length + dels.length;
    const written = new Promise<void>((done, failed) => this.#waiting.push({ puts, dels, done, failed }));
    if (!this.#writing) void this.#drain();
    return written;
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const group = this.#waiting;
      this.#waiting = [];
      let delta = 0;
      let keys = 0;
      for (const r of group) {
        delta += r.puts.length - r.dels.length;
        keys += r.puts.length + r.dels.length;
      }
      this.#inFlightKeys = keys;
      try {
        const batch = this.#space.db.batch();
        for (const r of group) {
          for (const key of r.puts) batch.put(key, EMPTY);
          for (const key of r.dels) batch.del(key);
        }
        batch.put(this.#countKey, Buffer.from(String(this.#count + delta), 'latin1'));
        const write = batch.write();
        this.#landed = write.then(
          () => undefined,
          () => undefined,
        );
        await write;
        this.#count += delta;
        for (const r of group) r.done();
      } catch (err) {
        this.#failure ??= err;
        for (const r of group) r.failed(err);
      }
      this.#pendingKeys -= keys;
      this.#inFlightKeys = 0;
    }
    this.#writing = false;
  }
}
