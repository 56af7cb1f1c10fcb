/**
 * Regression (issue 18): servers that close the connection right after a
 * response — `python3 -m http.server` answers HTTP/1.0 and does — killed the
 * crawl. When a body was under back-pressure, undici 7's HTTP/1 parser was
 * paused; the socket's `end` then ran `Parser.finish()`, whose
 * `assert(!this.paused)` threw from an event handler where nothing catches
 * it (undici #5360, fixed only in undici 8, which needs Node 22). The fetcher
 * now never pauses the parser: a body sink takes every chunk at once (memory
 * up to its limit, then synchronous writes to a temp file).
 *
 * These tests talk to a raw `net` server that writes a whole response and
 * ends (or resets) the socket at once, a few hundred times, with bodies that
 * spill to disk and an event loop kept busy so that data, end and close
 * arrive together. A crash of the process fails the run; every body is
 * compared with what the server sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Fetcher } from '../../src/fetch/fetcher.js';
import type { BodyStore } from '../../src/core/exchange.js';
import { FetchError } from '../../src/core/errors.js';

const UA = 'archiver-test/0.1 (+http://example.invalid/crawler)';

/** How the raw server ends each response. */
type Ending = 'length-then-end' | 'close-delimited' | 'length-then-reset' | 'stall';

function bodyFor(n: number, size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + n * 13 + (i >> 11)) & 0xff;
  return b;
}

function sha1(bytes: Buffer): string {
  return createHash('sha1').update(bytes).digest('hex');
}

async function readAll(body: BodyStore): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of body.stream()) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/** Busy the event loop for `ms` every few ms, as a crawl writing WARCs does: socket events then pile up. */
function busyLoop(ms: number): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      /* spin */
    }
  }, 2);
  return () => clearInterval(timer);
}

