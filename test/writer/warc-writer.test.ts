/**
 * The WARC writer, read back byte for byte: record order and adjacency,
 * Concurrent-To ids, digests recomputed independently, HTTP header fix-ups,
 * one gzip member per record at the offsets returned, revisits, rotation,
 * the `.open` rename, file names, WARC/1.0, and failures that leave the file
 * valid up to the last complete capture.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, gunzipSync } from 'node:zlib';
import type { Clock } from '../../src/core/clock.js';
import type { BodyStore } from '../../src/core/exchange.js';
import { WARC_FILE_NAME_PATTERN } from '../../src/writer/warc-naming.js';
import { WarcWriter, type WarcWriterOptions } from '../../src/writer/warc-writer.js';
import { warcInfoMember } from '../../src/writer/capture-members.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import type { WarcInfoInput } from '../../src/writer/warc-records.js';
import { fileBody, httpHeaderPairs, makeExchange, readWarc, sha1b32, sha1b32OfFile, type ReadRecord } from './helpers.js';

let root: string;
before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'archiver-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

let dirs = 0;
async function newDir(): Promise<string> {
  const dir = path.join(root, `w${dirs++}`);
  return dir;
}

/** A clock that advances one second per call, so every file name is distinct and known. */
function steppingClock(startIso: string): Clock {
  let t = Date.parse(startIso);
  return {
    now: () => {
      const at = t;
      t += 1000;
      return at;
    },
  };
}

function options(dir: string, extra: Partial<WarcWriterOptions> = {}): WarcWriterOptions {
  return {
    dir,
    prefix: 'WEB',
    warcVersion: '1.1',
    rotateBytes: 1_000_000_000,
    software: 'archiver/0.1.0',
    hostname: 'crawlhost',
    info: { userAgent: 'archiver/0.1 (+http://t.example/)', from: 'ops@t.example', robotsPolicy: 'obey', operator: 'Ops', description: 'test crawl', jobName: 'job1' },
    clock: steppingClock('2026-11-29T12:00:00.000Z'),
    ...extra,
  };
}

function types(records: ReadRecord[]): string[] {
  return records.map((r) => r.type);
}

/** Block digests recomputed over the stored block, for every record but warcinfo. */
function assertBlockDigests(records: ReadRecord[]): void {
  for (const r of records) {
    if (r.type === 'warcinfo') continue;
    assert.equal(r.header('WARC-Block-Digest'), sha1b32(r.block), `block digest of ${r.type} ${r.header('WARC-Target-URI')}`);
  }
}

