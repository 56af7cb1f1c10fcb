/**
 * WARC payload digests as Heritrix and warcio write them: `sha1:` followed
 * by the RFC 4648 base32 form of the SHA-1. Computed incrementally while the
 * body streams in, so large bodies are never held whole for hashing.
 */
import { createHash, type Hash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 (upper case, `=` padding to a multiple of 8 characters). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
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
