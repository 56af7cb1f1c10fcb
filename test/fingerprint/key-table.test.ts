/** The in-memory key table against a plain Set, through growth, deletes (backward shift) and the cap. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyTable } from '../../src/fingerprint/key-table.js';
import { mulberry32 } from '../helpers/prng.js';

const id = (hi: number, lo: number): string => `${hi >>> 0}:${lo >>> 0}`;

test('random adds and deletes agree with a Set, through several doublings', () => {
  const random = mulberry32(42);
  const table = new KeyTable({ initialSlots: 16 });
  const reference = new Set<string>();
  const keys: [number, number][] = [];
  for (let step = 0; step < 60_000; step++) {
    const r = random();
    if (r < 0.6 || keys.length === 0) {
      // Few distinct high words (hosts) and clustered low words, so probe runs get long.
      const key: [number, number] = [Math.floor(random() * 8) << 8, Math.floor(random() * 50_000) * 1024];
      keys.push(key);
      assert.equal(table.add(key[0], key[1]), !reference.has(id(...key)));
      reference.add(id(...key));
    } else if (r < 0.85) {
      const key = keys[Math.floor(random() * keys.length)] as [number, number];
      assert.equal(table.delete(key[0], key[1]), reference.delete(id(...key)));
    } else {
      const key: [number, number] = [Math.floor(random() * 8) << 8, Math.floor(random() * 50_000) * 1024];
      assert.equal(table.has(key[0], key[1]), reference.has(id(...key)));
    }
  }
  assert.equal(table.size, reference.size);
  for (const key of keys) assert.equal(table.has(key[0], key[1]), reference.has(id(...key)));
  const visited = new Set<string>();
  table.forEach((hi, lo) => visited.add(id(hi, lo)));
  assert.deepEqual([...visited].sort(), [...reference].sort());
  assert.ok(table.bytes >= reference.size * 8);
});

test('the zero key and keys with the sign bit set are ordinary members', () => {
  const table = new KeyTable();
  assert.equal(table.has(0, 0), false);
  assert.equal(table.add(0, 0), true);
  assert.equal(table.add(0xffffffff, 0x80000000), true);
  assert.equal(table.has(-1, -2147483648), true, 'signed and unsigned spellings are the same key');
  assert.equal(table.add(0, 0), false);
  assert.equal(table.size, 2);
  assert.equal(table.delete(0, 0), true);
  assert.equal(table.has(0, 0), false);
  assert.equal(table.size, 1);
});

test('a full table refuses new keys but still answers and accepts known ones', () => {
  const table = new KeyTable({ maxKeys: 3 });
  for (let i = 1; i <= 3; i++) assert.equal(table.add(i, i), true);
  assert.equal(table.full, true);
  assert.throws(() => table.add(9, 9), RangeError);
  assert.equal(table.add(2, 2), false);
  assert.equal(table.has(3, 3), true);
  table.delete(1, 1);
  assert.equal(table.full, false);
  assert.equal(table.add(9, 9), true);
});

test('deleteWithPrefix24 removes one host and leaves the others', () => {
  const table = new KeyTable();
  for (let i = 0; i < 1000; i++) {
    table.add((0xabcdef << 8) | (i & 0xff), i);
    table.add((0xabcdee << 8) | (i & 0xff), i);
  }
  assert.equal(table.deleteWithPrefix24(0xabcdef), 1000);
  assert.equal(table.size, 1000);
  assert.equal(table.has((0xabcdef << 8) | 5, 5), false);
  assert.equal(table.has((0xabcdee << 8) | 5, 5), true);
});
