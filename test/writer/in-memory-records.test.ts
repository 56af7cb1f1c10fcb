/**
 * The in-memory pass over a capture's records (in-memory-records.ts) gives
 * the bytes warcio's WARCSerializer gives on the streaming path
 * (captureMembers), record for record, on generated captures of every kind
 * the crawl makes; and refuses what that path refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { bufferBody } from '../../src/core/buffer-body.js';
import { ArchiverError } from '../../src/core/errors.js';
import { sha1PayloadDigest } from '../../src/fetch/payload-digest.js';
import { captureMembers, type CaptureMembers } from '../../src/writer/capture-members.js';
import { syncGzip, WHOLE_GZIP_MAX_BYTES } from '../../src/writer/gzip-member.js';
import { IN_MEMORY_BODY_MAX_BYTES, inMemoryCaptureMembers } from '../../src/writer/in-memory-records.js';
import type { CaptureRecordInput, WarcVersion } from '../../src/writer/warc-records.js';
import { mulberry32 } from '../helpers/prng.js';

/** A generated capture: its input to both paths, and its body. */
function capture(rand: () => number, n: number): { input: CaptureRecordInput; body: Buffer; version: WarcVersion } {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const kind = pick(['html', 'gzip-html', 'image', 'empty', 'post', 'revisit'] as const);
  const text = Buffer.from(`<html><title>p${n} é ✓</title>${'<a href="x">y</a> '.repeat(Math.floor(rand() * 200))}</html>`, 'utf8');
  const body = kind === 'empty' || kind === 'revisit' ? Buffer.alloc(0) : kind === 'gzip-html' ? gzipSync(text) : kind === 'image' ? randomBytes(Math.floor(rand() * 20_000)) : text;
  const path = `/p/${n}?q=${encodeURIComponent('ü ' + n)}`;
  const post = kind === 'post' ? `a=${n}&b=${'z'.repeat(Math.floor(rand() * 50))}` : '';
  const requestHead = Buffer.from(
    `${post ? 'POST' : 'GET'} ${path} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: archiver-test\r\n${post ? `Content-Length: ${post.length}\r\n` : ''}\r\n${post}`,
    'latin1',
  );
  const responseHeaders: [string, string][] = [
    ['Server', 'nginx'],
    ['Content-Type', kind === 'image' ? 'image/png' : 'text/html; charset=utf-8'],
    ...(kind === 'gzip-html' ? ([['Content-Encoding', 'gzip']] as [string, string][]) : []),
    ['Transfer-Encoding', 'chunked'],
    ['X-Odd', `v${n} \u00e9`],
  ];
  const links = Array.from({ length: Math.floor(rand() * 30) }, (_, i) => ({ url: `http://127.0.0.1:8080/l/${n}/${i}/é`, hop: pick(['L', 'E', 'X']), context: pick(['a/@href', 'img/@src', '']) }));
  const revisit = kind === 'revisit';
  const input: CaptureRecordInput = {
    exchange: {
      url: `http://127.0.0.1:8080${path}`,
      requestHead,
      status: pick([200, 404, 301]),
      statusText: 'Whatever',
      httpVersion: '1.1',
      responseHeaders,
      body: bufferBody(body),
      truncated: pick([null, null, 'length', 'time'] as const),
      payloadDigest: revisit ? sha1PayloadDigest(Buffer.from('the original')) : sha1PayloadDigest(body),
      ip: pick(['127.0.0.1', null]),
      startedAt: new Date(1_700_000_000_000 + n * 1234),
      durationMs: rand() * 100,
    },
    hopPath: pick(['', 'L', 'LLE']),
    via: rand() < 0.2 ? null : 'http://127.0.0.1:8080/',
    outlinks: links,
    ...(revisit ? { revisitOf: { url: 'http://127.0.0.1:8080/original', date: '2026-01-02T03:04:05Z', ...(rand() < 0.5 ? { container: 'other.wacz' } : {}) } } : {}),
  };
  return { input, body, version: pick(['1.0', '1.1'] as const) };
}

/** The three records uncompressed, their record ids numbered in order of appearance (they are random). */
function records(m: CaptureMembers): string[] {
  const ids = new Map<string, string>();
  return [m.main, m.request, m.metadata].map((member) =>
    gunzipSync(member as Buffer)
      .toString('latin1')
      .replace(/<urn:uuid:[0-9a-f-]+>/g, (id) => {
        if (!ids.has(id)) ids.set(id, `<id-${ids.size}>`);
        return ids.get(id)!;
      }),
  );
}

test('the in-memory pass makes the bytes warcio\'s serializer makes, on 400 generated captures', async () => {
  const rand = mulberry32(23);
  const kinds = new Set<string>();
  for (let n = 0; n < 400; n++) {
    const { input, body, version } = capture(rand, n);
    const streamed = await captureMembers(input, version, syncGzip);
    const fast = inMemoryCaptureMembers(input, body, version, syncGzip.member!);
    assert.ok(fast, 'small enough for the in-memory pass');
    assert.deepEqual(records(fast), records(streamed), `capture ${n}`);
    assert.equal(fast.revisit, streamed.revisit);
    // Stored or deflated alike: a member's size says which.
    assert.equal((fast.main as Buffer).length > body.length, (streamed.main as Buffer).length > body.length, `capture ${n}: the same deflate level`);
    kinds.add(`${fast.revisit ? 'revisit' : 'response'} ${input.exchange.truncated ?? '-'} ${input.exchange.requestHead.subarray(0, 4).toString()}`);
  }
  assert.ok(kinds.size >= 8, `kinds of capture covered: ${[...kinds].join(', ')}`);
});

test('a body whose stored bytes are not what the fetcher digested is refused, as on the streaming path', async () => {
  const { input, body, version } = capture(mulberry32(5), 1);
  const bad: CaptureRecordInput = { ...input, revisitOf: undefined, exchange: { ...input.exchange, payloadDigest: sha1PayloadDigest(Buffer.from('not it')) } } as CaptureRecordInput;
  delete (bad as { revisitOf?: unknown }).revisitOf;
  const code = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (err) {
      return err instanceof ArchiverError ? err.code : 'other';
    }
    return undefined;
  };
  assert.equal(code(() => inMemoryCaptureMembers(bad, body, version, syncGzip.member!)), 'ARCHIVER_WARC_DIGEST_MISMATCH');
  await assert.rejects(captureMembers(bad, version, syncGzip), (err: unknown) => err instanceof ArchiverError && err.code === 'ARCHIVER_WARC_DIGEST_MISMATCH');
});

test('a body too large for memory is left to the streaming path', () => {
  const { input, version } = capture(mulberry32(9), 2);
  const big = Buffer.alloc(IN_MEMORY_BODY_MAX_BYTES + 1);
  const bigInput = { ...input, exchange: { ...input.exchange, body: bufferBody(big), payloadDigest: sha1PayloadDigest(big) } };
  assert.equal(inMemoryCaptureMembers(bigInput, big, version, syncGzip.member!), null);
  assert.ok(IN_MEMORY_BODY_MAX_BYTES < WHOLE_GZIP_MAX_BYTES);
});
