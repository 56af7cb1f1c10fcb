/**
 * A file appended to with synchronous writes: the WARC files, crawl.log and
 * the capture journal all write through one of these.
 *
 * Why synchronous: on the 2-CPU bench machine the crawl is CPU-bound, and an
 * async write of 5 KB costs ~40-50 µs of process CPU (the stream machinery
 * on the main thread plus waking a libuv pool thread), `writevSync` of the
 * same bytes ~10-12 µs; a bench crawl makes ~10,700 such writes. The bytes
 * go to the page cache (we never fsync per record), so a write normally
 * takes microseconds; what it means is that a slow or stalled disk now
 * stalls the event loop instead of filling a stream's buffer. pino's
 * sonic-boom and Heritrix's WARC writer block for the same reason.
 *
 * Every write is O_APPEND, so after truncate() the next bytes land at the
 * new end, never past a hole.
 */
import { closeSync, constants, fstatSync, ftruncateSync, open, writevSync } from 'node:fs';
import { promisify } from 'node:util';
import { ArchiverError } from '../core/errors.js';

const openFd = promisify(open);

export interface AppendFileOptions {
  /** Start from an empty file if one exists (default false: keep its bytes and append after them). */
  replace?: boolean;
  /**
   * What a write or close error becomes (a writer's own error class, with
   * the fs error as its cause); kept as `failure` and thrown again by every
   * later append. Default: the fs error as thrown.
   */
  asFailure?: (err: unknown) => unknown;
}

export class AppendFile {
  readonly path: string;
  #fd: number | null;
  #size: number;
  readonly #asFailure: (err: unknown) => unknown;
  /** The first write or close error (as asFailure made it); every later append throws it again. */
  #failure: unknown = null;

  private constructor(file: string, fd: number, size: number, asFailure: (err: unknown) => unknown) {
    this.path = file;
    this.#fd = fd;
    this.#size = size;
    this.#asFailure = asFailure;
  }

  /** Open (creating it if missing) for appending; open errors (ENOENT, EACCES…) reject here, as thrown by fs. */
  static async open(file: string, opts: AppendFileOptions = {}): Promise<AppendFile> {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (opts.replace ? constants.O_TRUNC : 0);
    const fd = await openFd(file, flags, 0o666);
    let size: number;
    try {
      size = opts.replace ? 0 : fstatSync(fd).size;
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new AppendFile(file, fd, size, opts.asFailure ?? ((err) => err));
  }

  /** The first write or close error (see AppendFileOptions.asFailure), or null. */
  get failure(): unknown {
    return this.#failure;
  }

  /** The file's length as this writer knows it: its length when opened plus every byte appended, or the last truncate(). */
  get size(): number {
    return this.#size;
  }

  /**
   * Append the chunks, in order, with one writev when the kernel takes them
   * all (it may take fewer: we go on from where it stopped). Throws the fs
   * error (ENOSPC, EIO…) as asFailure makes it; `size` then counts the bytes
   * that did reach the file, and every later append throws the same error.
   */
  append(chunks: readonly Uint8Array[]): void {
    if (this.#failure !== null) throw this.#failure;
    const fd = this.#openFd();
    let left = 0;
    for (const c of chunks) left += c.length;
    let rest = chunks;
    while (left > 0) {
      let written: number;
      try {
        written = writevSync(fd, rest);
        if (written <= 0) throw new ArchiverError('ARCHIVER_SHORT_WRITE', `${this.path}: the kernel took 0 of ${left} bytes`);
      } catch (err) {
        throw this.#failed(err);
      }
      this.#size += written;
      left -= written;
      if (left > 0) rest = chunksAfter(rest, written);
    }
  }

  /** Cut (or extend) the file to `sizeBytes`; allowed after a failed append, so a writer can cut back its partial bytes. */
  truncate(sizeBytes: number): void {
    ftruncateSync(this.#openFd(), sizeBytes);
    this.#size = sizeBytes;
  }

  /** Release the descriptor. Idempotent; a close error (EIO on some file systems) is thrown once and kept as `failure`; the descriptor is gone either way. */
  close(): void {
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    try {
      closeSync(fd);
    } catch (err) {
      throw this.#failed(err);
    }
  }

  #failed(err: unknown): unknown {
    this.#failure ??= this.#asFailure(err);
    return this.#failure;
  }

  get closed(): boolean {
    return this.#fd === null;
  }

  #openFd(): number {
    if (this.#fd === null) throw new ArchiverError('ARCHIVER_FILE_CLOSED', `${this.path} is closed`);
    return this.#fd;
  }
}

/**
 * The chunks left once the first `skipBytes` bytes were written: whole
 * chunks dropped, the partly written one as a view (nothing copied).
 * Exported for its test; a short write is hard to provoke on a real file.
 */
export function chunksAfter(chunks: readonly Uint8Array[], skipBytes: number): Uint8Array[] {
  let i = 0;
  let skip = skipBytes;
  while (i < chunks.length && skip >= chunks[i]!.length) {
    skip -= chunks[i]!.length;
    i++;
  }
  const rest = chunks.slice(i);
  if (skip > 0 && rest.length > 0) rest[0] = rest[0]!.subarray(skip);
  return rest;
}
