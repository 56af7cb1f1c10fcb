/**
 * A window on a file for the WARC record reader (warc-records.ts): the bytes
 * from a position on, read a MiB or more at a time as they are asked for.
 * The file may be a byte range of a larger one (a WARC stored in a WACZ):
 * positions are then counted from the range's start.
 */
import type { FileHandle } from 'node:fs/promises';

/** File bytes read at a time. */
export const READ_BYTES = 1 << 20;

/**
 * A window on the file: the bytes from a position on, read as needed.
 * Buffers handed out are never written again, so a record may keep a view
 * of them.
 */
export class FileWindow {
  #buf = Buffer.alloc(0);
  /** File offset of #buf[0]. */
  #start = 0;

  /**
   * `base`: where position 0 is in the file; `size`: the bytes from there
   * that belong to it; `readBytes`: the least read at a time (less for a
   * reader that wants one record at an offset).
   */
  constructor(
    private readonly fh: FileHandle,
    private readonly base: number,
    private readonly size: number,
    private readonly onBytesRead: ((bytes: number) => void) | undefined,
    readonly readBytes = READ_BYTES,
  ) {}

  atEnd(offset: number): boolean {
    return offset >= this.size;
  }

  /** Make at least `bytes` from `offset` on available (fewer at the end of the file); returns how many are. */
  async ensure(offset: number, bytes: number): Promise<number> {
    let end = this.#start + this.#buf.length;
    const want = Math.min(offset + bytes, this.size);
    if (offset >= this.#start && want <= end) return end - offset;
    if (offset < this.#start || offset > end) {
      // A jump (back, to read on after damage; or ahead): start afresh there.
      this.#buf = Buffer.alloc(0);
      this.#start = offset;
      end = offset;
    }
    const kept = this.#buf.subarray(offset - this.#start);
    const readFrom = end;
    const readTo = Math.min(this.size, Math.max(want, readFrom + this.readBytes));
    const next = Buffer.allocUnsafe(kept.length + Math.max(0, readTo - readFrom));
    kept.copy(next, 0);
    let filled = kept.length;
    while (filled < next.length) {
      const { bytesRead } = await this.fh.read(next, filled, next.length - filled, this.base + readFrom + (filled - kept.length));
      if (bytesRead === 0) break;
      filled += bytesRead;
      this.onBytesRead?.(bytesRead);
    }
    this.#buf = next.subarray(0, filled);
    this.#start = offset;
    return this.#buf.length;
  }

  view(from: number, to: number): Buffer {
    return this.#buf.subarray(from - this.#start, to - this.#start);
  }
}

