/**
 * Heritrix's 64-bit already-seen key (BdbUriUniqFilter.createKey): the 24-bit
 * Rabin fingerprint of `scheme://authority` in the top 24 bits, OR the top 40
 * bits of the 40-bit fingerprint of the whole URL below. Stored big-endian,
 * every URL of one scheme+authority shares a 3-byte prefix, so a host's keys
 * sit together in the LevelDB and can be forgotten as one range.
 *
 * Keys are computed from the string given; canonicalizing is the filter's job.
 */
import { std24, std40, type Fp64 } from '../fingerprint/rabin.js';

/** Length of a key in bytes. */
export const KEY_BYTES = 8;
/** Length of the scheme+authority prefix in bytes. */
export const HOST_PREFIX_BYTES = 3;

/**
 * Where the scheme+authority part ends, as Heritrix finds it: the first `/`
 * after `://`; with no `://` (e.g. `dns:archive.org`) or no `/` after it,
 * the whole URL counts as the authority part.
 */
export function schemeAuthorityEnd(url: string): number {
  // http(s), nearly every URL, skips the search for `://` (same answer:
  // neither scheme name holds a colon).
  let index = url.startsWith('https://') ? 5 : url.startsWith('http://') ? 4 : url.indexOf('://');
  if (index > 0) index = url.indexOf('/', index + 3);
  return index === -1 ? url.length : index;
}

/**
 * The key as two unsigned 32-bit halves, written into `out`; `out` doubles
 * as the fingerprint scratch space, so nothing is allocated.
 */
export function keyInto(url: string, out: Fp64): Fp64 {
  // One pass over the URL for both fingerprints: the authority is a prefix.
  const hostHi = std40.fpWithPrefixInto(url, schemeAuthorityEnd(url), std24, out) & 0xFFFFFF00;
  // fp40 occupies bits 63..24; shifting it right by 24 puts it in bits 39..0.
  const fpHi = out.hi;
  const fpLo = out.lo;
  out.hi = (hostHi | (fpHi >>> 24)) >>> 0;
  out.lo = ((fpHi << 8) | (fpLo >>> 24)) >>> 0;
  return out;
}

/** The key as Heritrix's signed 64-bit `long`. */
export function createKey(url: string): bigint {
  const k = keyInto(url, { hi: 0, lo: 0 });
  return BigInt.asIntN(64, (BigInt(k.hi) << 32n) | BigInt(k.lo));
}

/** Write the key big-endian into `buf` at `offset`; pass `scratch` to avoid an allocation. */
export function writeKey(url: string, buf: Buffer, offset = 0, scratch: Fp64 = { hi: 0, lo: 0 }): void {
  const k = keyInto(url, scratch);
  buf.writeUInt32BE(k.hi, offset);
  buf.writeUInt32BE(k.lo, offset + 4);
}

/** The key as 8 big-endian bytes (the on-disk form). */
export function keyBytes(url: string): Buffer {
  const buf = Buffer.allocUnsafe(KEY_BYTES);
  writeKey(url, buf, 0);
  return buf;
}

/** The 3-byte scheme+authority prefix every key of this URL's host starts with. */
export function hostPrefixBytes(url: string): Buffer {
  const fp = std24.fpInto(url, { hi: 0, lo: 0 }, 0, schemeAuthorityEnd(url));
  const buf = Buffer.allocUnsafe(HOST_PREFIX_BYTES);
  buf[0] = fp.hi >>> 24;
  buf[1] = (fp.hi >>> 16) & 0xff;
  buf[2] = (fp.hi >>> 8) & 0xff;
  return buf;
}

/** A key as its halves, and its bytes in a store once given them (storedKeysInto). */
export interface KeyHalves {
  key: Buffer;
  hi: number;
  lo: number;
}

/** Give each key its store bytes, `prefix` then the 8 key bytes: one buffer for all, a view per key. */
export function storedKeysInto(prefix: Buffer, keys: KeyHalves[]): void {
  const width = prefix.length + KEY_BYTES;
  const all = Buffer.allocUnsafe(keys.length * width);
  for (let j = 0; j < keys.length; j++) {
    const c = keys[j] as KeyHalves;
    const at = j * width;
    prefix.copy(all, at);
    all.writeUInt32BE(c.hi, at + prefix.length);
    all.writeUInt32BE(c.lo, at + prefix.length + 4);
    c.key = all.subarray(at, at + width);
  }
}
