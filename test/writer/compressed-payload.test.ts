/**
 * A response whose payload is already compressed (content-encoded, or a
 * compressed media type) is stored in its gzip member at deflate level 0:
 * the member is still valid gzip that inflates to the exact record, and
 * deflate is not spent on bytes it cannot shrink. Everything else keeps
 * zlib's default level.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { payloadIsCompressed } from '../../src/writer/compressed-payload.js';
import { captureMembers } from '../../src/writer/capture-members.js';
import { inProcessGzip, syncGzip } from '../../src/writer/gzip-member.js';
import { bufferBody } from '../../src/core/buffer-body.js';
import { sha1PayloadDigest } from '../../src/fetch/payload-digest.js';

test('which payloads count as already compressed', () => {
  assert.equal(payloadIsCompressed([['Content-Encoding', 'gzip'], ['Content-Type', 'text/html']]), true);
  assert.equal(payloadIsCompressed([['content-encoding', 'br']]), true);
  assert.equal(payloadIsCompressed([['Content-Encoding', 'identity'], ['Content-Type', 'text/html']]), false);
  assert.equal(payloadIsCompressed([['Content-Encoding', 'gzip, rot13']]), false);
  assert.equal(payloadIsCompressed([['Content-Type', 'image/png']]), true);
  assert.equal(payloadIsCompressed([['Content-Type', 'video/mp4; codecs=x']]), true);
  assert.equal(payloadIsCompressed([['Content-Type', 'image/svg+xml']]), false);
  assert.equal(payloadIsCompressed([['Content-Type', 'text/html; charset=utf-8']]), false);
  assert.equal(payloadIsCompressed([]), false);
});

function exchange(body: Uint8Array, headers: [string, string][]) {
  return {
    exchange: {
      url: 'http://site.test/a',
      requestHead: Buffer.from('GET /a HTTP/1.1\r\nHost: site.test\r\n\r\n'),
      status: 200,
      statusText: 'OK',
      httpVersion: '1.1',
      responseHeaders: [...headers, ['Content-Length', String(body.length)]] as [string, string][],
      body: bufferBody(body),
      truncated: null,
      payloadDigest: sha1PayloadDigest(body),
      ip: null,
      startedAt: new Date(Date.UTC(2026, 0, 1)),
      durationMs: 1,
    },
    hopPath: '',
    via: null,
    outlinks: [],
  };
}

for (const [name, compressor] of [['in process', inProcessGzip], ['on a thread', syncGzip]] as const) {
  test(`a gzip-encoded body is stored, a plain one deflated (${name})`, async () => {
    const html = Buffer.from('<p>' + 'words words words '.repeat(2000) + '</p>');
    const encoded = gzipSync(html);
    const stored = await captureMembers(exchange(encoded, [['Content-Type', 'text/html'], ['Content-Encoding', 'gzip']]), '1.1', compressor);
    const main = stored.main as Buffer;
    const record = gunzipSync(main);
    assert.ok(record.includes(encoded), 'the record holds the body exactly as served');
    // Level 0 writes stored blocks: the member is the record plus a few bytes of framing.
    assert.ok(main.length >= record.length && main.length < record.length + 64, `${main.length} bytes for a ${record.length}-byte record`);
    const plain = await captureMembers(exchange(html, [['Content-Type', 'text/html']]), '1.1', compressor);
    assert.ok((plain.main as Buffer).length < html.length / 10, 'a compressible record is deflated');
    // The request and metadata records of a stored capture are still deflated.
    const random = randomBytes(4000);
    const png = await captureMembers(exchange(random, [['Content-Type', 'image/png']]), '1.1', compressor);
    assert.ok((png.main as Buffer).length > random.length);
    assert.ok((png.request as Buffer).length < gunzipSync(png.request as Buffer).length);
  });
}
