/**
 * Rabin fingerprints over the UTF-16 code units of a string, bit-compatible
 * with webarchive-commons' FPGenerator (the one Heritrix's seen filter keys
 * are built from). A degree-d fingerprint lives in the top d bits of a 64-bit
 * word; bit 63 is the coefficient of x^0, so "shift right" multiplies by x.
 *
 * The inner loop runs on two unsigned 32-bit halves with precomputed tables:
 * BigInt only appears when a caller asks for the 64-bit value, never per char.
 * It takes two code units per step (one 32-bit word shifted out through four
 * byte tables instead of two half-steps with their shifts and merges), and
 * fpWithPrefixInto reads a string once for two fingerprints at a time: the
 * seen filter's key needs one over the scheme+authority prefix and one over
 * the whole URL.
 */

/** The irreducible polynomials FPGenerator ships as std24, std40 and std64. */
export const POLY_STD24 = 0x8E375B8000000000n;
export const POLY_STD40 = 0x8643FFF621800000n;
export const POLY_STD64 = 0xD74307D3FD3382DBn;

const MASK64 = 0xFFFFFFFFFFFFFFFFn;
const ONE = 0x8000000000000000n; // the polynomial "1" in this bit order

/** A fingerprint as two unsigned 32-bit halves (hi = bits 63..32). */
export interface Fp64 {
  hi: number;
  lo: number;
}

/**
 * A fingerprint generator for one polynomial. Tables are built once in the
 * constructor and never change afterwards.
 */
export class RabinFingerprinter {
  readonly degree: number;
  readonly polynomial: bigint;
  /** The fingerprint of the empty string (x^64 mod P, as FPGenerator defines it). */
  readonly emptyHi: number;
  readonly emptyLo: number;
  /**
   * 16 tables × 256 entries, split into hi and lo halves: table i, entry j =
   * the sum of x^(127 - 8i - k) mod P over the set bits k of j. Tables 4..7
   * fold in one 32-bit word (two code units); tables 8.. finish the reduction.
   */
  private readonly hiTab: Int32Array;
  private readonly loTab: Int32Array;
  /** How many low bytes of the working word reduce() folds back in. */
  private readonly reduceBytes: number;
  /** Mask of the top bits reduce() keeps as they are (hi, lo halves). */
  private readonly keepHi: number;
  private readonly keepLo: number;

  constructor(polynomial: bigint, degree: number) {
    if (!Number.isInteger(degree) || degree < 1 || degree > 64) {
      throw new RangeError(`degree must be 1..64, got ${degree}`);
    }
    this.degree = degree;
    this.polynomial = polynomial & MASK64;

    // powers[i] = x^i mod P for i in 0..127, in the top-d-bits representation.
    const powers: bigint[] = new Array<bigint>(128);
    const topBit = ONE >> BigInt(degree - 1);
    let p = ONE;
    for (let i = 0; i < 128; i++) {
      powers[i] = p;
      const overflow = (p & topBit) !== 0n;
      p >>= 1n;
      if (overflow) p ^= this.polynomial;
    }
    const empty = powers[64] as bigint;
    this.emptyHi = Number(empty >> 32n);
    this.emptyLo = Number(empty & 0xFFFFFFFFn);

    // Each entry is the entry without its lowest set bit XOR that bit's power, in 32-bit
    // halves: 4,096 XORs per table set instead of ~100,000 BigInt operations (which cost
    // every start ~0.1 s).
    const powHi = new Int32Array(128);
    const powLo = new Int32Array(128);
    for (let i = 0; i < 128; i++) {
      powHi[i] = Number(BigInt.asIntN(32, (powers[i] as bigint) >> 32n));
      powLo[i] = Number(BigInt.asIntN(32, (powers[i] as bigint) & 0xFFFFFFFFn));
    }
    this.hiTab = new Int32Array(16 * 256);
    this.loTab = new Int32Array(16 * 256);
    for (let i = 0; i < 16; i++) {
      for (let j = 1; j < 256; j++) {
        const k = 31 - Math.clz32(j & -j);
        const rest = i * 256 + (j & (j - 1));
        this.hiTab[i * 256 + j] = this.hiTab[rest]! ^ powHi[127 - i * 8 - k]!;
        this.loTab[i * 256 + j] = this.loTab[rest]! ^ powLo[127 - i * 8 - k]!;
      }
    }

    // FPGenerator folds back the low (8 - floor(d/8)) bytes and keeps the rest.
    this.reduceBytes = 8 - Math.floor(degree / 8);
    const keep = this.reduceBytes === 8 ? 0n : (MASK64 << BigInt(8 * this.reduceBytes)) & MASK64;
    this.keepHi = Number(keep >> 32n);
    this.keepLo = Number(keep & 0xFFFFFFFFn);
  }

