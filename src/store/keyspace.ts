/**
 * A named key range inside the crawl's one LevelDB, for the hot paths (the
 * already-seen filter writes a key per discovered URL).
 *
 * The bytes are exactly what abstract-level's `db.sublevel(name)` writes
 * (`!name!` + key), so data written either way reads back either way. The
 * difference is cost: a sublevel re-encodes and concatenates every key on
 * every call (about 5 µs of main-thread time per put here), while a
 * keyspace's callers write the prefix into buffers they allocate anyway and
 * talk to the root database directly (about 1 µs per put).
 */
import type { ClassicLevel } from 'classic-level';

export type RootLevel = ClassicLevel<Buffer, Buffer>;

/** Options every call passes, so the root database's default encodings never matter. */
export const BUFFER_ENCODINGS = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;

export class Keyspace {
  /** The prefix every key of this space starts with (empty for a whole database). */
  readonly prefix: Buffer;

  /** `name` '' uses the whole database; otherwise it names a sublevel-compatible range. */
  constructor(
    readonly db: RootLevel,
    name: string,
  ) {
    if (name !== '' && !/^[\x22-\x7e]+$/.test(name)) {
      throw new RangeError(`keyspace name must be printable ASCII above '!', got ${JSON.stringify(name)}`);
    }
    this.prefix = name === '' ? Buffer.alloc(0) : Buffer.from(`!${name}!`, 'latin1');
  }

  /** A key of this space: the prefix followed by `suffix`. */
  key(suffix: Uint8Array): Buffer {
    const out = Buffer.allocUnsafe(this.prefix.length + suffix.length);
    this.prefix.copy(out, 0);
    out.set(suffix, this.prefix.length);
    return out;
  }

  /**
   * The first key after every key of this space (the prefix's last byte
   * plus one; a prefix ends in '!', never 0xFF), or null for a whole database.
   */
  get end(): Buffer | null {
    if (this.prefix.length === 0) return null;
    const out = Buffer.from(this.prefix);
    out[out.length - 1] = (out[out.length - 1] as number) + 1;
    return out;
  }

  /** The whole space as an iterator range. */
  get range(): { gte?: Buffer; lt?: Buffer } {
    const end = this.end;
    return end === null ? {} : { gte: this.prefix, lt: end };
  }

  /** Whether the database's default encodings are buffers (callers that skip per-call encoding options need them). */
  get hasBufferEncodings(): boolean {
    return this.db.keyEncoding().commonName === 'buffer' && this.db.valueEncoding().commonName === 'buffer';
  }

  /** The suffix of a key read back from the database. */
  suffix(key: Buffer): Buffer {
    return key.subarray(this.prefix.length);
  }

  /** Open the database if it is not yet (for a database this keyspace's owner opened itself). */
  async open(): Promise<void> {
    if (this.db.status === 'opening' || this.db.status === 'closed') await this.db.open();
  }
}
