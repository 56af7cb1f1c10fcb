/**
 * Captures built on the capture thread: the members inflate to the records
 * the in-process path makes (same heads and blocks, ids and dates aside),
 * digests right, a digest mismatch still refused with its code. Under
 * `npm test` (compiled JavaScript) the thread really runs; from sources it
 * falls back by design, and the test checks which.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CaptureThread } from '../../src/writer/capture-thread.js';
import { captureMembers } from '../../src/writer/capture-members.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import { makeExchange, parseMember, sha1b32 } from './helpers.js';

const VARYING = new Set(['warc-record-id', 'warc-concurrent-to', 'warc-date']);
const stable = (headers: Array<[string, string]>): Array<[string, string]> => headers.filter(([k]) => !VARYING.has(k.toLowerCase()));

test('members from the thread match the in-process records, digests included', async () => {
  const thread = new CaptureThread();
  const body = Buffer.from('<html><a href="/x">x</a>' + 'é'.repeat(5000) + '</html>');
  const capture = {
    exchange: makeExchange({ url: 'http://t.test/page?q=1', body }),
    hopPath: 'LL',
    via: 'http://t.test/',
    outlinks: [{ url: 'http://t.test/x', hop: 'L', context: 'a/@href' }],
  };
  const [fromThread, here] = await Promise.all([thread.members(capture, '1.1'), captureMembers(capture, '1.1', inProcessGzip)]);
  for (const key of ['main', 'request', 'metadata'] as const) {
    const a = parseMember(fromThread[key] as Buffer, 0);
    const b = parseMember(here[key] as Buffer, 0);
    assert.deepEqual(stable(a.warcHeaders), stable(b.warcHeaders), key);
    assert.ok(a.block.equals(b.block), `${key} block`);
  }
  const response = parseMember(fromThread.main as Buffer, 0);
  assert.ok(response.payload.equals(body));
  assert.equal(response.header('WARC-Payload-Digest'), sha1b32(body));
  assert.equal(response.header('WARC-Block-Digest'), sha1b32(response.block));
  assert.equal(fromThread.revisit, false);
  const compiled = import.meta.url.endsWith('.js');
  assert.equal(thread.fellBack, !compiled, compiled ? 'the thread should have run' : 'from sources it stays here');
  await thread.close();
});

test('a body that does not match the fetcher digest is refused with its code, and the thread goes on', async () => {
  const thread = new CaptureThread();
  const bad = { exchange: makeExchange({ url: 'http://t.test/bad', payloadDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), hopPath: '', via: null, outlinks: [] };
  await assert.rejects(thread.members(bad, '1.1'), { code: 'ARCHIVER_WARC_DIGEST_MISMATCH' });
  const good = { exchange: makeExchange({ url: 'http://t.test/good' }), hopPath: '', via: null, outlinks: [] };
  const m = await thread.members(good, '1.1');
  assert.equal(parseMember(m.main as Buffer, 0).header('WARC-Target-URI'), 'http://t.test/good');
  await thread.close();
});
