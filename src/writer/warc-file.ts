/**
 * One WARC file being written: opened as `<name>.open`, appended record by
 * record (each its own gzip member), renamed to `<name>` on close. It
 * tracks the bytes appended so each record's offset and length are known
 * for indexes, and after a failure it cuts the file back to the last
 * complete capture.
 *
 * Appends are synchronous (append-file.ts): on the CPU-bound 2-CPU bench
 * machine an async fs write costs ~40-50 µs of process CPU against
 * ~10-12 µs for writevSync, and a capture's members go out in one writev.
 * Once append returns the bytes are in the OS (the page cache), so
 * flushed() has nothing to wait for; the price is that a slow disk stalls
 * the event loop while it writes, which the page cache normally absorbs.
 */
import { rename, truncate } from 'node:fs/promises';
import path from 'node:path';
import { AppendFile } from './append-file.js';
import type { Member } from './capture-members.js';
import { gzipStreamed } from './gzip-member.js';
import type { PreparedRecord } from './warc-records.js';
import { OPEN_SUFFIX } from './warc-naming.js';
import { ContentDigest, type ContentSums } from '../core/content-digest.js';

export interface RecordSpan {
  offset: number;
  length: number;
}

export class WarcFile {
  readonly name: string;
  readonly finalPath: string;
  readonly openPath: string;
  /** Holds the first write error once there is one: every later write refuses with it. */
  readonly #out: AppendFile;
  #durableSize = 0;
  #closed = false;
  #aborting: Promise<void> | null = null;
  /** Set by abort(): the size the file was cut back to (tried), whatever the descriptor could do. */
  #cutTo: number | null = null;
  /** Captures written to this file (rotation never leaves a file with only its warcinfo). */
  captures = 0;
  /** The sums of every byte appended, when asked for; dropped once the file is cut back. */
  #digest: ContentDigest | null;
  #sums: ContentSums | null = null;

  private constructor(dir: string, name: string, out: AppendFile, digest: boolean) {
    this.name = name;
    this.finalPath = path.join(dir, name);
    this.openPath = this.finalPath + OPEN_SUFFIX;
    this.#out = out;
    this.#digest = digest ? new ContentDigest() : null;
  }

  /**
   * Create (or empty) `<dir>/<name>.open`; open errors surface here.
   * `digest`: take the file's SHA-256 and CRC-32 as it is written (sums()).
   */
  static async create(dir: string, name: string, opts: { digest?: boolean } = {}): Promise<WarcFile> {
    const out = await AppendFile.open(path.join(dir, name + OPEN_SUFFIX), { replace: true });
    return new WarcFile(dir, name, out, opts.digest === true);
  }

  /**
   * The sums of the whole file once closed, taken as it was written: null
   * when not asked for, while the file is open, or when a failure cut it
   * back (its bytes are then no longer the ones summed).
   */
  sums(): ContentSums | null {
    if (!this.#closed || this.#cutTo !== null || this.#out.failure !== null || this.#digest === null) return null;
    if (this.#digest.size !== this.size) return null;
    this.#sums ??= this.#digest.sums();
    return this.#sums;
  }

  /** Bytes appended so far (= the file's size). */
  get size(): number {
    return this.#cutTo ?? this.#out.size;
  }

  /**
   * Append records, each its own gzip member: runs of finished members
   * (Buffers) in one writev, a large record compressed through zlib and
   * appended chunk by chunk as it streams. Rejects with the fs error
   * (ENOSPC…) if a write fails; the file then refuses further writes.
   */
  async writeMembers(members: ReadonlyArray<Member>): Promise<RecordSpan[]> {
    this.#check();
    const spans: RecordSpan[] = [];
    let batch: Buffer[] = [];
    let batchEnd = this.size;
    for (const member of members) {
      if (member instanceof Uint8Array) {
        spans.push({ offset: batchEnd, length: member.length });
        batch.push(member);
        batchEnd += member.length;
        continue;
      }
      this.#append(batch);
      batch = [];
      const offset = this.size;
      await this.#streamRecord(member);
      spans.push({ offset, length: this.size - offset });
      batchEnd = this.size;
    }
    this.#append(batch);
    return spans;
  }

  /** Compress a large record through zlib straight into the file, chunk by chunk. */
  async #streamRecord(record: PreparedRecord): Promise<void> {
    await gzipStreamed(record, async (compressed) => {
      for await (const chunk of compressed) this.#append([chunk]);
    });
  }

  #append(chunks: readonly Uint8Array[]): void {
    if (chunks.length === 0) return;
    this.#out.append(chunks);
    if (this.#digest !== null) for (const c of chunks) this.#digest.update(c);
  }

  #check(): void {
    if (this.#out.failure !== null) throw this.#out.failure;
  }

  /**
   * Resolves once every byte written so far is in the OS — at once, the
   * writes being synchronous — and from then on counts them as durable:
   * abort() never cuts below them. Rejects with the write error after a
   * failed write.
   */
  flushed(): Promise<void> {
    if (this.#out.failure !== null) return Promise.reject(this.#out.failure);
    if (this.size > this.#durableSize) this.#durableSize = this.size;
    return Promise.resolve();
  }

  /** Bytes known to be in the OS as whole captures (see flushed()). */
  get durableSize(): number {
    return this.#durableSize;
  }

  /**
   * After a failure: cut the file back to its durable size (the end of the
   * last capture known to be complete), so it stays a valid WARC, and
   * release it. Best effort: a device that refuses to truncate keeps what
   * it has. Idempotent.
   */
  abort(): Promise<void> {
    this.#aborting ??= this.#cut();
    return this.#aborting;
  }

  async #cut(): Promise<void> {
    this.#closed = true;
    const durable = this.#durableSize;
    try {
      this.#out.truncate(durable);
    } catch {
      // Already closed (by close()), or the device refuses: try by name.
      await truncate(this.openPath, durable).catch(() => {});
    }
    this.#cutTo = durable;
    try {
      this.#out.close();
    } catch {
      // The descriptor is released even when close reports an error.
    }
  }

  /** Release the file (if still open) and rename `.open` to the final name; throws an earlier write error. */
  async close(): Promise<string> {
    if (!this.#closed) {
      this.#closed = true;
      this.#out.close();
      this.#check();
    }
    await rename(this.openPath, this.finalPath);
    return this.finalPath;
  }
}