  /**
   * Fingerprint of `s[start, end)` written into `out` as hi/lo halves.
   * This is the allocation-free path the seen filter uses.
   */
  fpInto(s: string, out: Fp64, start = 0, end = s.length): Fp64 {
    return this.continueInto(s, start, end, this.emptyHi | 0, this.emptyLo | 0, out);
  }

  /**
   * This fingerprint of all of `s` into `out`, and `prefixFp`'s fingerprint
   * of `s[0, prefixEnd)` as the return value, reading each code unit once.
   * Only the prefix fingerprint's hi half is returned (unsigned; all of it
   * when prefixFp.degree <= 32), so a caller with one scratch object needs
   * no second one. Both equal what fpInto gives for the same ranges.
   */
  fpWithPrefixInto(s: string, prefixEnd: number, prefixFp: RabinFingerprinter, out: Fp64): number {
    const hiTab = this.hiTab;
    const loTab = this.loTab;
    const pHiTab = prefixFp.hiTab;
    const pLoTab = prefixFp.loTab;
    let hi = this.emptyHi | 0;
    let lo = this.emptyLo | 0;
    let pHi = prefixFp.emptyHi | 0;
    let pLo = prefixFp.emptyLo | 0;
    const n = s.length;
    const pEnd = prefixEnd < n ? prefixEnd : n;
    let i = 0;
    for (; i + 1 < pEnd; i += 2) {
      const u = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
      const v = pLo ^ u;
      const j0 = 1024 + (v & 0xff);
      const j1 = 1280 + ((v >>> 8) & 0xff);
      const j2 = 1536 + ((v >>> 16) & 0xff);
      const j3 = 1792 + (v >>> 24);
      pLo = pHi ^ (pLoTab[j0] as number) ^ (pLoTab[j1] as number) ^ (pLoTab[j2] as number) ^ (pLoTab[j3] as number);
      pHi = (pHiTab[j0] as number) ^ (pHiTab[j1] as number) ^ (pHiTab[j2] as number) ^ (pHiTab[j3] as number);
      const w = lo ^ u;
      const k0 = 1024 + (w & 0xff);
      const k1 = 1280 + ((w >>> 8) & 0xff);
      const k2 = 1536 + ((w >>> 16) & 0xff);
      const k3 = 1792 + (w >>> 24);
      lo = hi ^ (loTab[k0] as number) ^ (loTab[k1] as number) ^ (loTab[k2] as number) ^ (loTab[k3] as number);
      hi = (hiTab[k0] as number) ^ (hiTab[k1] as number) ^ (hiTab[k2] as number) ^ (hiTab[k3] as number);
    }
    if (i < pEnd) {
      // An odd-length prefix: one unit for both; the rest goes on from i + 1.
      const c = s.charCodeAt(i);
      const v = pLo ^ c;
      const j0 = 1536 + (v & 0xff);
      const j1 = 1792 + ((v >>> 8) & 0xff);
      pLo = ((v >>> 16) | (pHi << 16)) ^ (pLoTab[j0] as number) ^ (pLoTab[j1] as number);
      pHi = (pHi >>> 16) ^ (pHiTab[j0] as number) ^ (pHiTab[j1] as number);
      const w = lo ^ c;
      const k0 = 1536 + (w & 0xff);
      const k1 = 1792 + ((w >>> 8) & 0xff);
      lo = ((w >>> 16) | (hi << 16)) ^ (loTab[k0] as number) ^ (loTab[k1] as number);
      hi = (hi >>> 16) ^ (hiTab[k0] as number) ^ (hiTab[k1] as number);
      i++;
    }
    const prefixHi = prefixFp.reduceInto(pHi, pLo, out).hi;
    this.continueInto(s, i, n, hi, lo, out);
    return prefixHi;
  }

