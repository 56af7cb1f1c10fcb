/**
 * The lines of a UTF-8 text file, a chunk's worth at a time, for files read
 * once from start to end that may be larger than memory (the capture
 * journal, an earlier crawl's CDXJ index). Lines are cut at '\n' only (a
 * '\r' stays in its line); a last line without its newline comes too.
 *
 * `fileLineBuffers` gives the non-empty lines as bytes instead, from one
 * buffer read into again and again (the capture journal's end-of-crawl
 * reads, which never decode a page's text).
 *
 * Faster than readline on long files: it cuts a whole chunk with one split
 * instead of scanning for three line endings, and a consumer awaits once
 * per chunk, not per line.
 */
import { open } from 'node:fs/promises';

const DEFAULT_CHUNK_BYTES = 1024 * 1024;

export async function* fileLines(file: string, chunkBytes = DEFAULT_CHUNK_BYTES): AsyncGenerator<string[], void, undefined> {
  const fh = await open(file, 'r');
  try {
    /** Bytes after the last newline so far: they may end inside a UTF-8 sequence. */
    let carry = Buffer.alloc(0);
    const chunk = Buffer.allocUnsafe(chunkBytes);
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const end = chunk.lastIndexOf(0x0a, bytesRead - 1);
      if (end < 0) {
        carry = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        continue;
      }
      const text = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, end)]).toString('utf8') : chunk.toString('utf8', 0, end);
      // Copied: the chunk is reused by the next read.
      carry = Buffer.from(chunk.subarray(end + 1, bytesRead));
      yield text.split('\n');
    }
    if (carry.length > 0) yield [carry.toString('utf8')];
  } finally {
    await fh.close();
  }
}

/**
 * The file's non-empty lines as bytes, a chunk's worth at a time (lines cut
 * at '\n'; a last line without one comes too). One buffer is read into
 * again and again — fresh ones for each megabyte read would each count
 * against V8's external memory and bring on full collections of a crawl's
 * heap — so a batch's lines hold until the next batch is asked for: a
 * reader that keeps bytes beyond that copies them (journal-bytes.ts: copyText).
 */
export async function* fileLineBuffers(file: string, chunkBytes = DEFAULT_CHUNK_BYTES): AsyncGenerator<Buffer[], void, undefined> {
  const fh = await open(file, 'r');
  try {
    let chunk = Buffer.allocUnsafe(chunkBytes);
    /** Bytes at the chunk's start carried over from the last read: a line not yet ended. */
    let carried = 0;
    for (;;) {
      if (carried === chunk.length) {
        // A line longer than the chunk: a larger one.
        const larger = Buffer.allocUnsafe(chunk.length * 2);
        chunk.copy(larger, 0, 0, carried);
        chunk = larger;
      }
      const { bytesRead } = await fh.read(chunk, carried, chunk.length - carried, null);
      if (bytesRead === 0) break;
      const filled = carried + bytesRead;
      const end = chunk.lastIndexOf(0x0a, filled - 1);
      if (end < 0) {
        carried = filled;
        continue;
      }
      yield cut(chunk, end);
      chunk.copyWithin(0, end + 1, filled);
      carried = filled - end - 1;
    }
    if (carried > 0) yield [chunk.subarray(0, carried)];
  } finally {
    await fh.close();
  }
}

/** The non-empty lines of `chunk[0, end)`. */
function cut(chunk: Buffer, end: number): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  while (start < end) {
    const nl = chunk.indexOf(0x0a, start);
    const stop = nl < 0 || nl > end ? end : nl;
    if (stop > start) lines.push(chunk.subarray(start, stop));
    start = stop + 1;
  }
  return lines;
}
