/**
 * WARC records straight from a file, for the analysis: gzipped per record
 * (what crawlers write), gzipped whole, or not compressed. Each gzip member
 * is inflated by node's zlib in one call — warcio.js inflates with pako, in
 * JavaScript, which was most of the time `analyze` spent outside HTML — and
 * the record heads are split out of the inflated bytes here.
 *
 * A member is inflated in one synchronous call when it fits in a window of
 * the file (records are rarely over a few MB); a bigger one, or a whole
 * file in one member, streams through zlib instead, so memory stays bounded
 * by the window and the blocks kept. Only the blocks of the record types
 * asked for are kept (the rest are skipped as they go by), each up to a cap.
 *
 * Problems that end a file's reading are thrown as WarcFormatError with the
 * offset they were found at; the caller warns and moves on. A record whose
 * block the file cuts short is still returned, marked `truncated`.
 */
import { open } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { WarcFormatError } from './errors.js';
import { FileWindow, READ_BYTES } from './file-window.js';
import { RecordSplitter, type SplitterOptions, type WarcRecord } from './record-splitter.js';

export type { WarcRecord } from './record-splitter.js';
export { parseHttpHead, type HttpHead } from './head-lines.js';

/** Also, from SplitterOptions: keepBlockOf, and maxKeptBlockBytes (default 64 MiB). */
export interface WarcRecordsOptions extends SplitterOptions {
  /** A gzip member longer than this (compressed) streams through zlib rather than being inflated in one call; default 16 MiB. */
  syncMaxInputBytes: number;
  /** … as does one that inflates to more than this; default 96 MiB. */
  syncMaxOutputBytes: number;
  /** Told of the bytes read from the file, as they are read. */
  onBytesRead?: (bytes: number) => void;
}

export const WARC_RECORDS_DEFAULTS: Readonly<Omit<WarcRecordsOptions, 'keepBlockOf'>> = Object.freeze({
  maxKeptBlockBytes: 64 << 20,
  syncMaxInputBytes: 16 << 20,
  syncMaxOutputBytes: 96 << 20,
});

/** The records of a WARC file, in file order. */
export async function* readWarcRecords(file: string, options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
  const fh = await open(file, 'r');
  try {
    const window = new FileWindow(fh, (await fh.stat()).size, options.onBytesRead);
    const splitter = new RecordSplitter(options);
    const first = await window.ensure(0, 2);
    const bytes = window.view(0, Math.min(first, 2));
    if (bytes.length === 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) yield* gzipRecords(window, splitter, options);
    else yield* plainRecords(window, splitter);
    splitter.finish();
    yield* splitter.drain();
  } finally {
    await fh.close();
  }
}

async function* plainRecords(window: FileWindow, splitter: RecordSplitter): AsyncGenerator<WarcRecord> {
  for (let pos = 0; ; ) {
    const available = await window.ensure(pos, READ_BYTES);
    if (available === 0) return;
    splitter.push(window.view(pos, pos + available), pos, true);
    pos += available;
    yield* splitter.drain();
  }
}

async function* gzipRecords(window: FileWindow, splitter: RecordSplitter, options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
  for (let pos = 0; ; ) {
    const available = await window.ensure(pos, 64 * 1024);
    if (available === 0) return;
    const dataStart = gzipDataStart(window.view(pos, pos + available));
    if (dataStart < 0) {
      if (available < 18 && window.atEnd(pos + available)) {
        throw new WarcFormatError('truncated', pos, 'the file ends inside a gzip header');
      }
      throw new WarcFormatError('unreadable', pos, 'no gzip member here');
    }
    splitter.memberStart();
    const end =
      (await inflateMember(window, pos, pos + dataStart, splitter, options)) ?? (yield* streamMember(window, pos, pos + dataStart, splitter));
    pos = end;
    yield* splitter.drain();
  }
}

/**
 * Inflate the member at `memberStart` in one call if it fits the window;
 * returns where the next member starts, or null when it must be streamed.
 */
