/**
 * Queue assignment policies and the ELF hash. ELF values are checked against
 * hand-worked values and a second implementation on BigInt, written from the
 * System V definition, so a signed-shift mistake in the fast one shows up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FrontierOptions } from '../../src/config/profile.js';
import { elfHash, elfHashPolicy, hostnamePolicy, queueAssignmentFor, surtAuthorityPolicy } from '../../src/frontier/assignment.js';

/** Reference ELF hash on unbounded integers, truncated to 32 bits explicitly. */
function elfHashBig(s: string): number {
  const mask = 0xffffffffn;
  let h = 0n;
  for (let i = 0; i < s.length; i++) {
    h = ((h << 4n) + BigInt(s.charCodeAt(i))) & mask;
    const g = h & 0xf0000000n;
    if (g !== 0n) h ^= g >> 24n;
    h &= ~g & mask;
  }
  return Number(h);
}

describe('elfHash', () => {
  it('matches hand-worked values', () => {
    assert.equal(elfHash(''), 0);
    assert.equal(elfHash('a'), 97);
    assert.equal(elfHash('ab'), 97 * 16 + 98); // 1650
    // 'abcdef' fits in 28 bits: 0x6789ab6. The 7th char reaches the high nibble:
    // h = 0x6789ab60 + 0x67 = 0x6789abc7, g = 0x60000000, h ^= 0x60 → 0x6789aba7, h &= ~g.
    assert.equal(elfHash('abcdef'), 0x06789ab6);
    assert.equal(elfHash('abcdefg'), 0x0789aba7);
    // h = 0x789aba70 + 0x68 = 0x789abad8, g = 0x70000000, h ^= 0x70 → 0x789abaa8, h &= ~g.
    assert.equal(elfHash('abcdefgh'), 0x089abaa8);
  });

  it('agrees with a BigInt reference on long, non-ASCII and high-bit strings', () => {
    const samples = [
      'http://www.example.com/some/rather/long/path/with/many/segments?and=a&query=string',
      'https://例子.测试/路径?q=値',
      '\uffff'.repeat(40),
      'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
    ];
    for (let i = 0; i < 200; i++) samples.push(`http://host${i}.test/page/${i * 7919}`);
    for (const s of samples) {
      const h = elfHash(s);
      assert.equal(h, elfHashBig(s), s);
      assert.ok(h >= 0 && h <= 0x0fffffff, 'ELF hash keeps the top nibble clear');
    }
  });
});

describe('queue assignment policies', () => {
  const base: FrontierOptions = { queueAssignment: 'hostname', elfHashBuckets: 10, elfHashOf: 'url', order: 'breadth-first', precedence: 'fifo', balanceReplenishAmount: 3000, queueTotalBudget: -1 };

  it('hostname: host, host#port, and #443 for https without a port', () => {
    assert.equal(hostnamePolicy.keyFor(new URL('http://Example.com/a')), 'example.com');
    assert.equal(hostnamePolicy.keyFor(new URL('http://example.com:80/a')), 'example.com');
    assert.equal(hostnamePolicy.keyFor(new URL('http://127.0.0.2:8080/')), '127.0.0.2#8080');
    assert.equal(hostnamePolicy.keyFor(new URL('https://example.com/')), 'example.com#443');
  });

  it('surtAuthority: http and https share the queue', () => {
    assert.equal(surtAuthorityPolicy.keyFor(new URL('https://www.example.com/')), 'com,example,www,');
    assert.equal(surtAuthorityPolicy.keyFor(new URL('http://www.example.com/x')), 'com,example,www,');
  });

  it('elfHash: bucket of the URL or of the host', () => {
    const byUrl = elfHashPolicy(10, 'url');
    const url = new URL('http://example.com/page');
    assert.equal(byUrl.keyFor(url), String(elfHashBig('http://example.com/page') % 10));
    const byHost = elfHashPolicy(10, 'host');
    assert.equal(byHost.keyFor(url), String(elfHashBig('example.com') % 10));
    assert.equal(byHost.keyFor(new URL('http://example.com/other')), byHost.keyFor(url));
    const spread = new Set(Array.from({ length: 100 }, (_, i) => byUrl.keyFor(new URL(`http://example.com/p${i}`))));
    assert.ok(spread.size >= 8, `100 URLs of one host fell into ${spread.size} of 10 buckets`);
  });

  it('chooses by name from the table and rejects unknown names and bucket counts', () => {
    assert.equal(queueAssignmentFor({ ...base, queueAssignment: 'hostname' }), hostnamePolicy);
    assert.equal(queueAssignmentFor({ ...base, queueAssignment: 'surtAuthority' }), surtAuthorityPolicy);
    assert.equal(queueAssignmentFor({ ...base, queueAssignment: 'elfHash' }).keyFor(new URL('http://a.test/')), String(elfHashBig('http://a.test/') % 10));
    assert.throws(() => queueAssignmentFor({ ...base, queueAssignment: 'toString' as never }), { code: 'ARCHIVER_FRONTIER_UNKNOWN_POLICY' });
    assert.throws(() => elfHashPolicy(0, 'url'), { code: 'ARCHIVER_FRONTIER_BAD_OPTIONS' });
  });
});
