/**
 * The lines of a UTF-8 text file, a chunk's worth at a time, for files read
 * once from start to end that may be larger than memory (the capture
 * journal, an earlier crawl's CDXJ index). Lines are cut at '\n' only (a
 * '\r' stays in its line); a last line without its newline comes too.
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