async function inflateMember(
  window: FileWindow,
  memberStart: number,
  dataStart: number,
  splitter: RecordSplitter,
  options: WarcRecordsOptions,
): Promise<number | null> {
  for (let span = Math.min(READ_BYTES, options.syncMaxInputBytes); ; span *= 2) {
    const available = await window.ensure(memberStart, span);
    let result: { buffer: Buffer; engine: zlib.InflateRaw };
    try {
      result = zlib.inflateRawSync(window.view(dataStart, memberStart + available), {
        info: true,
        maxOutputLength: options.syncMaxOutputBytes,
      }) as unknown as { buffer: Buffer; engine: zlib.InflateRaw };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR' && !window.atEnd(memberStart + available) && span < options.syncMaxInputBytes) continue;
      if (code === 'Z_BUF_ERROR' || code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return null;
      throw new WarcFormatError('unreadable', memberStart, (err as Error).message, err);
    }
    const trailer = dataStart + result.engine.bytesWritten;
    await checkTrailer(window, memberStart, trailer, zlib.crc32(result.buffer), result.buffer.length);
    splitter.push(result.buffer, memberStart, false);
    return trailer + 8;
  }
}

/** Inflate the member at `memberStart` as a stream, handing its records on as they come; returns where the next member starts. */
async function* streamMember(
  window: FileWindow,
  memberStart: number,
  dataStart: number,
  splitter: RecordSplitter,
): AsyncGenerator<WarcRecord, number> {
  const inflate = zlib.createInflateRaw();
  let ended = false;
  inflate.once('end', () => void (ended = true));
  const feed = (async (): Promise<void> => {
    for (let at = dataStart; !ended; ) {
      const available = await window.ensure(at, READ_BYTES);
      if (available === 0) break;
      const more = inflate.write(window.view(at, at + available));
      at += available;
      if (!more && !ended) await new Promise<void>((resolve) => {
        inflate.once('drain', resolve);
        inflate.once('end', resolve);
        inflate.once('error', resolve);
      });
    }
    if (!ended) inflate.end();
  })();
  let crc = 0;
  let size = 0;
  try {
    for await (const out of inflate as AsyncIterable<Buffer>) {
      crc = zlib.crc32(out, crc);
      size += out.length;
      splitter.push(out, memberStart, false);
      yield* splitter.drain();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    await feed.catch(() => {});
    if (code === 'Z_BUF_ERROR') throw new WarcFormatError('truncated', memberStart, 'the file ends inside a gzip member', err);
    throw new WarcFormatError('unreadable', memberStart, (err as Error).message, err);
  }
  await feed;
  const trailer = dataStart + inflate.bytesWritten;
  await checkTrailer(window, memberStart, trailer, crc, size);
  return trailer + 8;
}

/** The gzip trailer: CRC-32 and length (mod 2^32) of what the member inflated to. */
async function checkTrailer(window: FileWindow, memberStart: number, at: number, crc: number, size: number): Promise<void> {
  if ((await window.ensure(at, 8)) < 8) throw new WarcFormatError('truncated', memberStart, 'the file ends inside a gzip trailer');
  const t = window.view(at, at + 8);
  if (t.readUInt32LE(0) !== crc >>> 0 || t.readUInt32LE(4) !== size >>> 0) {
    throw new WarcFormatError('unreadable', memberStart, 'gzip member fails its CRC or length check');
  }
}

/** Length of the gzip member header at the start of `b` (RFC 1952), or -1 if `b` does not start with a whole one. */
function gzipDataStart(b: Buffer): number {
  if (b.length < 10 || b[0] !== 0x1f || b[1] !== 0x8b || b[2] !== 8) return -1;
  const flags = b[3]!;
  let p = 10;
  if (flags & 4) {
    if (p + 2 > b.length) return -1;
    p += 2 + b.readUInt16LE(p);
  }
  for (const bit of [8, 16]) {
    if ((flags & bit) === 0) continue;
    const zero = b.indexOf(0, p);
    if (zero < 0) return -1;
    p = zero + 1;
  }
  if (flags & 2) p += 2;
  return p <= b.length ? p : -1;
}

