/**
 * Transport failures must come out as FetchError with Heritrix's negative
 * status and a stable code, because the frontier decides retries from them.
 * Each case provokes the failure for real on loopback.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LookupFunction } from 'node:net';
import { Fetcher, type FetcherOptions } from '../../src/fetch/fetcher.js';
import { nameNotFound, transportCause } from '../../src/fetch/fetch-errors.js';
import { FetchError } from '../../src/core/errors.js';

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}
async function close(server: net.Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
function expectFetchError(code: string, fetchStatus: number) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof FetchError, `expected FetchError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.fetchStatus, fetchStatus);
    return true;
  };
}

describe('Fetcher transport failures', () => {
  let tempRoot: string;
  let opts: FetcherOptions;
  const sockets = new Set<net.Socket>();
  const servers: net.Server[] = [];
  async function server(onSocket: (s: net.Socket) => void): Promise<number> {
    const s = net.createServer((sock) => {
      sockets.add(sock);
      sock.on('error', () => undefined);
      onSocket(sock);
    });
    servers.push(s);
    return listen(s);
  }

  before(async () => {
    tempRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-'));
    opts = { userAgent: 'archiver-test/0.1 (+http://example.invalid/)', fetchTimeoutMs: 300, maxBodyBytes: 0, tempDir: tempRoot, connectionsPerOrigin: 1 };
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    for (const s of servers) await close(s);
    await fs.rm(tempRoot, { recursive: true, force: true });
  });

  it('headers that never come: -4 within the timeout', async () => {
    const port = await server((sock) => sock.on('data', () => undefined));
    const f = new Fetcher(opts);
    const t0 = Date.now();
    await assert.rejects(f.fetch(`http://127.0.0.1:${port}/`), expectFetchError('ARCHIVER_FETCH_TIMEOUT', -4));
    // Generous bound: the point is that it gave up at about fetchTimeoutMs, not at undici's 300 s default.
    assert.ok(Date.now() - t0 < 10_000);
    await f.close();
  });

  it('a connection that never completes (here: a lookup that never answers): -4', async () => {
    const silent = (() => undefined) as unknown as LookupFunction;
    const f = new Fetcher({ ...opts, lookup: silent });
    // undici's connect timer is unref'd; keep the loop alive as a crawl would.
    const keepAlive = setInterval(() => undefined, 100);
    try {
      await assert.rejects(f.fetch('http://stuck.test/'), expectFetchError('ARCHIVER_FETCH_TIMEOUT', -4));
    } finally {
      clearInterval(keepAlive);
      await f.close();
    }
  });

  it('connection refused: -2', async () => {
    const port = await server(() => undefined);
    await close(servers.pop()!);
    const f = new Fetcher(opts);
    await assert.rejects(f.fetch(`http://127.0.0.1:${port}/`), expectFetchError('ARCHIVER_FETCH_CONNECT', -2));
    // Issue 28: the summary names the errno in words, not only the Heritrix status.
    assert.equal(transportCause(await f.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e)), 'connection refused');
    await f.close();
  });

  /** The error of a fetch whose custom lookup fails with `code`, after checking it is a -1 DNS failure. */
  async function lookupFailure(code: string): Promise<unknown> {
    const lookup = ((_h: string, _o: unknown, cb: (err: Error) => void) => {
      cb(Object.assign(new Error(`lookup failed: ${code}`), { code }));
    }) as unknown as LookupFunction;
    const f = new Fetcher({ ...opts, lookup });
    await assert.rejects(f.fetch('http://nowhere.test/'), expectFetchError('ARCHIVER_FETCH_DNS', -1));
    const err = await f.fetch('http://nowhere.test/').catch((e: unknown) => e);
    await f.close();
    return err;
  }

  it('a custom lookup that fails: -1; ENOTFOUND is DNS saying the name does not exist', async () => {
    const err = await lookupFailure('ENOTFOUND');
    assert.equal(transportCause(err), 'no such host (DNS)');
    assert.equal(nameNotFound(err), true);
  });

  it('a lookup that fails for now (EAI_AGAIN): -1, the name not said to be missing', async () => {
    const err = await lookupFailure('EAI_AGAIN');
    assert.equal(transportCause(err), 'DNS lookup failed (temporary)');
    assert.equal(nameNotFound(err), false);
  });

  it('reset before the headers: -3', async () => {
    const port = await server((sock) => sock.once('data', () => sock.resetAndDestroy()));
    const f = new Fetcher(opts);
    await assert.rejects(f.fetch(`http://127.0.0.1:${port}/`), expectFetchError('ARCHIVER_FETCH_CONNECTION_LOST', -3));
    await f.close();
  });

  it('unparseable or non-http URLs: -7', async () => {
    const f = new Fetcher(opts);
    await assert.rejects(f.fetch('http://'), expectFetchError('ARCHIVER_FETCH_UNFETCHABLE', -7));
    await assert.rejects(f.fetch('ftp://example.invalid/file'), expectFetchError('ARCHIVER_FETCH_UNFETCHABLE', -7));
    await assert.rejects(f.fetch('not a url'), expectFetchError('ARCHIVER_FETCH_UNFETCHABLE', -7));
    await f.close();
  });

  it('after the headers, a lost connection keeps the partial body as truncated "disconnect"', async () => {
    const port = await server((sock) =>
      sock.once('data', () => {
        sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc', () => setTimeout(() => sock.resetAndDestroy(), 20));
      }),
    );
    const f = new Fetcher(opts);
    const ex = await f.fetch(`http://127.0.0.1:${port}/`);
    assert.equal(ex.status, 200);
    assert.equal(ex.truncated, 'disconnect');
    assert.deepEqual(await ex.body.head(100), Buffer.from('abc'));
    await f.close();
  });

  it('after the headers, a stalled body is kept as truncated "time"', async () => {
    const port = await server((sock) => sock.once('data', () => sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc')));
    const f = new Fetcher(opts);
    const ex = await f.fetch(`http://127.0.0.1:${port}/`);
    assert.equal(ex.truncated, 'time');
    assert.equal(ex.body.size, 3);
    await f.close();
  });

  it('a body idle for longer than a short fetchTimeoutMs is cut at it, not at undici\'s half-second clock', async () => {
    // 'abc', then 'def' 700 ms later. undici's own body timeout ticks every ~500 ms and, for
    // 150 ms, fired anywhere up to a second after the last bytes: often after 'def'.
    let later: NodeJS.Timeout | undefined;
    const port = await server((sock) =>
      sock.once('data', () => {
        sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc');
        later = setTimeout(() => sock.write('def'), 700);
      }),
    );
    const f = new Fetcher({ ...opts, fetchTimeoutMs: 150 });
    try {
      const ex = await f.fetch(`http://127.0.0.1:${port}/`);
      assert.equal(ex.truncated, 'time');
      assert.deepEqual(await ex.body.head(100), Buffer.from('abc'));
    } finally {
      clearTimeout(later);
      await f.close();
    }
  });

  it('an aborted signal stops the fetch with ARCHIVER_FETCH_ABORTED', async () => {
    const port = await server((sock) => sock.on('data', () => undefined));
    const f = new Fetcher({ ...opts, fetchTimeoutMs: 5000 });
    const ac = new AbortController();
    const pending = f.fetch(`http://127.0.0.1:${port}/`, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(pending, expectFetchError('ARCHIVER_FETCH_ABORTED', -5));
    await f.close();
  });

  it('rejects invalid options in the constructor', () => {
    assert.throws(() => new Fetcher({ ...opts, connectionsPerOrigin: 0 }), { code: 'ARCHIVER_INVALID_ARGUMENT' });
    assert.throws(() => new Fetcher({ ...opts, fetchTimeoutMs: 0 }), { code: 'ARCHIVER_INVALID_ARGUMENT' });
  });
});
