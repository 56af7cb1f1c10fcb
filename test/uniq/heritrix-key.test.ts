/**
 * Heritrix seen keys and the Rabin fingerprints under them. The published
 * vectors come from Heritrix's BdbUriUniqFilterTest; the fingerprinter is
 * also checked against a slow bit-at-a-time model of the same polynomial
 * arithmetic, so a table or 32-bit-split mistake cannot hide behind two
 * lucky vectors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createKey,
  keyBytes,
  hostPrefixBytes,
  schemeAuthorityEnd,
} from '../../src/uniq/heritrix-key.js';
import { RabinFingerprinter, std24, std40, std64, POLY_STD24, POLY_STD40, POLY_STD64 } from '../../src/fingerprint/rabin.js';

const MASK64 = (1n << 64n) - 1n;

/**
 * FPGenerator's arithmetic one bit at a time: bit 63 is x^0, so shifting
 * right multiplies by x. Start from x^64 mod P; per UTF-16 unit, add its 16
 * bits as the coefficients of x^63..x^48 and multiply by x^16; finally fold
 * every coefficient of degree >= d back with x^k mod P.
 */
function slowFp(s: string, poly: bigint, degree: number): bigint {
  const one = 1n << 63n;
  const top = one >> BigInt(degree - 1);
  const pow: bigint[] = [];
  let p = one;
  for (let i = 0; i <= 64; i++) {
    pow.push(p);
    const overflow = (p & top) !== 0n;
    p >>= 1n;
    if (overflow) p ^= poly;
  }
  let f = pow[64] as bigint;
  for (let i = 0; i < s.length; i++) {
    f ^= BigInt(s.charCodeAt(i));
    for (let b = 0; b < 16; b++) {
      const carry = (f & 1n) !== 0n; // coefficient of x^63 becomes x^64
      f >>= 1n;
      if (carry) f ^= pow[64] as bigint;
    }
  }
  for (let k = 63; k >= degree; k--) {
    const bit = 1n << BigInt(63 - k);
    if ((f & bit) !== 0n) f = (f ^ bit) ^ (pow[k] as bigint);
  }
  return f & MASK64;
}

test("Heritrix's published createKey vectors", () => {
  assert.equal(createKey('dns:archive.org'), 8812917769287344085n);
  assert.equal(createKey('http://archive.org/index.html'), 6613237167064754714n);
});

test("keys that once collided in Heritrix's tests stay distinct", () => {
  assert.notEqual(createKey('dns:mail.daps.dla.mil'), createKey('dns:militaryreview.army.mil'));
});

test('keyBytes is createKey as 8 big-endian bytes', () => {
  for (const url of ['dns:archive.org', 'http://archive.org/index.html', 'https://example.org/ü?q=1']) {
    const buf = keyBytes(url);
    assert.equal(buf.length, 8);
    assert.equal(buf.readBigInt64BE(0), createKey(url));
  }
});

test('scheme+authority ends at the first slash after ://, or covers the whole URL', () => {
  assert.equal(schemeAuthorityEnd('http://archive.org/index.html'), 'http://archive.org'.length);
  assert.equal(schemeAuthorityEnd('http://archive.org'), 'http://archive.org'.length);
  assert.equal(schemeAuthorityEnd('dns:archive.org'), 'dns:archive.org'.length);
  assert.equal(schemeAuthorityEnd('dns:archive.org/x'), 'dns:archive.org/x'.length);
});

test('URLs of one scheme+authority share the 3-byte prefix; the rest of the key is the whole-URL fingerprint', () => {
  const a = keyBytes('http://archive.org/a');
  const b = keyBytes('http://archive.org/b?x=1');
  assert.deepEqual(a.subarray(0, 3), b.subarray(0, 3));
  assert.deepEqual(a.subarray(0, 3), hostPrefixBytes('http://archive.org/anything'));
  assert.notDeepEqual(a.subarray(3), b.subarray(3));
  assert.deepEqual(a.subarray(0, 3), Buffer.from((std24.fp('http://archive.org') >> 40n).toString(16).padStart(6, '0'), 'hex'));
  const low40 = a.readBigUInt64BE(0) & ((1n << 40n) - 1n);
  assert.equal(low40, std40.fp('http://archive.org/a') >> 24n);
});

