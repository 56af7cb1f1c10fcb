/**
 * One WARC file being written: opened as `<name>.open`, appended record by
 * record (each its own gzip member) through a WriteStream whose
 * back-pressure is honoured (we await `drain`), renamed to `<name>` on
 * close. It tracks how many bytes were handed to the stream so each
 * record's offset and length are known for indexes, and after a failure it
 * can cut the file back to the last complete capture.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { Member } from './capture-members.js';
import { gzipStreamed } from './gzip-member.js';
import type { PreparedRecord } from './warc-records.js';
import { OPEN_SUFFIX } from './warc-naming.js';
import { closeStream, corkForTurn, waitDrain } from './write-stream.js';

export interface RecordSpan {
  offset: number;
  length: number;
}

export class WarcFile {
  readonly name: string;
  readonly finalPath: string;
  readonly openPath: string;
  readonly #stream: WriteStream;
  #size = 0;
  #durableSize = 0;
  #failure: Error | null = null;
  /** Settles when the last record's final chunk has been handed to the OS. */
  #lastFlush: Promise<void> = Promise.resolve();
  #closed = false;
  #aborting: Promise<void> | null = null;
  /** Captures written to this file (rotation never leaves a file with only its warcinfo). */
  captures = 0;

  private constructor(dir: string, name: string, stream: WriteStream) {
    this.name = name;
    this.finalPath = path.join(dir, name);
    this.openPath = this.finalPath + OPEN_SUFFIX;
    this.#stream = stream;
    // Without a listener an fs error would crash the process; we surface it on the next write instead.
    stream.on('error', (err) => {
      this.#failure ??= err;
    });
  }

  /** Create `<dir>/<name>.open` (waits until the descriptor is open so open errors surface here). */
  static async create(dir: string, name: string): Promise<WarcFile> {
    const stream = createWriteStream(path.join(dir, name + OPEN_SUFFIX), { flags: 'w' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => {
        stream.off('error', reject);
        resolve();
      });
      stream.once('error', reject);
    });
    return new WarcFile(dir, name, stream);
  }

  /** Bytes handed to the stream so far (= the file's size once flushed). */
  get size(): number {
    return this.#size;
  }

  /**
   * Append records, each its own gzip member: finished members (Buffers) go
   * to the stream in one corked batch (one writev), a large record is
   * compressed as it streams. The last chunk is written with a callback so
   * flushed() can tell when it reached the OS; back-pressure is honoured
   * (we await `drain`) before returning.
   */
  async writeMembers(members: ReadonlyArray<Member>): Promise<RecordSpan[]> {
    if (this.#failure) throw this.#failure;
    const stream = this.#stream;
    const spans: RecordSpan[] = [];
    let corked = false;
    let full = false;
    for (let i = 0; i < members.length; i++) {
      const member = members[i]!;
      const last = i === members.length - 1;
      const offset = this.#size;
      if (member instanceof Uint8Array) {
        if (!corked) stream.cork();
        corked = true;
        if (!this.#push(member, last)) full = true;
      } else {
        if (corked) stream.uncork();
        corked = false;
        if (full) await this.#drained();
        full = false;
        await this.#streamRecord(member, last);
      }
      spans.push({ offset, length: this.#size - offset });
    }
    if (corked) stream.uncork();
    if (full) await this.#drained();
    return spans;
  }

  /** Compress a large record through zlib straight into the file, chunk by chunk. */
  async #streamRecord(record: PreparedRecord, lastOfCall: boolean): Promise<void> {
    await gzipStreamed(record, async (compressed) => {
      // Hold one chunk back so the final one can carry the flush callback.
      let held: Uint8Array | null = null;
      for await (const chunk of compressed) {
        if (chunk.length === 0) continue;
        if (held && !this.#push(held, false)) await this.#drained();
        held = chunk;
      }
      if (held && !this.#push(held, lastOfCall)) await this.#drained();
    });
  }

  /**
   * Resolves once every byte written so far is in the OS, and from then on
   * counts them as durable: abort() never cuts below them. Rejects with the
   * write error if they could not be written.
   */
  flushed(): Promise<void> {
    const end = this.#size;
    return this.#lastFlush.then(() => {
      // Write callbacks run in order, so this only ever moves forward.
      if (end > this.#durableSize) this.#durableSize = end;
    });
  }

  /** Bytes known to be in the OS as whole captures (see flushed()). */
  get durableSize(): number {
    return this.#durableSize;
  }

  /** Hand one chunk to the stream; false when its buffer is full (await #drained() before more). */
  #push(chunk: Uint8Array, last: boolean): boolean {
    if (this.#failure) throw this.#failure;
    const stream = this.#stream;
    corkForTurn(stream);
    let ok: boolean;
    if (last) {
      let done!: () => void;
      let fail!: (e: Error) => void;
      this.#lastFlush = new Promise<void>((res, rej) => {
        done = res;
        fail = rej;
      });
      // Observed by flushed(); keep an unobserved rejection from being reported as unhandled.
      this.#lastFlush.catch(() => {});
      ok = stream.write(chunk, (err) => (err ? fail(err) : done()));
    } else {
      ok = stream.write(chunk);
    }
    this.#size += chunk.length;
    return ok;
  }

  async #drained(): Promise<void> {
    await waitDrain(this.#stream);
    if (this.#failure) throw this.#failure;
  }

  /**
   * After a failure: stop the stream, wait until no write is in flight, and
   * cut the file back to its durable size (the end of the last capture known
   * to be complete), so it stays a valid WARC. Best effort: a device that
   * refuses to truncate keeps what it has. Idempotent.
   */
  abort(): Promise<void> {
    this.#aborting ??= this.#cut();
    return this.#aborting;
  }

  async #cut(): Promise<void> {
    this.#closed = true;
    await closeStream(this.#stream, 'destroy');
    this.#size = this.#durableSize;
    await truncate(this.openPath, this.#durableSize).catch(() => {});
  }

  /** Finish writing (if still open) and rename `.open` to the final name. */
  async close(): Promise<string> {
    if (!this.#closed) {
      this.#closed = true;
      // Wait for 'close', not 'finish': the descriptor is released and every error has been reported.
      await closeStream(this.#stream, 'end');
      if (this.#failure) throw this.#failure;
    }
    await rename(this.openPath, this.finalPath);
    return this.finalPath;
  }
}