describe('Fetcher against servers that close the connection after a response', () => {
  let tempRoot: string;
  let server: net.Server;
  let port: number;

  before(async () => {
    tempRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-closing-'));
    server = net.createServer((sock) => {
      let head = '';
      sock.on('error', () => undefined);
      sock.on('data', (d) => {
        head += d.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        const target = head.split(' ')[1] ?? '/';
        const [, ending, nText, sizeText] = target.split('/') as [string, Ending, string, string];
        const body = bodyFor(Number(nText), Number(sizeText));
        if (ending === 'stall') {
          // Headers and part of the body, then nothing: the caller aborts.
          sock.write(`HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`);
          sock.write(body.subarray(0, body.length >> 1));
          return;
        }
        const length = ending === 'close-delimited' ? '' : `Content-Length: ${body.length}\r\n`;
        sock.write(`HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11\r\nContent-Type: application/octet-stream\r\n${length}\r\n`);
        sock.write(body);
        if (ending === 'length-then-reset') sock.resetAndDestroy();
        else sock.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(tempRoot, { recursive: true, force: true });
  });

  function fetcher(extra: { maxBodyBytes?: number } = {}): Fetcher {
    return new Fetcher({
      userAgent: UA,
      fetchTimeoutMs: 10_000,
      maxBodyBytes: extra.maxBodyBytes ?? 0,
      tempDir: path.join(tempRoot, 'tmp'),
      connectionsPerOrigin: 4,
      // Every body past 16 KiB goes to a temp file: where the back-pressure used to come from.
      memoryBodyLimitBytes: 16 * 1024,
    });
  }

  /** `count` fetches, `parallel` at a time, each checked against the server's body. */
  async function fetchMany(f: Fetcher, ending: Ending, count: number, parallel: number): Promise<number> {
    let next = 0;
    let whole = 0;
    const one = async (): Promise<void> => {
      while (next < count) {
        const n = next++;
        const size = 200_000 + ((n * 7919) % 600_000);
        const ex = await f.fetch(`http://127.0.0.1:${port}/${ending}/${n}/${size}`);
        try {
          assert.equal(ex.status, 200);
          assert.equal(ex.truncated, null, `response ${n} (${ending}) marked truncated`);
          const got = await readAll(ex.body);
          assert.equal(got.length, size, `response ${n} (${ending}): ${got.length} of ${size} bytes`);
          assert.equal(sha1(got), sha1(bodyFor(n, size)));
          whole++;
        } finally {
          await ex.body.dispose();
        }
      }
    };
    await Promise.all(Array.from({ length: parallel }, one));
    return whole;
  }

  for (const ending of ['length-then-end', 'close-delimited'] as const) {
    it(`archives every body whole when the server ends the socket after it (${ending}), 300 times, with a slow consumer`, async () => {
      const f = fetcher();
      const stopBusy = busyLoop(3);
      try {
        assert.equal(await fetchMany(f, ending, 300, 4), 300);
      } finally {
        stopBusy();
        await f.close();
      }
    });
  }

  // undici's socket 'error' handler calls Parser.finish() for ECONNRESET after a
  // connection-close response: the second path to the same assertion.
  it('keeps a whole Content-Length body when the server resets the connection right after it', async (t) => {
    const f = fetcher();
    const stopBusy = busyLoop(3);
    try {
      let whole = 0;
      let cut = 0;
      let lost = 0;
      for (let n = 0; n < 60; n++) {
        const size = 300_000 + n * 1000;
        try {
          const ex = await f.fetch(`http://127.0.0.1:${port}/length-then-reset/${n}/${size}`);
          try {
            const got = await readAll(ex.body);
            // A reset may destroy bytes the kernel had not yet handed over: then the
            // capture is cut and says so; otherwise it is whole.
            if (ex.truncated === null) {
              assert.equal(sha1(got), sha1(bodyFor(n, size)));
              whole++;
            } else {
              assert.equal(ex.truncated, 'disconnect');
              assert.ok(got.length < size);
              cut++;
            }
          } finally {
            await ex.body.dispose();
          }
        } catch (err) {
          // Reset before the headers were read: a lost connection, never anything else.
          assert.ok(err instanceof FetchError, String(err));
          assert.equal(err.fetchStatus, -3);
          lost++;
        }
      }
      // The path under test is a reset after the status line was parsed.
      assert.ok(whole + cut > 0, `every reset came before the headers (${lost} lost)`);
      t.diagnostic(`reset after the body: ${whole} whole, ${cut} cut, ${lost} lost before the headers`);
    } finally {
      stopBusy();
      await f.close();
    }
  });

  it('settles a fetch aborted in mid-body while the server still holds the socket, and the next fetch works', async () => {
    const f = fetcher();
    try {
      for (let n = 0; n < 20; n++) {
        const controller = new AbortController();
        const pending = f.fetch(`http://127.0.0.1:${port}/stall/${n}/400000`, { signal: controller.signal });
        setTimeout(() => controller.abort(), 30);
        await assert.rejects(pending, (err: unknown) => err instanceof FetchError && err.code === 'ARCHIVER_FETCH_ABORTED');
      }
      assert.equal(await fetchMany(f, 'length-then-end', 10, 2), 10);
    } finally {
      await f.close();
    }
  });

  it('cuts a body at maxBodyBytes while the server closes behind it, 100 times', async () => {
    const f = fetcher({ maxBodyBytes: 100_000 });
    const stopBusy = busyLoop(3);
    try {
      for (let n = 0; n < 100; n++) {
        const ex = await f.fetch(`http://127.0.0.1:${port}/length-then-end/${n}/500000`);
        try {
          assert.equal(ex.truncated, 'length');
          const got = await readAll(ex.body);
          assert.equal(got.length, 100_000);
          assert.equal(sha1(got), sha1(bodyFor(n, 500_000).subarray(0, 100_000)));
        } finally {
          await ex.body.dispose();
        }
      }
    } finally {
      stopBusy();
      await f.close();
    }
  });
});
