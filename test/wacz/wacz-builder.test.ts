/**
 * WaczBuilder, the package begun before its contents are known: entries in
 * the order added, files and streamed bytes alike, each hashed as it goes
 * in, datapackage.json listing them WARCs first whatever the entry order.
 * The failure case is the one the end of a crawl met first: an entry that
 * cannot be read while the page list is being streamed in behind it. The
 * ZIP writer then never reaches the stream; the producer must be told (the
 * `failed` promise) instead of waiting for 'drain' forever, and no partial
 * package may stay behind.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WaczBuilder } from '../../src/wacz/wacz-writer.js';
import { readZip } from './zip-read.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-wacz-builder-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** Write `total` bytes of `line` repeated into `out`, waiting for 'drain' racing `failed`, then end it. */
async function produce(out: NodeJS.WritableStream, failed: Promise<never>, line: Buffer, total: number): Promise<void> {
  for (let sent = 0; sent < total; sent += line.length) {
    if (!out.write(line)) await Promise.race([once(out, 'drain'), failed]);
  }
  out.end();
}

describe('WaczBuilder', () => {
  test('a file and a stream larger than its buffers: both in the package with their hashes, WARCs listed first', async () => {
    const warc = path.join(tmp, 'A.warc.gz');
    const warcBytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    await writeFile(warc, warcBytes);
    const out = path.join(tmp, 'ok', 'site.wacz');
    const pkg = await WaczBuilder.start(out, new Date('2026-01-02T03:04:05Z'));
    // The page list first, as the end of a crawl may add it, then the WARC.
    const pagesStream = pkg.addStream('pages/pages.jsonl', true);
    pkg.addFile('archive/A.warc.gz', warc, false);
    const line = Buffer.from('{"url":"http://h/","text":"some words"}\n');
    const total = 5 * 1024 * 1024;
    await produce(pagesStream, pkg.failed, line, total);
    const written = await pkg.finish({ title: 't', created: '2026-01-02T03:04:05.000Z', software: 'test' });
    assert.deepEqual(written.files.map((f) => f.path), ['archive/A.warc.gz', 'pages/pages.jsonl']);
    const entries = new Map(readZip(await readFile(out)).map((e) => [e.name, e]));
    const pages = entries.get('pages/pages.jsonl')!.data;
    assert.equal(pages.length, Math.ceil(total / line.length) * line.length);
    assert.equal(written.files[1]!.hash, sha256(pages));
    assert.equal(written.files[0]!.hash, sha256(warcBytes));
    assert.ok(entries.get('archive/A.warc.gz')!.data.equals(warcBytes));
  });

  test('a file with the sums the crawl took and a page list deflated during the crawl: copied as they are, listed with those sums', async () => {
    const warc = path.join(tmp, 'B.warc.gz');
    const warcBytes = Buffer.alloc(2 * 1024 * 1024 + 5, 9);
    await writeFile(warc, warcBytes);
    const pagesText = Buffer.from('{"format":"json-pages-1.0"}\n{"url":"http://h/","ts":"2026-01-02T03:04:05.000Z"}\n');
    const deflated = path.join(tmp, 'pages.deflate');
    // Two pieces, as a stream deflated chunk by chunk is: one flushed to a byte boundary, then the end.
    await writeFile(deflated, Buffer.concat([deflateRawSync(pagesText.subarray(0, 30), { finishFlush: constants.Z_SYNC_FLUSH }), deflateRawSync(pagesText.subarray(30))]));
    const out = path.join(tmp, 'known', 'site.wacz');
    const pkg = await WaczBuilder.start(out, new Date('2026-01-02T03:04:05Z'));
    // The listed hash is the one given, never taken again from the bytes (a made-up one shows it).
    const given = 'ab'.repeat(32);
    pkg.addFile('archive/B.warc.gz', warc, false, { size: warcBytes.length, sha256: given, crc32: crc32(warcBytes) });
    pkg.addDeflated('pages/pages.jsonl', deflated, { size: pagesText.length, sha256: sha256(pagesText).slice('sha256:'.length), crc32: crc32(pagesText) });
    const written = await pkg.finish({ title: 't', created: '2026-01-02T03:04:05.000Z', software: 'test' });
    assert.deepEqual(written.files, [
      { path: 'archive/B.warc.gz', hash: `sha256:${given}`, bytes: warcBytes.length },
      { path: 'pages/pages.jsonl', hash: sha256(pagesText), bytes: pagesText.length },
    ]);
    const entries = new Map(readZip(await readFile(out)).map((e) => [e.name, e]));
    assert.ok(entries.get('archive/B.warc.gz')!.data.equals(warcBytes));
    assert.equal(entries.get('pages/pages.jsonl')!.method, 8);
    assert.ok(entries.get('pages/pages.jsonl')!.data.equals(pagesText));
  });

  test('an entry that cannot be read ahead of a streamed one: the producer is told, finish rejects, nothing is left', async () => {
    const dir = path.join(tmp, 'bad');
    const out = path.join(dir, 'site.wacz');
    const pkg = await WaczBuilder.start(out, new Date());
    pkg.addFile('archive/gone.warc.gz', path.join(tmp, 'no-such.warc.gz'), false);
    const pagesStream = pkg.addStream('pages/pages.jsonl', true);
    // Far more than the stream buffers: without `failed` this would wait for 'drain' forever.
    await assert.rejects(produce(pagesStream, pkg.failed, Buffer.alloc(64 * 1024, 0x61), 64 * 1024 * 1024), { code: 'ARCHIVER_WACZ_WRITE', message: /no-such\.warc\.gz.*ENOENT/ });
    await assert.rejects(pkg.finish({ title: 't', created: new Date().toISOString(), software: 'test' }), { code: 'ARCHIVER_WACZ_WRITE' });
    assert.deepEqual(await readdir(dir), [], 'no package, no temporary file');
  });
});