test('table-driven fingerprints equal the bit-at-a-time model (24, 40, 64 and an odd degree)', () => {
  const odd = new RabinFingerprinter(0xE758000000000000n, 12); // FPGenerator's degree-12 polynomial
  const cases: Array<[RabinFingerprinter, bigint, number]> = [
    [std24, POLY_STD24, 24],
    [std40, POLY_STD40, 40],
    [std64, POLY_STD64, 64],
    [odd, 0xE758000000000000n, 12],
  ];
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const strings = ['', 'a', 'http://archive.org/index.html', 'ü€😀\u0000\uffff'];
  for (let i = 0; i < 40; i++) {
    strings.push(Array.from({ length: rand(70) }, () => String.fromCharCode(rand(4) === 0 ? rand(0x10000) : 32 + rand(95))).join(''));
  }
  for (const [fp, poly, degree] of cases) {
    for (const s of strings) assert.equal(fp.fp(s), slowFp(s, poly, degree), `degree ${degree}: ${JSON.stringify(s)}`);
  }
});

test('a degree-d fingerprint uses only the top d bits', () => {
  for (const s of ['', 'x', 'http://example.org/']) {
    assert.equal(std24.fp(s) & ((1n << 40n) - 1n), 0n);
    assert.equal(std40.fp(s) & ((1n << 24n) - 1n), 0n);
  }
  assert.throws(() => new RabinFingerprinter(POLY_STD64, 65), RangeError);
});

/** The key as BdbUriUniqFilter.createKey builds it, from the bit-at-a-time model. */
function slowKey(url: string): bigint {
  let end = url.indexOf('://');
  if (end > 0) end = url.indexOf('/', end + 3);
  if (end === -1) end = url.length;
  const host = slowFp(url.slice(0, end), POLY_STD24, 24) & (((1n << 24n) - 1n) << 40n);
  const whole = slowFp(url, POLY_STD40, 40) >> 24n;
  return BigInt.asIntN(64, host | whole);
}

/** Random URL-ish strings: odd and even lengths, ASCII mostly, some wide and surrogate units, odd authorities. */
function randomUrls(count: number, seed0: number): string[] {
  let seed = seed0;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const schemes = ['http://', 'https://', 'HTTP://', 'ftp://', 'dns:', 'x://', '://', 'mailto:', ''];
  const chunk = (max: number): string =>
    Array.from({ length: rand(max) }, () => {
      const r = rand(20);
      if (r === 0) return String.fromCharCode(rand(0x10000));
      if (r === 1) return '😀/';
      if (r === 2) return '/';
      return String.fromCharCode(32 + rand(95));
    }).join('');
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(schemes[rand(schemes.length)] + chunk(30) + (rand(3) === 0 ? '' : '/' + chunk(90)));
  return out;
}

test('the two-units-per-step, one-pass key equals the bit-at-a-time model on random URLs', () => {
  // Regression guard for the fast path: the odd unit at the end of the
  // authority or of the URL, wide and surrogate units, URLs without `://`.
  const urls = randomUrls(400, 99);
  urls.push('', 'h', 'http://', 'http://a', 'http://ab/', 'https://a/b', 'https://ab/c', '://x/y');
  for (const url of urls) {
    assert.equal(createKey(url), slowKey(url), JSON.stringify(url));
    assert.equal(keyBytes(url).readBigInt64BE(0), slowKey(url), JSON.stringify(url));
  }
});

test('fpInto over any range, and fpWithPrefixInto with any prefix end, equal the model', () => {
  const s = 'https://wörld.example/😀/a?b=c#d';
  const out = { hi: 0, lo: 0 };
  const asBig = (fp: { hi: number; lo: number }): bigint => (BigInt(fp.hi) << 32n) | BigInt(fp.lo);
  for (let start = 0; start <= s.length; start++) {
    for (let end = start; end <= s.length; end++) {
      assert.equal(asBig(std40.fpInto(s, out, start, end)), slowFp(s.slice(start, end), POLY_STD40, 40), `${start}..${end}`);
    }
  }
  for (let prefixEnd = 0; prefixEnd <= s.length + 2; prefixEnd++) {
    for (const [whole, prefix, pPoly, pDeg] of [
      [std40, std24, POLY_STD24, 24],
      [std24, std64, POLY_STD64, 64],
    ] as const) {
      const prefixHi = whole.fpWithPrefixInto(s, prefixEnd, prefix, out);
      assert.equal(asBig(out), whole.fp(s), `whole, prefix end ${prefixEnd}`);
      assert.equal(BigInt(prefixHi), slowFp(s.slice(0, prefixEnd), pPoly, pDeg) >> 32n, `prefix end ${prefixEnd}`);
    }
  }
});

test('schemeAuthorityEnd equals the plain indexOf rule on random strings', () => {
  for (const url of [...randomUrls(300, 5), '://a/b', 'http:/a/b', 'https:/x', 'httpss://a/b', 'http://', 'https://']) {
    let end = url.indexOf('://');
    if (end > 0) end = url.indexOf('/', end + 3);
    assert.equal(schemeAuthorityEnd(url), end === -1 ? url.length : end, JSON.stringify(url));
  }
});
