/**
 * Deterministic randomness for the fixture web: a small seeded PRNG
 * (mulberry32) and a Zipf sampler. The fixture web must produce the same
 * bytes for the same seed on every machine, so nothing here touches
 * Math.random or the clock.
 */

/** A seeded generator of floats in [0, 1). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Mix the seed once so that neighbouring seeds (1, 2, 3…) diverge at once.
    this.state = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ 0xc2b2ae35) >>> 0;
  }

  /** Next float in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick() from an empty array');
    return item;
  }

  /** A derived generator, so that one part of the web can change without shifting the others. */
  fork(label: number): Rng {
    return new Rng((Math.floor(this.next() * 4294967296) ^ Math.imul(label + 1, 0x27d4eb2d)) >>> 0);
  }
}

/**
 * Samples indexes 0..n-1 with probability proportional to 1/(rank+1)^exponent:
 * a few items get most of the picks, which gives the link graph its
 * power-law-ish in-degree. Ranks are a fixed permutation of the indexes so
 * that the popular items are not always the first ones.
 */
export class ZipfSampler {
  private readonly cumulative: Float64Array;
  private readonly itemOfRank: Uint32Array;

  constructor(n: number, exponent: number, rng: Rng) {
    if (n < 1) throw new RangeError('ZipfSampler needs at least one item');
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let rank = 0; rank < n; rank++) {
      total += 1 / Math.pow(rank + 1, exponent);
      this.cumulative[rank] = total;
    }
    for (let rank = 0; rank < n; rank++) this.cumulative[rank] = (this.cumulative[rank] ?? 0) / total;
    this.itemOfRank = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.itemOfRank[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(0, i);
      const tmp = this.itemOfRank[i] ?? 0;
      this.itemOfRank[i] = this.itemOfRank[j] ?? 0;
      this.itemOfRank[j] = tmp;
    }
  }

  sample(rng: Rng): number {
    const u = rng.next();
    // Binary search for the first rank whose cumulative weight exceeds u.
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] ?? 1) > u) hi = mid;
      else lo = mid + 1;
    }
    return this.itemOfRank[lo] ?? 0;
  }
}
