/**
 * The fetcher against real local servers: a raw `net` server where the exact
 * bytes on the wire matter (chunking, header case and order, the request
 * head), and node:http for encodings, status codes, redirects and large
 * bodies. Every body and digest is checked against what the server sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LookupFunction } from 'node:net';
import { Fetcher, type FetcherOptions } from '../../src/fetch/fetcher.js';
import type { BodyStore } from '../../src/core/exchange.js';
import { headerValue } from '../../src/core/exchange.js';

/** Independent RFC 4648 base32 (bit string, 5 at a time) to check the fetcher's digests. */
function base32Reference(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  while (bits.length % 5 !== 0) bits += '0';
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  while (out.length % 8 !== 0) out += '=';
  return out;
}
function sha1Label(bytes: Uint8Array): string {
  return `sha1:${base32Reference(createHash('sha1').update(bytes).digest())}`;
}
async function readAll(body: BodyStore): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of body.stream()) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}
async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as net.AddressInfo).port;
}
async function close(server: net.Server): Promise<void> {
  (server as http.Server).closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const UA = 'archiver-test/0.1 (+http://example.invalid/crawler)';
const CHUNKED_RESPONSE =
  'HTTP/1.1 200 OK\r\nX-Mixed-CASE: one\r\ncontent-TYPE: text/plain\r\nTransfer-Encoding: chunked\r\nx-order: two\r\nX-Order: three\r\n\r\n' +
  '5\r\nhello\r\n7;ext=1\r\n, world\r\n1\r\n!\r\n0\r\n\r\n';

describe('Fetcher', () => {
  let tempRoot: string;
  let rawServer: net.Server;
  let rawPort: number;
  let rawConnections = 0;
  const rawRequests: Buffer[] = [];
  let httpServer: http.Server;
  let httpPort: number;
  const hits = new Map<string, number>();
  const big = Buffer.alloc(5 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 13)) & 0xff;
  const gzipped = zlib.gzipSync(Buffer.from('<html>'.padEnd(5000, 'x')));
  const brotlied = zlib.brotliCompressSync(Buffer.from('body{}'.padEnd(3000, 'y')));
  let fetcher: Fetcher;
  let opts: FetcherOptions;

  before(async () => {
    tempRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
    rawServer = net.createServer((sock) => {
      rawConnections++;
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        let end: number;
        while ((end = buf.indexOf('\r\n\r\n')) >= 0) {
          rawRequests.push(buf.subarray(0, end + 4));
          buf = buf.subarray(end + 4);
          sock.write(CHUNKED_RESPONSE);
        }
      });
      sock.on('error', () => undefined);
    });
    rawPort = await listen(rawServer);
    httpServer = http.createServer((req, res) => {
      const p = req.url ?? '/';
      hits.set(p, (hits.get(p) ?? 0) + 1);
      if (p === '/gzip') {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip', 'Content-Length': gzipped.length });
        res.end(gzipped);
      } else if (p === '/br') {
        res.writeHead(200, { 'Content-Type': 'text/css', 'Content-Encoding': 'br' });
        res.end(brotlied);
      } else if (p === '/404') {
        res.writeHead(404, 'Nope', { 'Content-Type': 'text/plain' });
        res.end('not here');
      } else if (p === '/500') {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end('broken');
      } else if (p === '/moved') {
        res.writeHead(301, { Location: '/target' });
        res.end();
      } else if (p === '/big') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        // Several writes, so the body arrives in many chunks.
        for (let off = 0; off < big.length; off += 256 * 1024) res.write(big.subarray(off, off + 256 * 1024));
        res.end();
      } else {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`path ${p}`);
      }
    });
    httpPort = await listen(httpServer);
    opts = { userAgent: UA, from: 'crawler@example.invalid', fetchTimeoutMs: 2000, maxBodyBytes: 0, tempDir: path.join(tempRoot, 'spill'), connectionsPerOrigin: 2 };
    fetcher = new Fetcher(opts);
  });

  after(async () => {
    await fetcher.close();
    await close(rawServer);
    await close(httpServer);
    await fs.rm(tempRoot, { recursive: true, force: true });
  });

  it('stores a chunked body de-chunked, digests those bytes, keeps raw headers as received', async () => {
    const ex = await fetcher.fetch(`http://127.0.0.1:${rawPort}/chunked?q=1`);
    const body = await readAll(ex.body);
    assert.equal(body.toString('latin1'), 'hello, world!');
    assert.equal(ex.body.size, 13);
    assert.equal(ex.payloadDigest, sha1Label(body));
    assert.equal(ex.status, 200);
    assert.equal(ex.statusText, 'OK');
    assert.deepEqual(ex.responseHeaders, [
      ['X-Mixed-CASE', 'one'],
      ['content-TYPE', 'text/plain'],
      ['Transfer-Encoding', 'chunked'],
      ['x-order', 'two'],
      ['X-Order', 'three'],
    ]);
    assert.equal(ex.truncated, null);
    assert.equal(ex.ip, '127.0.0.1');
    await ex.body.dispose();
  });

  it('records the exact request head the server received, and reuses the connection', async () => {
    const before = rawRequests.length;
    const connectionsBefore = rawConnections;
    const first = await fetcher.fetch(`http://127.0.0.1:${rawPort}/a/b?c=d`);
    const second = await fetcher.fetch(`http://127.0.0.1:${rawPort}/e`, { userAgent: 'OtherBot/1.0' });
    assert.deepEqual(first.requestHead, rawRequests[before]);
    assert.deepEqual(second.requestHead, rawRequests[before + 1]);
    const head = first.requestHead.toString('latin1');
    assert.match(head, /^GET \/a\/b\?c=d HTTP\/1\.1\r\n/);
    assert.match(head, new RegExp(`\r\nhost: 127\\.0\\.0\\.1:${rawPort}\r\n`, 'i'));
    assert.match(head, /\r\nUser-Agent: archiver-test\/0\.1 \(\+http:\/\/example\.invalid\/crawler\)\r\n/);
    assert.match(head, /\r\nFrom: crawler@example\.invalid\r\n/);
    assert.match(head, /\r\nAccept-Encoding: gzip, deflate, br\r\n/);
    assert.doesNotMatch(head, /zstd/);
    assert.ok(head.endsWith('\r\n\r\n'));
    assert.match(second.requestHead.toString('latin1'), /\r\nUser-Agent: OtherBot\/1\.0\r\n/);
    // Keep-alive: the second request went over the first one's socket.
    assert.ok(rawConnections - connectionsBefore <= 1, `opened ${rawConnections - connectionsBefore} connections`);
  });

  it('pairs each request head with its own fetch when many run at once', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => `http://127.0.0.1:${rawPort}/concurrent/${i}`);
    const exchanges = await Promise.all(urls.map((u) => fetcher.fetch(u)));
    exchanges.forEach((ex, i) => {
      assert.ok(ex.requestHead.toString('latin1').startsWith(`GET /concurrent/${i} HTTP/1.1\r\n`));
      assert.ok(rawRequests.some((r) => r.equals(ex.requestHead)), 'the server received exactly these bytes');
    });
  });

  it('stores gzip and br bodies still compressed, Content-Encoding kept', async () => {
    const gz = await fetcher.fetch(`http://127.0.0.1:${httpPort}/gzip`);
    assert.deepEqual(await readAll(gz.body), gzipped);
    assert.equal(gz.payloadDigest, sha1Label(gzipped));
    assert.equal(headerValue(gz.responseHeaders, 'content-encoding'), 'gzip');
    const br = await fetcher.fetch(`http://127.0.0.1:${httpPort}/br`);
    assert.deepEqual(await readAll(br.body), brotlied);
    assert.equal(headerValue(br.responseHeaders, 'content-encoding'), 'br');
    // node:http chunks a body without Content-Length; the header stays visible for the writer to rename.
    assert.equal(headerValue(br.responseHeaders, 'transfer-encoding'), 'chunked');
  });

  it('returns 404 and 500 as results, not errors', async () => {
    const nf = await fetcher.fetch(`http://127.0.0.1:${httpPort}/404`);
    assert.equal(nf.status, 404);
    assert.equal(nf.statusText, 'Nope');
    assert.equal((await readAll(nf.body)).toString(), 'not here');
    const err = await fetcher.fetch(`http://127.0.0.1:${httpPort}/500`);
    assert.equal(err.status, 500);
  });

  it('does not follow a 301', async () => {
    const ex = await fetcher.fetch(`http://127.0.0.1:${httpPort}/moved`);
    assert.equal(ex.status, 301);
    assert.equal(headerValue(ex.responseHeaders, 'location'), '/target');
    assert.equal(hits.get('/target'), undefined);
  });

  it('spills a 5 MB body to a temp file and deletes it on dispose', async () => {
    const ex = await fetcher.fetch(`http://127.0.0.1:${httpPort}/big`);
    assert.equal(ex.body.size, big.length);
    const spilled = await fs.readdir(opts.tempDir);
    assert.equal(spilled.length, 1, 'one temp file holds the body');
    const onDisk = await fs.stat(path.join(opts.tempDir, spilled[0]!));
    assert.equal(onDisk.size, big.length);
    assert.ok((await readAll(ex.body)).equals(big));
    assert.deepEqual(await ex.body.head(10), big.subarray(0, 10));
    assert.equal(ex.payloadDigest, sha1Label(big));
    await ex.body.dispose();
    await ex.body.dispose();
    assert.deepEqual(await fs.readdir(opts.tempDir), []);
  });

  it('cuts a body at maxBodyBytes and marks it truncated "length"', async () => {
    const small = new Fetcher({ ...opts, maxBodyBytes: 100_000 });
    try {
      const ex = await small.fetch(`http://127.0.0.1:${httpPort}/big`);
      assert.equal(ex.truncated, 'length');
      assert.equal(ex.body.size, 100_000);
      const body = await readAll(ex.body);
      assert.ok(body.equals(big.subarray(0, 100_000)));
      assert.equal(ex.payloadDigest, sha1Label(body));
      // The connection was dropped, but the fetcher still works for the next request.
      const next = await small.fetch(`http://127.0.0.1:${httpPort}/after-cut`);
      assert.equal((await readAll(next.body)).toString(), 'path /after-cut');
    } finally {
      await small.close();
    }
  });

  it('resolves names with the custom lookup and records the remote IP', async () => {
    const other = http.createServer((req, res) => res.end(`host=${req.headers.host}`));
    const port = await listen(other, '127.0.0.2');
    const lookup = ((host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      assert.equal(host, 'site-a.test');
      if (o.all) cb(null, [{ address: '127.0.0.2', family: 4 }]);
      else cb(null, '127.0.0.2', 4);
    }) as unknown as LookupFunction;
    const f = new Fetcher({ ...opts, lookup });
    try {
      const ex = await f.fetch(`http://site-a.test:${port}/`);
      assert.equal(ex.ip, '127.0.0.2');
      assert.equal((await readAll(ex.body)).toString(), `host=site-a.test:${port}`);
    } finally {
      await f.close();
      await close(other);
    }
  });
});
