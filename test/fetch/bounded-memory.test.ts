/**
 * A body far larger than memory should allow streams to disk and into the
 * WARC without being held: RSS may grow by buffers, not by the body. The
 * server runs in a child process so only the crawler's memory is measured.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Fetcher } from '../../src/fetch/fetcher.js';
import { WarcWriter } from '../../src/writer/warc-writer.js';

const MiB = 2 ** 20;
let server: ChildProcess;
let port = 0;
let tmp: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-bigbody-'));
  // Serves 384 MiB of 'a' with back-pressure, on a free port it prints.
  server = spawn(process.execPath, ['-e', `
    const http = require('node:http');
    const chunk = Buffer.alloc(65536, 97);
    const srv = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let n = 0;
      const pump = () => { while (n < 6144) { n++; if (!res.write(chunk)) return res.once('drain', pump); } res.end(); };
      res.on('close', () => { n = 6144; });
      pump();
    });
    srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  port = await new Promise<number>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
});

after(async () => {
  server.kill();
  await rm(tmp, { recursive: true, force: true });
});

test('a 256 MiB body is fetched, truncated and archived with RSS growing far less than its size', async () => {
  const maxBodyBytes = 256 * MiB;
  const fetcher = new Fetcher({ userAgent: 'archiver-test (+https://example.org)', fetchTimeoutMs: 10_000, maxFetchDurationMs: 120_000, maxBodyBytes, tempDir: tmp, connectionsPerOrigin: 1 });
  const writer = new WarcWriter({ dir: tmp, prefix: 'BIG', warcVersion: '1.1', rotateBytes: 2 ** 40, software: 'test', info: { userAgent: 'x', robotsPolicy: 'obey', jobName: 'big' } });
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const ex = await fetcher.fetch(`http://127.0.0.1:${port}/`);
    assert.equal(ex.body.size, maxBodyBytes);
    assert.equal(ex.truncated, 'length');
    await writer.writeCapture({ exchange: ex, hopPath: '', via: null, outlinks: [] });
    await ex.body.dispose();
  } finally {
    clearInterval(sampler);
    await writer.close();
    await fetcher.close();
  }
  const growth = peak - rss0;
  // Measured ~55 MiB here for 64 MiB and 256 MiB bodies alike: buffers, not
  // the body. The bound is 3.5 times that, for a loaded machine's GC running
  // late, and still well below the 256 MiB a body held in memory would add.
  assert.ok(growth < 192 * MiB, `RSS grew ${(growth / MiB).toFixed(0)} MiB for a ${maxBodyBytes / MiB} MiB body`);
});
