/** KeptZlib: a handle reset between inputs gives what zlib's *Sync calls give, failures included, and is made again after one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { KeptZlib, keptZlib, ZlibInputError } from '../../src/core/kept-zlib.js';
import { memberBufferBytes } from '../../src/writer/gzip-member.js';

/** Inputs of the kinds a crawl compresses: small heads, text, incompressible bytes, nothing. */
function inputs(): Buffer[] {
  const text = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => `word${(i * seed) % 97} `).join(''), 'utf8');
  return [
    Buffer.alloc(0),
    Buffer.from('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'latin1'),
    text(50, 7),
    text(3000, 13),
    text(40_000, 31),
    randomBytes(10),
    randomBytes(5000),
    randomBytes(200_000),
  ];
}

function handle(kind: Parameters<typeof KeptZlib.make>[0]): KeptZlib {
  const z = KeptZlib.make(kind);
  assert.ok(z, 'node 20 has the zlib internals used');
  return z;
}

test('a gzip handle reset between inputs makes the same bytes as gzipSync with the same output buffer, at every level', () => {
  for (const level of [0, 1, 6, 9]) {
    const z = handle({ gzip: level });
    // Twice over, so that every input after the first follows a different one in the same handle.
    for (const input of [...inputs(), ...inputs().reverse()]) {
      const first = memberBufferBytes(input.length);
      const member = z.whole(input, first);
      assert.ok(member);
      // Stored blocks end where the output buffer does: the same buffer for both.
      assert.deepEqual(member, gzipSync(input, { level, chunkSize: first }), `level ${level}, ${input.length} bytes`);
      assert.deepEqual(gunzipSync(member), input);
    }
    z.close();
  }
});

test('a first buffer too small is grown, and the output is whole', () => {
  const z = handle({ gzip: 0 });
  const input = randomBytes(100_000);
  const member = z.whole(input, 64);
  assert.ok(member);
  assert.deepEqual(gunzipSync(member), input);
  const u = handle('gunzip');
  assert.deepEqual(u.whole(gzipSync(input), 64), input);
});

test('a gunzip handle gives what gunzipSync gives: concatenated members, trailing NULs, an empty member', () => {
  const u = handle('gunzip');
  const [a, b] = [Buffer.from('first member '), randomBytes(3000)];
  const cases = [
    gzipSync(a),
    Buffer.concat([gzipSync(a), gzipSync(b)]),
    Buffer.concat([gzipSync(b), Buffer.alloc(7)]),
    gzipSync(Buffer.alloc(0)),
  ];
  for (const c of cases) assert.deepEqual(u.whole(c, 16), gunzipSync(c));
});

test('a corrupt or truncated body throws as gunzipSync does, and the next body gets a new handle', () => {
  const good = gzipSync(Buffer.from('x'.repeat(5000)));
  const bad = [good.subarray(0, good.length - 9), Buffer.concat([good, Buffer.from('garbage')]), Buffer.from('not gzip at all'), Buffer.alloc(0)];
  for (const body of bad) {
    assert.throws(() => gunzipSync(body), 'gunzipSync refuses it too');
    const u = keptZlib('gunzip');
    assert.ok(u);
    assert.throws(() => u.whole(body, 1024), ZlibInputError);
    assert.equal(u.usable, false);
    const next = keptZlib('gunzip');
    assert.ok(next && next !== u && next.usable, 'made again');
    assert.deepEqual(next.whole(good, 1024), gunzipSync(good));
  }
});

test('output past maxBytes gives null, exactly where gunzipSync would refuse it', () => {
  const body = gzipSync(Buffer.alloc(10_000, 0x61));
  const u = handle('gunzip');
  assert.equal(u.whole(body, 64, 9_999), null);
  assert.throws(() => gunzipSync(body, { maxOutputLength: 9_999 }));
  assert.equal(u.whole(body, 64, 10_000)?.length, 10_000);
  assert.equal(gunzipSync(body, { maxOutputLength: 10_000 }).length, 10_000);
  assert.ok(u.usable, 'a cap is not a failure');
});

test('the thread keeps one handle per kind', () => {
  assert.equal(keptZlib({ gzip: 6 }), keptZlib({ gzip: 6 }));
  assert.notEqual(keptZlib({ gzip: 6 }), keptZlib({ gzip: 0 }));
});