describe('WarcWriter', () => {
  it('writes warcinfo, then response, adjacent request and metadata per capture, with correct ids and digests', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const a = makeExchange({ url: 'http://a.test/page?x=1' });
    const bBody = Buffer.from('body of b, sent chunked and gzip-encoded (bytes kept as received)');
    const b = makeExchange({
      url: 'http://a.test/b',
      body: bBody,
      headers: [
        ['Date', 'Sun, 29 Nov 2026 12:00:00 GMT'],
        ['Set-Cookie', 'a=1'],
        ['content-type', 'text/plain'],
        ['Transfer-Encoding', 'chunked'],
        ['Set-Cookie', 'b=2'],
        ['Content-Encoding', 'gzip'],
      ],
    });
    const wa = await w.writeCapture({ exchange: a, hopPath: '', via: null, outlinks: [{ url: 'http://a.test/b', hop: 'L', context: 'a/@href' }] });
    const wb = await w.writeCapture({ exchange: b, hopPath: 'L', via: 'http://a.test/page?x=1', outlinks: [] });
    const files = await w.close();
    assert.equal(files.length, 1);
    const file = files[0]!;
    assert.equal(path.basename(file), wa.filename);
    assert.equal(wa.revisit, false);

    const records = await readWarc(file);
    assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata', 'response', 'request', 'metadata']);
    for (const r of records) assert.equal(r.versionLine, 'WARC/1.1');

    const [info, respA, reqA, metaA, respB, reqB, metaB] = records as [ReadRecord, ReadRecord, ReadRecord, ReadRecord, ReadRecord, ReadRecord, ReadRecord];
    // warcinfo fields
    const infoText = info.block.toString('utf8');
    for (const line of [
      'software: archiver/0.1.0',
      'hostname: crawlhost',
      'format: WARC File Format 1.1',
      'operator: Ops',
      'http-header-user-agent: archiver/0.1 (+http://t.example/)',
      'http-header-from: ops@t.example',
      'robots: obey',
      'description: test crawl',
      'isPartOf: job1',
    ]) {
      assert.ok(infoText.includes(`${line}\r\n`), `warcinfo has "${line}"`);
    }
    assert.match(infoText, /conformsTo: https:\/\/iipc\.github\.io\/warc-specifications\/.*1\.1/);
    assert.equal(info.header('WARC-Filename'), wa.filename);

    // pairs: same target URI, Concurrent-To the response id
    for (const [resp, req, meta, written, ex] of [
      [respA, reqA, metaA, wa, a],
      [respB, reqB, metaB, wb, b],
    ] as const) {
      assert.equal(resp.header('WARC-Record-ID'), written.recordId);
      assert.equal(resp.header('WARC-Target-URI'), ex.url);
      assert.equal(req.header('WARC-Target-URI'), ex.url);
      assert.equal(meta.header('WARC-Target-URI'), ex.url);
      assert.equal(req.header('WARC-Concurrent-To'), written.recordId);
      assert.equal(meta.header('WARC-Concurrent-To'), written.recordId);
      assert.equal(resp.header('WARC-Date'), '2026-11-29T12:00:00.123Z');
      assert.equal(resp.header('WARC-IP-Address'), '127.0.0.1');
      assert.equal(resp.header('Content-Type'), 'application/http; msgtype=response');
      assert.equal(req.header('Content-Type'), 'application/http; msgtype=request');
      assert.equal(meta.header('Content-Type'), 'application/warc-fields');
      assert.equal(resp.header('WARC-Truncated'), undefined);
      // payload digest: independent sha1 of the body, equal to the fetcher's
      const body = Buffer.from(await ex.body.head(1 << 20));
      assert.deepEqual(resp.payload, body);
      assert.equal(resp.header('WARC-Payload-Digest'), sha1b32(body));
      assert.equal(resp.header('WARC-Payload-Digest'), ex.payloadDigest);
      // request block is the request head exactly as sent
      assert.deepEqual(req.block, ex.requestHead);
      // the returned offset/length address the response record alone: one gzip member
      const raw = await readFile(file);
      const member = gunzipSync(raw.subarray(written.offset, written.offset + written.length));
      assert.ok(member.subarray(0, 8).equals(Buffer.from('WARC/1.1')));
      assert.ok(member.includes(Buffer.from('WARC-Type: response\r\n')));
      assert.ok(!member.includes(Buffer.from('WARC-Type: request')));
      assert.equal(written.offset, resp.offset);
      assert.equal(written.length, resp.length);
    }
    assertBlockDigests(records);

    // metadata fields
    assert.equal(metaA.block.toString('utf8'), 'seed: true\r\nfetchTimeMs: 23\r\noutlink: http://a.test/b L a/@href\r\n');
    assert.equal(metaB.block.toString('utf8'), 'via: http://a.test/page?x=1\r\nhopsFromSeed: L\r\nfetchTimeMs: 23\r\n');

    // header fix-ups on B: order and case kept, Transfer-Encoding renamed, Content-Length = stored length appended
    assert.equal(respB.httpHead!.split('\r\n')[0], 'HTTP/1.1 200 OK');
    assert.deepEqual(httpHeaderPairs(respB.httpHead!), [
      ['Date', 'Sun, 29 Nov 2026 12:00:00 GMT'],
      ['Set-Cookie', 'a=1'],
      ['content-type', 'text/plain'],
      ['X-Archive-Orig-Transfer-Encoding', 'chunked'],
      ['Set-Cookie', 'b=2'],
      ['Content-Encoding', 'gzip'],
      ['Content-Length', String(bBody.length)],
    ]);
  });

  it('makes Content-Length the stored length, keeps a differing original, marks truncation', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const body = Buffer.from('only the first bytes');
    const ex = makeExchange({
      url: 'http://a.test/big',
      body,
      truncated: 'length',
      status: 200,
      statusText: '',
      headers: [
        [':status', '200'],
        ['Content-Length', '999999'],
        ['Content-Type', 'application/octet-stream'],
      ],
    });
    await w.writeCapture({ exchange: ex, hopPath: 'LE', via: 'http://a.test/', outlinks: [] });
    const [file] = await w.close();
    const records = await readWarc(file!);
    const resp = records[1]!;
    assert.equal(resp.header('WARC-Truncated'), 'length');
    // HTTP/2 (no reason phrase, pseudo-headers) is written as HTTP/1.1 with a standard reason
    assert.equal(resp.httpHead!.split('\r\n')[0], 'HTTP/1.1 200 OK');
    assert.deepEqual(httpHeaderPairs(resp.httpHead!), [
      ['X-Archive-Orig-Content-Length', '999999'],
      ['Content-Length', String(body.length)],
      ['Content-Type', 'application/octet-stream'],
    ]);
    assert.deepEqual(resp.payload, body);
  });

  it('streams a 5 MB file-backed body and digests exactly its bytes', async () => {
    const dir = await newDir();
    const bodyFile = path.join(root, 'big.bin');
    const size = 5 * 1024 * 1024;
    await writeFile(bodyFile, randomBytes(size));
    const store = fileBody(bodyFile, size);
    const digest = await sha1b32OfFile(bodyFile);
    const w = new WarcWriter(options(dir));
    const ex = makeExchange({
      url: 'http://a.test/big.bin',
      bodyStore: store,
      payloadDigest: digest,
      headers: [['Content-Type', 'application/octet-stream'], ['Content-Length', String(size)]],
    });
    const written = await w.writeCapture({ exchange: ex, hopPath: 'L', via: 'http://a.test/', outlinks: [] });
    const [file] = await w.close();
    // One pass to digest, one to write: the body is re-read from the store, not buffered.
    assert.equal(store.streams, 2);
    const records = await readWarc(file!);
    const resp = records[1]!;
    assert.equal(resp.payload.length, size);
    assert.equal(sha1b32(resp.payload), digest);
    assert.equal(resp.header('WARC-Payload-Digest'), digest);
    assert.equal(httpHeaderPairs(resp.httpHead!).find(([k]) => k === 'Content-Length')?.[1], String(size));
    assertBlockDigests(records);
    assert.equal(written.offset, resp.offset);
  });

  it('writes an identical-payload-digest revisit: headers only, refers-to fields, original digest', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const body = Buffer.from('same payload everywhere');
    const first = makeExchange({ url: 'http://a.test/one', body });
    const second = makeExchange({ url: 'http://b.test/two', body, startedAt: new Date('2026-11-29T12:05:00.456Z') });
    const w1 = await w.writeCapture({ exchange: first, hopPath: '', via: null, outlinks: [] });
    const w2 = await w.writeCapture({
      exchange: second,
      hopPath: 'L',
      via: 'http://a.test/one',
      outlinks: [],
      revisitOf: { url: first.url, date: '2026-11-29T12:00:00.123Z' },
    });
    assert.equal(w1.revisit, false);
    assert.equal(w2.revisit, true);
    const [file] = await w.close();
    const records = await readWarc(file!);
    assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata', 'revisit', 'request', 'metadata']);
    const revisit = records[4]!;
    assert.equal(revisit.header('WARC-Record-ID'), w2.recordId);
    assert.equal(revisit.header('WARC-Profile'), 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    assert.equal(revisit.header('WARC-Refers-To-Target-URI'), 'http://a.test/one');
    assert.equal(revisit.header('WARC-Refers-To-Date'), '2026-11-29T12:00:00.123Z');
    assert.equal(revisit.header('WARC-Payload-Digest'), sha1b32(body));
    assert.equal(revisit.header('WARC-Date'), '2026-11-29T12:05:00.456Z');
    assert.equal(revisit.payload.length, 0, 'no body in a revisit');
    assert.equal(revisit.block.toString('utf8'), revisit.httpHead);
    assert.equal(revisit.header('WARC-Block-Digest'), sha1b32(Buffer.from(revisit.httpHead!, 'utf8')));
    // the request stays adjacent to the revisit
    assert.equal(records[5]!.header('WARC-Target-URI'), 'http://b.test/two');
    assert.equal(records[5]!.header('WARC-Concurrent-To'), w2.recordId);
    assertBlockDigests(records);
  });

  it('rotates between captures at rotateBytes, each file opening with its own warcinfo', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir, { rotateBytes: 1, firstSerial: 7 }));
    assert.equal(w.serial, 7);
    const written = [];
    for (let i = 0; i < 3; i++) {
      written.push(await w.writeCapture({ exchange: makeExchange({ url: `http://a.test/${i}` }), hopPath: 'L', via: 'http://a.test/', outlinks: [] }));
    }
    const files = await w.close();
    assert.equal(files.length, 3);
    assert.equal(w.serial, 10);
    const names = files.map((f) => path.basename(f));
    assert.deepEqual(names, written.map((x) => x.filename));
    // Heritrix's PREFIX-<yyyyMMddHHmmssSSS>-<serial, 5 digits>-<pid>~<host>.warc.gz, written out.
    assert.deepEqual(names, [
      `WEB-20261129120000000-00007-${process.pid}~crawlhost.warc.gz`,
      `WEB-20261129120001000-00008-${process.pid}~crawlhost.warc.gz`,
      `WEB-20261129120002000-00009-${process.pid}~crawlhost.warc.gz`,
    ]);
    for (const n of names) assert.match(n, WARC_FILE_NAME_PATTERN);
    let total = 0;
    for (const [i, f] of files.entries()) {
      const records = await readWarc(f);
      assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata']);
      assert.equal(records[0]!.header('WARC-Filename'), names[i]);
      assert.equal(records[1]!.header('WARC-Target-URI'), `http://a.test/${i}`);
      total += (await readFile(f)).length;
    }
    assert.equal(w.bytesWritten, total);
    assert.deepEqual((await readdir(dir)).sort(), [...names].sort());
  });

  it('opens each file with the warcinfo its maker gives (warcInfo), asked once per file with that file\'s name and the crawl\'s fields', async () => {
    const dir = await newDir();
    const asked: WarcInfoInput[] = [];
    const w = new WarcWriter(
      options(dir, {
        rotateBytes: 1,
        warcInfo: async (info) => {
          asked.push(info);
          // Made as a crawl's page thread makes it, with one field of its own to tell it apart.
          return warcInfoMember({ ...info, info: { ...info.info, description: `made elsewhere for ${info.filename}` } }, inProcessGzip);
        },
      }),
    );
    for (let i = 0; i < 2; i++) await w.writeCapture({ exchange: makeExchange({ url: `http://a.test/${i}` }), hopPath: 'L', via: 'http://a.test/', outlinks: [] });
    const files = await w.close();
    assert.deepEqual(
      asked.map((a) => a.filename),
      files.map((f) => path.basename(f)),
    );
    assert.equal(asked[0]!.info.jobName, 'job1');
    assert.equal(asked[0]!.version, '1.1');
    assert.equal(asked[0]!.hostname, 'crawlhost');
    for (const f of files) {
      const records = await readWarc(f);
      assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata']);
      assert.ok(records[0]!.block.toString('utf8').includes(`description: made elsewhere for ${path.basename(f)}\r\n`));
    }
  });

  it('takes each closed file\'s SHA-256 and CRC-32 as it writes it (onSummed), large streamed records included', async () => {
    const dir = await newDir();
    const summed = new Map<string, unknown>();
    const w = new WarcWriter(options(dir, { rotateBytes: 1, onSummed: (file, sums) => summed.set(file, sums) }));
    const big = randomBytes(3 * 1024 * 1024);
    const bigFile = path.join(dir, '..', `big-${dirs}.bin`);
    await writeFile(bigFile, big);
    await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/0' }), hopPath: 'L', via: 'http://a.test/', outlinks: [] });
    await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/big', bodyStore: fileBody(bigFile, big.length), payloadDigest: sha1b32(big) }), hopPath: 'L', via: 'http://a.test/', outlinks: [] });
    const files = await w.close();
    assert.equal(files.length, 2);
    assert.equal(summed.size, 2);
    for (const f of files) {
      const bytes = await readFile(f);
      assert.deepEqual(summed.get(f), { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), crc32: crc32(bytes) });
    }
    assert.ok((await readFile(files[1]!)).length > 1_000_000, 'the large record was streamed into the second file');
  });

  it('keeps a whole capture in one file even past rotateBytes', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir, { rotateBytes: 5000 }));
    for (let i = 0; i < 6; i++) {
      await w.writeCapture({ exchange: makeExchange({ url: `http://a.test/${i}`, body: randomBytes(700) }), hopPath: 'L', via: 'http://a.test/', outlinks: [] });
    }
    const files = await w.close();
    assert.ok(files.length > 1 && files.length < 6, `rotated into ${files.length} files`);
    const seen: string[] = [];
    for (const f of files) {
      const records = await readWarc(f);
      assert.equal(records[0]!.type, 'warcinfo');
      assert.equal((records.length - 1) % 3, 0, 'whole captures only');
      for (const r of records) if (r.type === 'response') seen.push(r.header('WARC-Target-URI')!);
    }
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5].map((i) => `http://a.test/${i}`));
  });

  it('writes under .open and renames on close', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const written = await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/' }), hopPath: '', via: null, outlinks: [] });
    assert.deepEqual(await readdir(dir), [written.filename + '.open']);
    const files = await w.close();
    assert.deepEqual(await readdir(dir), [written.filename]);
    assert.deepEqual(files, [path.join(dir, written.filename)]);
    await assert.rejects(w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/x' }), hopPath: '', via: null, outlinks: [] }), { code: 'ARCHIVER_WARC_CLOSED' });
  });

  it('creates no file when nothing was written', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    assert.deepEqual(await w.close(), []);
    assert.equal(existsSync(dir), false);
  });

  it('serialises concurrent writers: every response is followed by its own request and metadata', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const urls = Array.from({ length: 25 }, (_, i) => `http://h${i % 5}.test/p${i}`);
    const written = await Promise.all(
      urls.map((url, i) => w.writeCapture({ exchange: makeExchange({ url, body: randomBytes(100 + i * 997) }), hopPath: 'L', via: null, outlinks: [] })),
    );
    const [file] = await w.close();
    const records = await readWarc(file!);
    assert.equal(records.length, 1 + 3 * urls.length);
    for (let i = 1; i < records.length; i += 3) {
      const [resp, req, meta] = [records[i]!, records[i + 1]!, records[i + 2]!];
      assert.deepEqual([resp.type, req.type, meta.type], ['response', 'request', 'metadata']);
      const id = resp.header('WARC-Record-ID');
      assert.equal(req.header('WARC-Concurrent-To'), id);
      assert.equal(meta.header('WARC-Concurrent-To'), id);
      assert.equal(req.header('WARC-Target-URI'), resp.header('WARC-Target-URI'));
    }
    // calls are written in the order they were made
    assert.deepEqual(
      records.filter((r) => r.type === 'response').map((r) => r.header('WARC-Record-ID')),
      written.map((x) => x.recordId),
    );
    assertBlockDigests(records);
  });

  it('compresses ahead of the queue, at most compressAheadCaptures at once, and still writes in call order', async () => {
    // Compression moved off the main thread: captures are compressed concurrently, ahead of the
    // serial queue. The cap must hold (memory), and a capture that finishes compressing early
    // (tiny) must not overtake a slow one (large) queued before it.
    const dir = await newDir();
    const w = new WarcWriter(options(dir, { compressAheadCaptures: 2 }));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const gated = (bytes: Buffer): BodyStore => ({
      size: bytes.length,
      async *stream() {
        started++;
        await gate;
        yield bytes;
      },
      // The capture thread reads a body held in memory whole, through head().
      async head(n: number) {
        started++;
        await gate;
        return bytes.subarray(0, n);
      },
      async dispose() {},
    });
    const bodies = [randomBytes(900 * 1024), ...Array.from({ length: 9 }, (_, i) => Buffer.from(`<p>tiny ${i}</p>`))];
    const pending = bodies.map((body, i) =>
      w.writeCapture({
        exchange: makeExchange({ url: `http://a.test/${i}`, bodyStore: gated(body), payloadDigest: sha1b32(body) }),
        hopPath: 'L',
        via: null,
        outlinks: [],
      }),
    );
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.equal(started, 2, 'only two captures read their bodies before the first is written');
    release();
    const written = await Promise.all(pending);
    const [file] = await w.close();
    const records = await readWarc(file!);
    const responses = records.filter((r) => r.type === 'response');
    assert.deepEqual(
      responses.map((r) => r.header('WARC-Target-URI')),
      bodies.map((_, i) => `http://a.test/${i}`),
    );
    assert.deepEqual(responses.map((r) => r.offset), written.map((x) => x.offset));
    assert.deepEqual(responses.map((r) => r.length), written.map((x) => x.length));
    assert.ok(responses[0]!.payload.equals(bodies[0]!));
    assertBlockDigests(records);
  });

  it('writes WARC/1.0 with whole-second dates and the 1.0 revisit profile', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir, { warcVersion: '1.0' }));
    const ex = makeExchange({ url: 'http://a.test/' });
    await w.writeCapture({ exchange: ex, hopPath: '', via: null, outlinks: [] });
    await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/again' }), hopPath: 'L', via: 'http://a.test/', outlinks: [], revisitOf: { url: 'http://a.test/', date: '2026-11-29T12:00:00.123Z' } });
    const [file] = await w.close();
    const records = await readWarc(file!);
    for (const r of records) {
      assert.equal(r.versionLine, 'WARC/1.0');
      assert.match(r.header('WARC-Date')!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    assert.equal(records[1]!.header('WARC-Date'), '2026-11-29T12:00:00Z');
    assert.match(records[0]!.block.toString('utf8'), /format: WARC File Format 1\.0\r\n/);
    const revisit = records[4]!;
    assert.equal(revisit.header('WARC-Profile'), 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest');
    assert.equal(revisit.header('WARC-Refers-To-Date'), '2026-11-29T12:00:00Z');
  });

  it('refuses a capture whose body does not match the fetcher digest, and stays usable', async () => {
    const dir = await newDir();
    const w = new WarcWriter(options(dir));
    const bad = makeExchange({ url: 'http://a.test/bad', payloadDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    await assert.rejects(w.writeCapture({ exchange: bad, hopPath: '', via: null, outlinks: [] }), { code: 'ARCHIVER_WARC_DIGEST_MISMATCH' });
    await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/good' }), hopPath: '', via: null, outlinks: [] });
    const [file] = await w.close();
    const records = await readWarc(file!);
    assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata']);
    assert.equal(records[1]!.header('WARC-Target-URI'), 'http://a.test/good');
  });

  it('on a failure mid-capture, cuts the file back to the last complete capture and refuses further writes', async () => {
    const dir = await newDir();
    const summed: string[] = [];
    const w = new WarcWriter(options(dir, { onSummed: (file) => summed.push(file) }));
    const okWritten = await w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/ok' }), hopPath: '', via: null, outlinks: [] });
    // A body store that reads fine for the digest pass, then fails half-way through the write pass
    // (as a temp file on a failing disk would): some of the record's bytes already reached the file.
    // Large enough to be streamed to the file (not compressed in one piece in memory).
    const bytes = randomBytes(3 * 1024 * 1024);
    let calls = 0;
    const flaky: BodyStore = {
      size: bytes.length,
      async *stream() {
        calls++;
        for (let at = 0; at < bytes.length; at += 64 * 1024) {
          if (calls > 1 && at >= bytes.length / 2) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
          yield bytes.subarray(at, at + 64 * 1024);
        }
      },
      async head(n: number) {
        return bytes.subarray(0, n);
      },
      async dispose() {},
    };
    const ex = makeExchange({ url: 'http://a.test/broken', bodyStore: flaky, payloadDigest: sha1b32(bytes) });
    await assert.rejects(w.writeCapture({ exchange: ex, hopPath: 'L', via: null, outlinks: [] }), (err: unknown) => {
      assert.equal((err as { code?: string }).code, 'ARCHIVER_WARC_WRITE');
      assert.equal((err as Error).name, 'FatalCrawlError');
      return true;
    });
    await assert.rejects(w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/after' }), hopPath: '', via: null, outlinks: [] }), {
      code: 'ARCHIVER_WARC_WRITE',
    });
    const sizeBeforeClose = (await readFile(path.join(dir, okWritten.filename + '.open'))).length;
    const [file] = await w.close();
    assert.equal(sizeBeforeClose, (await readFile(file!)).length);
    // readWarc also checks there is no byte after the last complete record
    const records = await readWarc(file!);
    assert.deepEqual(types(records), ['warcinfo', 'response', 'request', 'metadata']);
    assert.equal(records[1]!.header('WARC-Target-URI'), 'http://a.test/ok');
    // The sums taken covered bytes since cut off: the file has none.
    assert.deepEqual(summed, []);
  });

  it('rejects with ARCHIVER_WARC_WRITE when the disk is full (ENOSPC)', { skip: !existsSync('/dev/full') }, async () => {
    const dir = await newDir();
    const now = new Date('2030-01-01T00:00:00.000Z');
    const w = new WarcWriter(options(dir, { clock: { now: () => now.getTime() } }));
    // The name is predictable from the clock: point it at /dev/full, where every write fails with ENOSPC.
    const name = `WEB-20300101000000000-00000-${process.pid}~crawlhost.warc.gz`;
    await (await import('node:fs/promises')).mkdir(dir, { recursive: true });
    await symlink('/dev/full', path.join(dir, name + '.open'));
    await assert.rejects(w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/' }), hopPath: '', via: null, outlinks: [] }), (err: unknown) => {
      assert.equal((err as { code?: string }).code, 'ARCHIVER_WARC_WRITE');
      assert.equal(((err as Error).cause as { code?: string }).code, 'ENOSPC');
      return true;
    });
    await assert.rejects(w.writeCapture({ exchange: makeExchange({ url: 'http://a.test/2' }), hopPath: '', via: null, outlinks: [] }), {
      code: 'ARCHIVER_WARC_WRITE',
    });
    await w.close();
  });

  it('rejects invalid options with a stable code', () => {
    assert.throws(() => new WarcWriter(options('/tmp/x', { prefix: 'a/b' })), { code: 'ARCHIVER_INVALID_OPTION' });
    assert.throws(() => new WarcWriter(options('/tmp/x', { rotateBytes: -1 })), { code: 'ARCHIVER_INVALID_OPTION' });
    assert.throws(() => new WarcWriter(options('/tmp/x', { compressAheadCaptures: 0 })), { code: 'ARCHIVER_INVALID_OPTION' });
  });
});
