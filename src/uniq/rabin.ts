/**
 * Rabin fingerprints over the UTF-16 code units of a string, bit-compatible
 * with webarchive-commons' FPGenerator (the one Heritrix's seen filter keys
 * are built from). A degree-d fingerprint lives in the top d bits of a 64-bit
 * word; bit 63 is the coefficient of x^0, so "shift right" multiplies by x.
 *
 * The inner loop runs on two unsigned 32-bit halves with precomputed tables:
 * BigInt only appears when a caller asks for the 64-bit value, never per char.
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
   * 16 tables × 256 entries: table i, entry j = the sum of x^(127 - 8i - k)
   * mod P over the set bits k of j, stored as interleaved hi/lo int32 pairs
   * (one cache line serves both halves). Tables 6 and 7 fold in one 16-bit
   * code unit; tables 8.. finish the reduction.
   */
  private readonly tab: Int32Array;
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

    this.tab = new Int32Array(16 * 256 * 2);
    for (let i = 0; i < 16; i++) {
      for (let j = 0; j < 256; j++) {
        let v = 0n;
        for (let k = 0; k < 8; k++) {
          if ((j & (1 << k)) !== 0) v ^= powers[127 - i * 8 - k] as bigint;
        }
        this.tab[(i * 256 + j) * 2] = Number(BigInt.asIntN(32, v >> 32n));
        this.tab[(i * 256 + j) * 2 + 1] = Number(BigInt.asIntN(32, v & 0xFFFFFFFFn));
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
    const tab = this.tab;
    let hi = this.emptyHi | 0;
    let lo = this.emptyLo | 0;
    for (let i = start; i < end; i++) {
      // XOR the code unit into the low 16 bits, shift those 16 bits out and
      // add back their residues (tables 6 and 7).
      lo ^= s.charCodeAt(i);
      const b0 = (6 * 256 + (lo & 0xff)) << 1;
      const b1 = (7 * 256 + ((lo >>> 8) & 0xff)) << 1;
      const nlo = (lo >>> 16) | (hi << 16);
      hi = (hi >>> 16) ^ (tab[b0] as number) ^ (tab[b1] as number);
      lo = nlo ^ (tab[b0 + 1] as number) ^ (tab[b1 + 1] as number);
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
    const tab = this.tab;
    for (let i = 0; i < n; i++) {
      // Byte i of the 64-bit word, counted from the least significant end.
      const byte = i < 4 ? (lo >>> (8 * i)) & 0xff : (hi >>> (8 * (i - 4))) & 0xff;
      const idx = ((8 + i) * 256 + byte) << 1;
      rHi ^= tab[idx] as number;
      rLo ^= tab[idx + 1] as number;
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
