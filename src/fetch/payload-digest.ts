/**
 * WARC payload digests as Heritrix and warcio write them: `sha1:` followed
 * by the RFC 4648 base32 form of the SHA-1. Computed incrementally while the
 * body streams in, so large bodies are never held whole for hashing.
 */
import { createHash, type Hash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 0x3d;
/** Where a digest's characters are laid out (a SHA-1's take 32): one string is made, from it, per call. */
const scratch = Buffer.allocUnsafe(64);

/**
 * RFC 4648 base32 (upper case, `=` padding to a multiple of 8 characters).
 * Written as bytes and read as one latin1 string: appending a character at
 * a time, and iterating the input with for…of, made ~1.7 KB of garbage per
 * digest in the unoptimised code the crawl's threads mostly run (four to
 * five digests per capture).
 */
export function base32Encode(bytes: Uint8Array): string {
  const chars = Math.ceil((bytes.length * 8) / 5);
  const padded = Math.ceil(chars / 8) * 8;
  const out = padded <= scratch.length ? scratch : Buffer.allocUnsafe(padded);
  let o = 0;
  let bits = 0;
  let value = 0;
  for (let i = 0; i < bytes.length; i++) {
    value = ((value << 8) | bytes[i]!) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out[o++] = CODES[(value >>> (bits - 5)) & 31]!;
      bits -= 5;
    }
  }
  if (bits > 0) out[o++] = CODES[(value << (5 - bits)) & 31]!;
  while (o < padded) out[o++] = PAD;
  return out.toString('latin1', 0, padded);
}

/** Feeds body chunks into SHA-1; `digest()` gives the WARC label once at the end. */
export class PayloadDigester {
  readonly #hash: Hash = createHash('sha1');

  update(chunk: Uint8Array): void {
    this.#hash.update(chunk);
  }

  /** `sha1:BASE32`; call once. */
  digest(): string {
    return `sha1:${base32Encode(this.#hash.digest())}`;
  }
}

/** Digest of bytes already in memory (revisits, tests). */
export function sha1PayloadDigest(bytes: Uint8Array): string {
  const d = new PayloadDigester();
  d.update(bytes);
  return d.digest();
}
