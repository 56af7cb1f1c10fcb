/**
 * Lookups in a text file of lines sorted bytewise (index.cdxj, the inlinks
 * file): a binary search over byte positions finds the first line not
 * below a key, then lines are read forward from there. A lookup costs about
 * log2(file size) small reads, whatever the file's size, and memory is one
 * block and the lines asked for.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** Bytes read at a time; a longer line is read in several blocks. */
const BLOCK_BYTES = 16 * 1024;

interface LineAt {
  /** Byte position of the line's first byte. */
  start: number;
  /** Position just past its newline (or the end of the file). */
  end: number;
  line: Buffer;
}

export class SortedLines {
  readonly #fh: FileHandle;
  readonly #size: number;

  private constructor(fh: FileHandle, size: number) {
    this.#fh = fh;
    this.#size = size;
  }

  static async open(file: string): Promise<SortedLines> {
    const fh = await open(file, 'r');
    try {
      return new SortedLines(fh, (await fh.stat()).size);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  close(): Promise<void> {
    return this.#fh.close();
  }

  /**
   * Lines starting with `prefix`, in file order, from the first one not
   * below `from` (default: the prefix itself); at most `limit`. `keep`
   * filters lines without counting the rejected ones against the limit.
   */
  async *withPrefix(prefix: string, opts: { from?: string; keep?: (line: string) => boolean } = {}): AsyncGenerator<string, void, undefined> {
    const p = Buffer.from(prefix, 'utf8');
    let at = await this.#firstNotBelow(Buffer.from(opts.from ?? prefix, 'utf8'));
    while (at < this.#size) {
      const found = await this.#lineFrom(at);
      if (found === null) return;
      if (found.line.length < p.length || found.line.compare(p, 0, p.length, 0, p.length) !== 0) return;
      const line = found.line.toString('utf8');
      if (opts.keep === undefined || opts.keep(line)) yield line;
      at = found.end;
    }
  }

  /** Position of the first line whose bytes are ≥ key (the file's size when there is none). */
  async #firstNotBelow(key: Buffer): Promise<number> {
    // f(pos) = first line starting at or after pos; its line is non-decreasing in pos.
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const found = await this.#lineStartingAtOrAfter(mid);
      if (found === null || Buffer.compare(found.line, key) >= 0) hi = mid;
      else lo = Math.max(mid + 1, found.end);
    }
    const first = await this.#lineStartingAtOrAfter(lo);
    return first === null ? this.#size : first.start;
  }

  async #lineStartingAtOrAfter(pos: number): Promise<LineAt | null> {
    if (pos === 0) return this.#lineFrom(0);
    // The line that holds byte pos-1 ends somewhere; the next starts after its newline.
    let at = pos - 1;
    const block = Buffer.allocUnsafe(BLOCK_BYTES);
    for (;;) {
      if (at >= this.#size) return null;
      const { bytesRead } = await this.#fh.read(block, 0, BLOCK_BYTES, at);
      if (bytesRead === 0) return null;
      const nl = block.subarray(0, bytesRead).indexOf(0x0a);
      if (nl >= 0) return this.#lineFrom(at + nl + 1);
      at += bytesRead;
    }
  }

  /** The line starting exactly at `start`, without its newline. */
  async #lineFrom(start: number): Promise<LineAt | null> {
    if (start >= this.#size) return null;
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const block = Buffer.allocUnsafe(BLOCK_BYTES);
      const { bytesRead } = await this.#fh.read(block, 0, BLOCK_BYTES, at);
      if (bytesRead === 0) break;
      const nl = block.subarray(0, bytesRead).indexOf(0x0a);
      if (nl >= 0) {
        parts.push(block.subarray(0, nl));
        return { start, end: at + nl + 1, line: Buffer.concat(parts) };
      }
      parts.push(block.subarray(0, bytesRead));
      at += bytesRead;
    }
    return { start, end: this.#size, line: Buffer.concat(parts) };
  }
}
