/**
 * One gzip member per WARC record, so any record can be inflated alone from
 * its offset. In a crawl the page thread compresses (src/crawl/page-work.ts,
 * synchronously, with zlib handles it keeps: core/kept-zlib.ts); what follows is the in-process path,
 * for captures it does not take and for warcinfo records.
 *
 * Records up to 1 MiB are gathered and compressed in one libuv pool task,
 * ahead of the write queue (capture-members.ts). Tiny ones
 * (request, metadata, a small page) are compressed synchronously instead:
 * a pool round trip costs the main thread ~40-60 µs of stream machinery,
 * more than deflating a few KB itself. Large records are streamed through
 * a zlib stream inside the queue, so a big body is never wholly in memory.
 *
 * The deflate window is sized to the record: a window larger than the input
 * finds no more matches, so the output is as small, while zlib's per-member
 * set-up (allocating and clearing its state) shrinks with it. The output
 * buffer is sized to the record too (zlib's default is a fresh 16 KiB per
 * call, most of it garbage for a 400-byte request record). The hash table
 * stays at zlib's default (memLevel 8): a smaller one (memLevel 1, tried
 * earlier) makes deflate slower *and* its output larger — on request
 * records 35 µs and 378 bytes against 20 µs and 333 bytes, on the bench
 * web's bodies 1.3 s against 0.9 s of deflate (gzipSync over every record).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gzip, gzipSync, type ZlibOptions } from 'node:zlib';
import { keptZlib } from '../core/kept-zlib.js';

/** Records up to this size are gathered and compressed in one call; larger ones are streamed. */
export const WHOLE_GZIP_MAX_BYTES = 1024 * 1024;

/** Records smaller than this are deflated on the main thread: cheaper than the round trip to the pool. */
export const POOL_GZIP_MIN_BYTES = 4 * 1024;

const gzipAsync = promisify(gzip);

/** Smallest window (9..15 bits) holding the whole input plus zlib's lookahead; one output buffer that fits the usual member. */
export function gzipOptionsFor(sizeBytes: number, level: number = DEFLATE_LEVEL): ZlibOptions {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(sizeBytes + 262))));
  return { windowBits, level, chunkSize: memberBufferBytes(sizeBytes) };
}

/** An output buffer that holds the member of `sizeBytes` of input: deflate never grows data by more than ~0.03% + a few bytes; the gzip header and trailer are 18. */
export function memberBufferBytes(sizeBytes: number): number {
  return Math.max(64, sizeBytes + (sizeBytes >> 10) + 64);
}

/** zlib's default level, for records worth compressing. */
export const DEFLATE_LEVEL = 6;
/** Stored blocks only: for a record whose payload is already compressed (compressed-payload.ts). */
export const STORE_LEVEL = 0;

/** A record's uncompressed bytes (streamed) and their count. */
export interface UncompressedRecord {
  chunks: AsyncIterable<Uint8Array>;
  sizeBytes: number;
}

/** Whether a record is small enough to compress whole, in memory. */
export function fitsInMemory(record: UncompressedRecord): boolean {
  return record.sizeBytes <= WHOLE_GZIP_MAX_BYTES;
}

/** A record that fits in memory, as one contiguous run of bytes (joined once if it came in pieces). */
export async function gatherRecord(record: UncompressedRecord): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const c of record.chunks) {
    parts.push(c);
    length += c.length;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
}

/**
 * Compresses whole records, each to its own gzip member. Implementations:
 * `inProcessGzip` (below), and the capture thread's synchronous one.
 */
export interface MemberCompressor {
  /** One member per input; `levels[i]` is input i's deflate level (default DEFLATE_LEVEL). */
  gzip(inputs: readonly Uint8Array[], levels?: readonly number[]): Promise<Buffer[]>;
  /** One member at once, for a compressor that works synchronously (a worker thread's): records in memory are then made in one pass (in-memory-records.ts). */
  member?: (input: Uint8Array, level: number) => Buffer;
  close(): Promise<void>;
}

/** Compress synchronously, with this thread's kept zlib handles: for a worker thread, where nothing else waits. */
export const syncGzip: MemberCompressor = {
  gzip: async (inputs, levels) => inputs.map((input, i) => gzipMemberSync(input, levels?.[i] ?? DEFLATE_LEVEL)),
  member: (input, level) => gzipMemberSync(input, level),
  close: async () => {},
};

/** One member, made by this thread's kept handle for the level (core/kept-zlib.ts), or by gzipSync where there is none. */
function gzipMemberSync(input: Uint8Array, level: number): Buffer {
  const z = keptZlib({ gzip: level });
  if (z !== null) {
    try {
      return z.whole(input, memberBufferBytes(input.length))!;
    } catch {
      // Not expected of deflate; the member is made the usual way.
    }
  }
  return gzipSync(input, gzipOptionsFor(input.length, level));
}

/** Compress in this process: tiny inputs on the main thread, the rest on libuv's pool. */
export const inProcessGzip: MemberCompressor = {
  gzip: (inputs, levels) => Promise.all(inputs.map((input, i) => gzipInProcess(input, levels?.[i]))),
  close: async () => {},
};

async function gzipInProcess(input: Uint8Array, level?: number): Promise<Buffer> {
  const opts = gzipOptionsFor(input.length, level);
  return input.length < POOL_GZIP_MIN_BYTES ? gzipSync(input, opts) : gzipAsync(input, opts);
}

/**
 * Compress a record of any size as one gzip member through a zlib stream,
 * handing the compressed chunks to `sink` in order (the sink sets the pace).
 */
export async function gzipStreamed(record: UncompressedRecord, sink: (compressed: AsyncIterable<Uint8Array>) => Promise<void>): Promise<void> {
  await pipeline(Readable.from(record.chunks, { objectMode: false }), createGzip({ chunkSize: 64 * 1024 }), sink);
}
