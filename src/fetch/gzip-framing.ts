/**
 * What a gzip member's framing (RFC 1952) tells a reader of stored bodies:
 * the decoded size its trailer gives, to inflate into a buffer of that size,
 * and where its deflate data begins, to inflate that alone when only the
 * trailer is wrong.
 */
import zlib from 'node:zlib';

/** DEFLATE's best ratio is about 1032:1: a gzip trailer claiming more is not believed. */
const MAX_DEFLATE_RATIO = 1032;

/**
 * The buffer to inflate a gzip body into: the size its trailer gives
 * (ISIZE, the input's length mod 2^32, RFC 1952), one byte more so that
 * zlib ends with room to spare, when that size is one deflate could reach;
 * else a guess, pages deflating 4-8 times, of 1 MiB at most. A short buffer
 * only doubles (KeptZlib.whole), so a trailer that is wrong (several members,
 * bytes after the member, an input over 4 GiB) costs copies, not bytes. A
 * page of 6 MB went through buffers of 1, 2, 4 and 8 MiB before; now one of
 * 6 MB, and none of them from glibc's heap below the mmap threshold.
 */
export function gunzipBufferBytes(stored: Uint8Array): number {
  const guess = Math.min(stored.length * 6 + 1024, 1 << 20);
  if (stored.length < 18 || stored[0] !== 0x1f || stored[1] !== 0x8b) return guess;
  const n = stored.length;
  const isize = (stored[n - 4]! | (stored[n - 3]! << 8) | (stored[n - 2]! << 16) | (stored[n - 1]! << 24)) >>> 0;
  return isize <= n * MAX_DEFLATE_RATIO ? isize + 1 : guess;
}

/**
 * A gzip member's deflate data inflated alone, its trailer (CRC-32 and
 * size) left unread. zlib checks the trailer in the call that inflates the
 * body, and node drops that call's output when the check fails, so a body
 * whose data is whole but whose trailer is wrong gave no text at all;
 * browsers do not check it (Chromium's gzip stream skips the footer). Null
 * when the header is not gzip's, or the deflate data itself fails (corrupt,
 * cut short) or passes `maxBytes`.
 */
export function inflateIgnoringTrailer(stored: Uint8Array, maxBytes: number): Buffer | null {
  const start = gzipHeaderBytes(stored);
  if (start < 0) return null;
  try {
    return zlib.inflateRawSync(stored.subarray(start), { maxOutputLength: Math.max(1, maxBytes) });
  } catch {
    return null;
  }
}

/** The length of a gzip member's header (RFC 1952: the fixed 10 bytes, then FEXTRA, FNAME, FCOMMENT, FHCRC as flagged), or -1. */
function gzipHeaderBytes(b: Uint8Array): number {
  if (b.length < 18 || b[0] !== 0x1f || b[1] !== 0x8b || b[2] !== 8) return -1;
  const flags = b[3]!;
  let at = 10;
  if (flags & 4) at += 2 + (b[at]! | (b[at + 1]! << 8));
  for (const flag of [8, 16]) {
    if (!(flags & flag)) continue;
    const end = b.indexOf(0, at);
    if (end < 0) return -1;
    at = end + 1;
  }
  if (flags & 2) at += 2;
  return at < b.length ? at : -1;
}
