/**
 * One gzip member of a WARC file at a time (warc-records.ts reads the
 * records out of them): where the next member that inflates to a record
 * starts, a member inflated in one zlib call when it fits the file window
 * or streamed through zlib when it does not, and its trailer checked.
 */
import * as zlib from 'node:zlib';
import { READ_BYTES, type FileWindow } from './file-window.js';
import type { RecordSplitter, WarcRecord } from './record-splitter.js';
import { WarcFormatError } from './warc-damage.js';

/** Bytes searched for a place to read on, at a time. */
export const SCAN_BYTES = 1 << 20;

/**
 * The next gzip member from `from` on that inflates to the start of a WARC
 * record (a magic number inside compressed data is no member), or null.
 */
export async function nextGzipMember(window: FileWindow, from: number): Promise<number | null> {
  for (let at = from; ; ) {
    const available = await window.ensure(at, SCAN_BYTES);
    if (available < 3) return null;
    const view = window.view(at, at + available);
    let found = -1;
    for (let i = view.indexOf(0x1f); i >= 0 && i + 2 < view.length; i = view.indexOf(0x1f, i + 1)) {
      if (view[i + 1] === 0x8b && view[i + 2] === 8 && (await inflatesToRecord(window, at + i))) {
        found = at + i;
        break;
      }
    }
    if (found >= 0) return found;
    if (window.atEnd(at + available)) return null;
    at += available - 2;
  }
}

/** Whether the gzip member at `pos` inflates, and its first bytes are a record head. */
async function inflatesToRecord(window: FileWindow, pos: number): Promise<boolean> {
  const available = await window.ensure(pos, 4096);
  const view = window.view(pos, pos + available);
  const dataStart = gzipDataStart(view);
  if (dataStart < 0) return false;
  try {
    // 4 KiB of deflate data inflate to at most ~4 MiB; a record head comes first.
    const out = zlib.inflateRawSync(view.subarray(dataStart), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 8 << 20 });
    return out.length >= 5 && out.toString('latin1', 0, 5) === 'WARC/';
  } catch {
    return false;
  }
}

/**
 * Inflate the member at `memberStart` in one call if it fits the window;
 * returns where the next member starts, or null when it must be streamed.
 */
export async function inflateMember(
  window: FileWindow,
  memberStart: number,
  dataStart: number,
  splitter: RecordSplitter,
  options: { syncMaxInputBytes: number; syncMaxOutputBytes: number },
): Promise<number | null> {
  for (let span = Math.min(window.readBytes, options.syncMaxInputBytes); ; span *= 2) {
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
      throw new WarcFormatError('corrupt', memberStart, (err as Error).message, err);
    }
    const trailer = dataStart + result.engine.bytesWritten;
    await checkTrailer(window, memberStart, trailer, zlib.crc32(result.buffer), result.buffer.length);
    splitter.push(result.buffer, memberStart, false);
    return trailer + 8;
  }
}

/** Inflate the member at `memberStart` as a stream, handing its records on as they come; returns where the next member starts. */
export async function* streamMember(
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
    throw new WarcFormatError('corrupt', memberStart, (err as Error).message, err);
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
    throw new WarcFormatError('corrupt', memberStart, 'gzip member fails its CRC or length check');
  }
}

/** Length of the gzip member header at the start of `b` (RFC 1952), or -1 if `b` does not start with a whole one. */
export function gzipDataStart(b: Buffer): number {
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
