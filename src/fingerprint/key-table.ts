/**
 * An exact in-memory set of 64-bit keys (Heritrix seen-filter keys, as two
 * unsigned 32-bit halves): open addressing with linear probing in one
 * Int32Array, 8 bytes per slot, doubling as it fills, up to a fixed cap.
 *
 * This is what lets the already-seen filter answer from memory: 10M keys fit
 * in a 128 MiB table, where a Set of URL strings needs 1.6 GB or more and a
 * LevelDB lookup costs 5-10 µs. Keys are fingerprints, so the low word is
 * already well mixed; the hash still folds in the high word (the host part)
 * so hosts cannot cluster.
 */

/** The table doubles when more than this fraction of slots is used. */
const MAX_LOAD = 0.75;
const MIN_SLOTS = 1 << 10;
/** 2^27 slots = 1 GiB: the largest table one Int32Array pair layout allows comfortably. */
const MAX_SLOTS = 1 << 27;

export interface KeyTableOpts {
  /** Most keys the table will hold; `add` beyond it throws. Default: as many as 2^27 slots allow. */
  maxKeys?: number;
  /** Slots to start with (rounded up to a power of two). Default 1024. */
  initialSlots?: number;
}

export class KeyTable {
  readonly maxKeys: number;
  /** Slot i is (hi, lo) at [2i, 2i+1]; (0, 0) marks an empty slot. */
  #slots: Int32Array;
  #mask: number;
  #size = 0;
  /** The key (0, 0) cannot be stored in a slot; it is kept aside. */
  #hasZero = false;

  constructor(opts: KeyTableOpts = {}) {
    const cap = Math.floor(MAX_SLOTS * MAX_LOAD);
    this.maxKeys = Math.min(opts.maxKeys ?? cap, cap);
    if (!Number.isInteger(this.maxKeys) || this.maxKeys < 0) throw new RangeError(`maxKeys must be a non-negative integer, got ${opts.maxKeys}`);
    const slots = pow2AtLeast(Math.max(MIN_SLOTS, opts.initialSlots ?? MIN_SLOTS));
    this.#slots = new Int32Array(slots * 2);
    this.#mask = slots - 1;
  }

  /** Keys held. */
  get size(): number {
    return this.#size;
  }

  /** True when `add` of a new key would throw. */
  get full(): boolean {
    return this.#size >= this.maxKeys;
  }

  /** Memory the slots take, in bytes. */
  get bytes(): number {
    return this.#slots.byteLength;
  }

  has(hi: number, lo: number): boolean {
    if ((hi | lo) === 0) return this.#hasZero;
    const slots = this.#slots;
    const mask = this.#mask;
    hi |= 0;
    lo |= 0;
    for (let i = slotOf(hi, lo, mask); ; i = (i + 1) & mask) {
      const h = slots[2 * i] as number;
      const l = slots[2 * i + 1] as number;
      if (h === hi && l === lo) return true;
      if ((h | l) === 0) return false;
    }
  }

  /** Add the key; true if it was not there. Throws RangeError when the table is full and the key is new. */
  add(hi: number, lo: number): boolean {
    hi |= 0;
    lo |= 0;
    if ((hi | lo) === 0) {
      if (this.#hasZero) return false;
      this.#reserveOne();
      this.#hasZero = true;
      this.#size++;
      return true;
    }
    const at = this.#find(hi, lo);
    if (at >= 0) return false;
    this.#reserveOne();
    this.#place(hi, lo);
    this.#size++;
    return true;
  }

  /** Remove the key; true if it was there. */
  delete(hi: number, lo: number): boolean {
    hi |= 0;
    lo |= 0;
    if ((hi | lo) === 0) {
      if (!this.#hasZero) return false;
      this.#hasZero = false;
      this.#size--;
      return true;
    }
    const at = this.#find(hi, lo);
    if (at < 0) return false;
    this.#removeAt(at);
    this.#size--;
    return true;
  }

  /**
   * Remove every key whose top 24 bits are `prefix24` (one host's keys in
   * Heritrix's layout). A scan of the whole table: for rare operations only.
   */
  deleteWithPrefix24(prefix24: number): number {
    const doomed: number[] = [];
    this.forEach((hi, lo) => {
      if (hi >>> 8 === prefix24) doomed.push(hi, lo);
    });
    for (let k = 0; k < doomed.length; k += 2) this.delete(doomed[k] as number, doomed[k + 1] as number);
    return doomed.length / 2;
  }

  /** Visit every key as unsigned halves (order unspecified; do not modify the table meanwhile). */
  forEach(visit: (hi: number, lo: number) => void): void {
    if (this.#hasZero) visit(0, 0);
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i += 2) {
      const h = slots[i] as number;
      const l = slots[i + 1] as number;
      if ((h | l) !== 0) visit(h >>> 0, l >>> 0);
    }
  }

  clear(): void {
    this.#slots = new Int32Array(MIN_SLOTS * 2);
    this.#mask = MIN_SLOTS - 1;
    this.#size = 0;
    this.#hasZero = false;
  }

  /** Slot index holding the key, or -1. */
  #find(hi: number, lo: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let i = slotOf(hi, lo, mask); ; i = (i + 1) & mask) {
      const h = slots[2 * i] as number;
      const l = slots[2 * i + 1] as number;
      if (h === hi && l === lo) return i;
      if ((h | l) === 0) return -1;
    }
  }

  /** Put a key known to be absent into the first free slot of its probe run. */
  #place(hi: number, lo: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let i = slotOf(hi, lo, mask);
    while (((slots[2 * i] as number) | (slots[2 * i + 1] as number)) !== 0) i = (i + 1) & mask;
    slots[2 * i] = hi;
    slots[2 * i + 1] = lo;
  }

  /**
   * Empty slot `at` and shift later members of the probe run back, so every
   * key stays reachable from its home slot without tombstones.
   */
  #removeAt(at: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let hole = at;
    for (let j = (at + 1) & mask; ; j = (j + 1) & mask) {
      const h = slots[2 * j] as number;
      const l = slots[2 * j + 1] as number;
      if ((h | l) === 0) break;
      const home = slotOf(h, l, mask);
      // Move j into the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      slots[2 * hole] = h;
      slots[2 * hole + 1] = l;
      hole = j;
    }
    slots[2 * hole] = 0;
    slots[2 * hole + 1] = 0;
  }

  /** Make room for one more key: check the cap, double the slots if the load would pass MAX_LOAD. */
  #reserveOne(): void {
    if (this.#size >= this.maxKeys) throw new RangeError(`key table full (${this.maxKeys} keys)`);
    const slots = this.#mask + 1;
    if (this.#size + 1 <= slots * MAX_LOAD || slots >= MAX_SLOTS) return;
    const old = this.#slots;
    this.#slots = new Int32Array(slots * 4);
    this.#mask = slots * 2 - 1;
    for (let i = 0; i < old.length; i += 2) {
      const h = old[i] as number;
      const l = old[i + 1] as number;
      if ((h | l) !== 0) this.#place(h, l);
    }
  }
}

function slotOf(hi: number, lo: number, mask: number): number {
  let h = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
  h ^= h >>> 16;
  return h & mask;
}

function pow2AtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
