/**
 * Complete lines of a file that may still be growing (a capture journal
 * being appended to, crawl.log), as bytes with their positions, from a byte
 * position up to a limit: only lines ended by a newline count, so a line
 * being written is left for the next read.
 */
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 256 * 1024;

export interface PositionedLine {
  /** The line's bytes, without its newline (a view: copy it to keep it past the next line). */
  bytes: Buffer;
  start: number;
  /** Just past its newline. */
  end: number;
}

export async function* linesFrom(fh: FileHandle, from: number, until: number): AsyncGenerator<PositionedLine, void, undefined> {
  let carry: Buffer = Buffer.alloc(0);
  let carryStart = from;
  let at = from;
  while (at < until) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, until - at));
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, at);
    if (bytesRead === 0) return;
    const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    let lineStart = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, lineStart);
      if (nl < 0) break;
      yield { bytes: data.subarray(lineStart, nl), start: carryStart + lineStart, end: carryStart + nl + 1 };
      lineStart = nl + 1;
    }
    carry = Buffer.from(data.subarray(lineStart));
    carryStart += lineStart;
    at += bytesRead;
  }
}
