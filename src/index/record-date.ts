/**
 * The WARC-Date of the record at an offset of a WARC file, read from the
 * first bytes of its gzip member only (inflated as far as they go): the
 * exact date a revisit's WARC-Refers-To-Date must repeat, which a CDXJ
 * line keeps to the second only.
 */
import { open } from 'node:fs/promises';
import { constants, gunzipSync } from 'node:zlib';

/** Compressed bytes read; a WARC head is well under 2 KB, and it comes first. */
const HEAD_BYTES = 16 * 1024;

/** Null when the bytes there are not a WARC record head with a WARC-Date. */
export async function warcDateAt(file: string, offset: number, length: number): Promise<string | null> {
  const fh = await open(file, 'r');
  let raw: Buffer;
  try {
    const buf = Buffer.alloc(Math.min(length, HEAD_BYTES));
    const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
    raw = buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  let head: Buffer;
  try {
    // A cut member: Z_SYNC_FLUSH hands back what inflated instead of failing.
    head = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw, { finishFlush: constants.Z_SYNC_FLUSH }) : raw;
  } catch {
    return null;
  }
  const text = head.subarray(0, Math.max(0, head.indexOf('\r\n\r\n'))).toString('latin1');
  if (!text.startsWith('WARC/')) return null;
  const m = /\r\nWARC-Date:[ \t]*([^\r\n]+)/i.exec(text);
  return m ? m[1]!.trim() : null;
}
