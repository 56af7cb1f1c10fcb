/**
 * One gzip member per WARC record, so any record can be inflated alone from
 * its offset. Small records (the vast majority) are compressed in one
 * synchronous call: streaming them through an async zlib stream costs a
 * thread-pool round trip per chunk, which dominated the write time of a
 * typical 10 KB page. Large records are streamed, so a big body is never
 * wholly in memory.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';

/** Records up to this size are gathered and compressed in one call. */
export const SYNC_GZIP_MAX_BYTES = 1024 * 1024;

/**
 * Compress `chunks` (one whole uncompressed record of `sizeBytes` bytes) as a
 * single gzip member, handing the compressed chunks to `sink` in order.
 */
export async function gzipMember(
  chunks: AsyncIterable<Uint8Array>,
  sizeBytes: number,
  sink: (compressed: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  if (sizeBytes <= SYNC_GZIP_MAX_BYTES) {
    const parts: Uint8Array[] = [];
    for await (const c of chunks) parts.push(c);
    await sink(once(gzipSync(Buffer.concat(parts))));
    return;
  }
  await pipeline(Readable.from(chunks, { objectMode: false }), createGzip({ chunkSize: 64 * 1024 }), sink);
}

async function* once(b: Uint8Array): AsyncIterable<Uint8Array> {
  yield b;
}