  /**
   * Goes on from the unreduced state (hi, lo) over `s[start, end)`, then
   * reduces into `out`.
   */
  private continueInto(s: string, start: number, end: number, hi: number, lo: number, out: Fp64): Fp64 {
    const hiTab = this.hiTab;
    const loTab = this.loTab;
    let i = start;
    for (; i + 1 < end; i += 2) {
      // Per code unit FPGenerator XORs it into the low 16 bits and shifts 16
      // bits out; two units at once XOR as one word (the second one where
      // the first shift would have moved it) and shift the whole word out.
      const w = lo ^ (s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16));
      const k0 = 1024 + (w & 0xff);
      const k1 = 1280 + ((w >>> 8) & 0xff);
      const k2 = 1536 + ((w >>> 16) & 0xff);
      const k3 = 1792 + (w >>> 24);
      lo = hi ^ (loTab[k0] as number) ^ (loTab[k1] as number) ^ (loTab[k2] as number) ^ (loTab[k3] as number);
      hi = (hiTab[k0] as number) ^ (hiTab[k1] as number) ^ (hiTab[k2] as number) ^ (hiTab[k3] as number);
    }
    if (i < end) {
      // The odd unit: XOR it in, shift its 16 bits out (tables 6 and 7).
      const w = lo ^ s.charCodeAt(i);
      const k0 = 1536 + (w & 0xff);
      const k1 = 1792 + ((w >>> 8) & 0xff);
      lo = ((w >>> 16) | (hi << 16)) ^ (loTab[k0] as number) ^ (loTab[k1] as number);
      hi = (hi >>> 16) ^ (hiTab[k0] as number) ^ (hiTab[k1] as number);
    }
    return this.reduceInto(hi, lo, out);
  }

  /** Fingerprint of `s` as an unsigned 64-bit BigInt (top `degree` bits used). */
  fp(s: string): bigint {
    const out: Fp64 = { hi: 0, lo: 0 };
    this.fpInto(s, out);
    return (BigInt(out.hi >>> 0) << 32n) | BigInt(out.lo >>> 0);
  }

  private reduceInto(hi: number, lo: number, out: Fp64): Fp64 {
    const n = this.reduceBytes;
    let rHi = hi & this.keepHi;
    let rLo = lo & this.keepLo;
    const hiTab = this.hiTab;
    const loTab = this.loTab;
    for (let i = 0; i < n; i++) {
      // Byte i of the 64-bit word, counted from the least significant end.
      const byte = i < 4 ? (lo >>> (8 * i)) & 0xff : (hi >>> (8 * (i - 4))) & 0xff;
      const idx = (8 + i) * 256 + byte;
      rHi ^= hiTab[idx] as number;
      rLo ^= loTab[idx] as number;
    }
    out.hi = rHi >>> 0;
    out.lo = rLo >>> 0;
    return out;
  }
}

/** FPGenerator.std24: used for the scheme+authority part of seen keys. */
export const std24 = new RabinFingerprinter(POLY_STD24, 24);
/** FPGenerator.std40: used for the whole-URL part of seen keys. */
export const std40 = new RabinFingerprinter(POLY_STD40, 40);
/** FPGenerator.std64: a general 64-bit fingerprint (crawl mappers, digests of keys). */
export const std64 = new RabinFingerprinter(POLY_STD64, 64);
