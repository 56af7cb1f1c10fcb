/**
 * ZipWriter, the sequential ZIP writer the WACZ packages are written with.
 * Every package it writes here is read back by three readers that share no
 * code with it: zip-read.ts (every CRC verified, and each entry's headers
 * and data descriptor as they are), wacz-entries.ts's waczWarcs (the
 * replay side: the byte ranges of the WARCs, whose bytes must be the
 * source files'), and Python's zipfile (testzip, names, sizes, CRCs).
 * Failures must fail the writer at once and leave nothing waiting and no
 * file open.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readFile, readdir, readlink, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { waczWarcs } from '../../src/wacz/wacz-entries.js';
import { ZipWriter, ZipWriteError } from '../../src/wacz/zip-writer.js';
import { needs } from '../helpers/programs.js';
import { readZip, readZipDetails, type ZipDetails } from './zip-read.js';

let tmp: string;
before(async () => {
  tmp = await realpath(await mkdtemp(path.join(os.tmpdir(), 'archiver-zip-writer-')));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** 2 January 2026, 03:04:06 local time: an even second, as DOS times have no odd ones. */
const MTIME = new Date(2026, 0, 2, 3, 4, 6);
const DOS_TIME = (3 << 11) | (4 << 5) | 3;
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 2;
const MADE_BY_UNIX_45 = (3 << 8) | 45;
const REGULAR_0644 = (0o100644 << 16) >>> 0;

let files = 0;
async function file(data: Buffer, name = `f${++files}.bin`): Promise<string> {
  const p = path.join(tmp, name);
  await writeFile(p, data);
  return p;
}

/** Text that deflates (log-like lines, not all alike). */
function text(bytes: number, seed = 0): Buffer {
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < bytes; i++) {
    const line = `{"url":"http://example.com/${seed}/${i}","ts":"2026${(i * 7919) % 100000}","status":${200 + (i % 7)}}\n`;
    lines.push(line);
    total += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

const crc = (b: Buffer): number => zlib.crc32(b);

interface Expected {
  name: string;
  data: Buffer;
  method: 0 | 8;
}

/** Python's reading of a package: testzip's answer and each entry's name, sizes, CRC, method, flags, date and time. */
function python(zipFile: string): { bad: string | null; entries: [string, number, number, number, number, number, number[]][] } {
  const script = [
    'import json, sys, zipfile',
    'with zipfile.ZipFile(sys.argv[1]) as z:',
    '    bad = z.testzip()',
    '    print(json.dumps({"bad": bad, "entries": [[i.filename, i.file_size, i.compress_size, i.compress_type, i.CRC, i.flag_bits, list(i.date_time)] for i in z.infolist()]}))',
  ].join('\n');
  const run = spawnSync('python3', ['-c', script, zipFile], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  assert.equal(run.status, 0, `python3 zipfile failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as ReturnType<typeof python>;
}

const hasPython = needs('python3');

/**
 * Read `zipFile` with the three readers and check each finds exactly
 * `expected`, in order, with its bytes; return zip-read's details for the
 * layout checks.
 */
async function checkPackage(zipFile: string, expected: Expected[], size?: number): Promise<ZipDetails> {
  const bytes = await readFile(zipFile);
  if (size !== undefined) assert.equal(size, bytes.length, 'finish() resolves with the package size');

  // 1. zip-read.ts: every CRC verified, data as queued.
  const details = readZipDetails(bytes);
  assert.deepEqual(
    details.entries.map((e) => e.name),
    expected.map((e) => e.name),
  );
  for (const [i, e] of details.entries.entries()) {
    const want = expected[i]!;
    assert.equal(e.method, want.method, `${e.name}: method`);
    assert.ok(e.data.equals(want.data), `${e.name}: data`);
    assert.equal(e.crc, crc(want.data), `${e.name}: CRC`);
    assert.equal(e.flags & (1 << 11), 1 << 11, `${e.name}: UTF-8 flag`);
    assert.equal(e.versionMadeBy, MADE_BY_UNIX_45, `${e.name}: made by`);
    assert.equal(e.externalAttributes, REGULAR_0644, `${e.name}: attributes`);
    assert.equal(e.dosTime, DOS_TIME, `${e.name}: time`);
    assert.equal(e.dosDate, DOS_DATE, `${e.name}: date`);
    assert.equal(e.local.flags, e.flags, `${e.name}: local flags`);
    if (i > 0) assert.ok(e.localOffset > details.entries[i - 1]!.localOffset, `${e.name}: written after the one queued before it`);
  }
  // readZip, the other tests' reader, agrees.
  assert.deepEqual(
    readZip(bytes).map((e) => [e.name, e.data.length]),
    expected.map((e) => [e.name, e.data.length]),
  );

  // 2. The replay side's reader: the WARCs as byte ranges of the package.
  const warcs = expected.filter((e) => e.name.startsWith('archive/') && e.name.endsWith('.warc.gz'));
  const ranges = await waczWarcs(zipFile);
  assert.deepEqual(
    ranges.map((r) => r.name),
    warcs.map((w) => `${zipFile}#${w.name}`),
  );
  for (const [i, r] of ranges.entries()) {
    assert.equal(r.length, warcs[i]!.data.length);
    assert.ok(bytes.subarray(r.start, r.start + r.length!).equals(warcs[i]!.data), `${r.name}: bytes at its range`);
  }

  // 3. Python's zipfile.
  if (hasPython.skip === undefined) {
    const py = python(zipFile);
    assert.equal(py.bad, null, 'testzip finds no bad entry');
    assert.deepEqual(
      py.entries.map(([name, fileSize, , method, crc32]) => [name, fileSize, method, crc32]),
      expected.map((e) => [e.name, e.data.length, e.method, crc(e.data)]),
    );
    for (const [name, , compressSize, , , , dateTime] of py.entries) {
      const entry = details.entries.find((e) => e.name === name)!;
      assert.equal(compressSize, entry.compressedSize, `${name}: compressed size`);
      assert.deepEqual(dateTime, [2026, 1, 2, 3, 4, 6]);
    }
  }
  return details;
}

/** Paths this process holds open (Linux), to see that a writer let go of its files. */
async function openFiles(): Promise<string[]> {
  const fds = await readdir('/proc/self/fd');
  return Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
}
const hasProc = existsSync('/proc/self/fd') ? {} : { skip: 'no /proc/self/fd here' };

/** Write `total` bytes of `piece` repeated into `out`, waiting for 'drain' (racing `failed`), then end it; all that was written. */
async function produce(out: Writable, failed: Promise<never>, piece: Buffer, total: number): Promise<Buffer> {
  const sent: Buffer[] = [];
  for (let n = 0; n < total; n += piece.length) {
    const chunk = piece.subarray(0, Math.min(piece.length, total - n));
    sent.push(chunk);
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  }
  out.end();
  return Buffer.concat(sent);
}

describe('ZipWriter', { timeout: 120_000 }, () => {
  test('stored and deflated files, with and without their CRC and size known: complete local headers when known, data descriptors otherwise; taps see the bytes', async () => {
    const warcA = randomBytes(3 * 1024 * 1024 + 17);
    const warcB = randomBytes(250_001);
    const cdx = text(700_000, 1);
    const pages = text(1_234_567, 2);
    const out = path.join(tmp, 'files.wacz');
    // An odd chunk size, so no file is a whole number of chunks.
    const zip = await ZipWriter.open(out, { mtime: MTIME, chunkBytes: 100_003 });
    const tapped: Record<string, Buffer[]> = { a: [], b: [], cdx: [], pages: [] };
    // A stored file is read into two buffers taking turns (its chunks are copied out here, as a tap must).
    const aBuffers = new Set<ArrayBufferLike>();
    const added = [
      zip.addFile('archive/A.warc.gz', await file(warcA), {
        compress: false,
        known: { crc32: crc(warcA), size: warcA.length },
        tap: (c) => {
          aBuffers.add(c.buffer);
          tapped['a']!.push(Buffer.from(c));
        },
      }),
      zip.addFile('archive/B.warc.gz', await file(warcB), { compress: false, tap: (c) => tapped['b']!.push(Buffer.from(c)) }),
      zip.addFile('indexes/index.cdxj', await file(cdx), { compress: true, known: { crc32: crc(cdx), size: cdx.length }, tap: (c) => tapped['cdx']!.push(Buffer.from(c)) }),
      zip.addFile('pages/pages.jsonl', await file(pages), { compress: true, tap: (c) => tapped['pages']!.push(Buffer.from(c)) }),
    ];
    await Promise.all(added);
    const size = await zip.finish();
    assert.ok(Buffer.concat(tapped['a']!).equals(warcA));
    assert.ok(Buffer.concat(tapped['b']!).equals(warcB));
    assert.ok(Buffer.concat(tapped['cdx']!).equals(cdx));
    assert.ok(Buffer.concat(tapped['pages']!).equals(pages));
    assert.ok(tapped['a']!.length > 30, 'a large file is read in chunks');
    assert.equal(aBuffers.size, 2, 'its chunks took turns in two buffers');

    const details = await checkPackage(out, [
      { name: 'archive/A.warc.gz', data: warcA, method: 0 },
      { name: 'archive/B.warc.gz', data: warcB, method: 0 },
      { name: 'indexes/index.cdxj', data: cdx, method: 8 },
      { name: 'pages/pages.jsonl', data: pages, method: 8 },
    ], size);
    const [a, b, index, pagesEntry] = details.entries as [ZipDetails['entries'][0], ZipDetails['entries'][0], ZipDetails['entries'][0], ZipDetails['entries'][0]];
    // Known: the local header says it all, no descriptor (the deflated one's compressed size filled in after).
    for (const e of [a, index]) {
      assert.equal(e.local.flags & 8, 0, `${e.name}: no data descriptor`);
      assert.equal(e.descriptor, null);
      assert.deepEqual([e.local.crc, e.local.size, e.local.compressedSize], [e.crc, e.size, e.compressedSize], `${e.name}: local header complete`);
      assert.equal(e.local.versionNeeded, 20);
      assert.equal(e.local.zip64, null);
      assert.equal(e.centralZip64, null);
    }
    assert.ok(index.compressedSize < cdx.length / 2, 'the index is deflated');
    // Not known: zeros in the local header, the values in a descriptor with its signature.
    for (const e of [b, pagesEntry]) {
      assert.equal(e.local.flags & 8, 8, `${e.name}: data descriptor flag`);
      assert.deepEqual([e.local.crc, e.local.size, e.local.compressedSize], [0, 0, 0]);
      assert.deepEqual(e.descriptor, { signature: true, crc: e.crc, compressedSize: e.compressedSize, size: e.size });
    }
    // Entries follow each other with nothing between them: header, data, descriptor.
    assert.equal(b.localOffset, a.dataOffset + a.compressedSize);
    assert.equal(index.localOffset, b.dataOffset + b.compressedSize + 16);
    assert.equal(a.localOffset, 0);
  });

  test('addDeflated: raw DEFLATE data copied as it is, one stream or pieces flushed one after the other', async () => {
    const a = text(300_000, 3);
    const b = text(200_000, 4);
    const c = text(50_000, 5);
    const pieces = Buffer.concat([zlib.deflateRawSync(a, { finishFlush: zlib.constants.Z_SYNC_FLUSH }), zlib.deflateRawSync(b)]);
    const whole = zlib.deflateRawSync(c, { level: 9 });
    const ab = Buffer.concat([a, b]);
    assert.ok(zlib.inflateRawSync(pieces).equals(ab), 'the pieces inflate to a then b');
    const out = path.join(tmp, 'deflated.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME, chunkBytes: 65_536 });
    void zip.addDeflated('indexes/index.cdx.gz.parts', await file(pieces), { crc32: crc(ab), size: ab.length });
    void zip.addDeflated('indexes/whole', await file(whole), { crc32: crc(c), size: c.length });
    const size = await zip.finish();
    const details = await checkPackage(out, [
      { name: 'indexes/index.cdx.gz.parts', data: ab, method: 8 },
      { name: 'indexes/whole', data: c, method: 8 },
    ], size);
    const zipBytes = await readFile(out);
    for (const [e, raw] of [[details.entries[0]!, pieces], [details.entries[1]!, whole]] as const) {
      assert.ok(zipBytes.subarray(e.dataOffset, e.dataOffset + e.compressedSize).equals(raw), `${e.name}: the deflated bytes as they were`);
      assert.equal(e.local.flags & 8, 0);
      assert.deepEqual([e.local.method, e.local.crc, e.local.size, e.local.compressedSize], [8, e.crc, e.size, raw.length]);
    }
  });

  test('addBuffer, stored and deflated; empty files and buffers', async () => {
    const json = Buffer.from(JSON.stringify({ profile: 'data-package', resources: [{ name: 'é' }] }, null, 2));
    const empty = Buffer.alloc(0);
    const out = path.join(tmp, 'buffers.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME });
    const emptyFile = await file(empty);
    void zip.addFile('archive/empty.warc.gz', emptyFile, { compress: false });
    void zip.addFile('archive/empty-known.warc.gz', emptyFile, { compress: false, known: { crc32: 0, size: 0 } });
    void zip.addFile('pages/empty.jsonl', emptyFile, { compress: true });
    void zip.addBuffer('datapackage.json', json, true);
    void zip.addBuffer('datapackage-digest.json', json, false);
    void zip.addBuffer('empty', empty, false);
    void zip.addBuffer('empty-deflated', empty, true);
    void zip.addBuffer('dossier/ünïcode 名前.txt', json, false);
    const size = await zip.finish();
    const details = await checkPackage(out, [
      { name: 'archive/empty.warc.gz', data: empty, method: 0 },
      { name: 'archive/empty-known.warc.gz', data: empty, method: 0 },
      { name: 'pages/empty.jsonl', data: empty, method: 8 },
      { name: 'datapackage.json', data: json, method: 8 },
      { name: 'datapackage-digest.json', data: json, method: 0 },
      { name: 'empty', data: empty, method: 0 },
      { name: 'empty-deflated', data: empty, method: 8 },
      { name: 'dossier/ünïcode 名前.txt', data: json, method: 0 },
    ], size);
    for (const e of details.entries.slice(3)) {
      assert.equal(e.local.flags & 8, 0, `${e.name}: a buffer has no data descriptor`);
      assert.deepEqual([e.local.crc, e.local.size, e.local.compressedSize], [e.crc, e.size, e.compressedSize]);
    }
    assert.deepEqual(details.entries[0]!.descriptor, { signature: true, crc: 0, compressedSize: 0, size: 0 });
    assert.equal(details.entries[1]!.descriptor, null);
  });

  test('addStream: the producer is held back until the writer reaches its entry, the tap sees exactly its bytes, entries go in as queued', async () => {
    const warc = randomBytes(8 * 1024 * 1024);
    const out = path.join(tmp, 'streams.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME, chunkBytes: 256 * 1024 });
    let fileDone = false;
    let aDone = false;
    const fileWritten = zip.addFile('archive/A.warc.gz', await file(warc), { compress: false }).then(() => {
      fileDone = true;
    });
    const aTapped: Buffer[] = [];
    const a = zip.addStream('pages/pages.jsonl', { compress: true, tap: (c) => aTapped.push(Buffer.from(c)) });
    void a.written.then(() => {
      aDone = true;
    });
    void zip.addBuffer('between', Buffer.from('queued between the streams'), false);
    const bTapped: Buffer[] = [];
    const b = zip.addStream('archive/B.warc.gz', { compress: false, tap: (c) => bTapped.push(Buffer.from(c)) });

    // Both producers fill their streams until told to wait: neither entry is reached while the file ahead is copied.
    const piece = Buffer.from('{"url":"http://example.com/","text":"words, words, words"}\n');
    const fill = (s: Writable): number => {
      let n = 0;
      while (s.write(piece)) n += piece.length;
      return n + piece.length;
    };
    const aTaken = fill(a.stream);
    const bTaken = fill(b.stream);
    assert.ok(aTaken < 1024 * 1024 && bTaken < 1024 * 1024, `the streams take a little (${aTaken}, ${bTaken} bytes) then push back`);
    assert.equal(fileDone, false);

    // B waits for A's entry, though the file is done long before: its 'drain' comes after A's entry is written.
    let bDrainedAfterA: boolean | undefined;
    b.stream.once('drain', () => {
      bDrainedAfterA = aDone;
    });
    const bRandom = randomBytes(64 * 1024);
    const bSent = produce(b.stream, zip.failed, bRandom, 6 * 1024 * 1024 + 5);
    await fileWritten;
    // The file is in; A is reached and B still waits while A's producer has more to write.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(bDrainedAfterA, undefined, 'B is not drained while A is open');
    const aRest = await produce(a.stream, zip.failed, piece, 5 * 1024 * 1024);
    const bRest = await bSent;
    await Promise.all([a.written, b.written]);
    assert.equal(bDrainedAfterA, true);
    const size = await zip.finish();

    // fill() wrote the piece over and over, then the producers the rest.
    const repeated = (n: number): Buffer => Buffer.concat(Array.from({ length: n / piece.length }, () => piece));
    const aData = Buffer.concat([repeated(aTaken), aRest]);
    const bData = Buffer.concat([repeated(bTaken), bRest]);
    assert.ok(Buffer.concat(aTapped).equals(aData), 'A tap: exactly the bytes written');
    assert.ok(Buffer.concat(bTapped).equals(bData), 'B tap: exactly the bytes written');
    const details = await checkPackage(out, [
      { name: 'archive/A.warc.gz', data: warc, method: 0 },
      { name: 'pages/pages.jsonl', data: aData, method: 8 },
      { name: 'between', data: Buffer.from('queued between the streams'), method: 0 },
      { name: 'archive/B.warc.gz', data: bData, method: 0 },
    ], size);
    for (const e of [details.entries[1]!, details.entries[3]!]) {
      assert.equal(e.local.flags & 8, 8);
      assert.deepEqual(e.descriptor, { signature: true, crc: e.crc, compressedSize: e.compressedSize, size: e.size });
    }
  });

  test('forceZip64: ZIP64 local headers, central extras and end records, read by all three readers', async () => {
    const warcA = randomBytes(1024 * 1024 + 3);
    const warcB = randomBytes(77_777);
    const cdx = text(300_000, 6);
    const pages = text(400_000, 7);
    const raw = text(100_000, 8);
    const deflated = zlib.deflateRawSync(raw);
    const json = Buffer.from('{"resources":[]}');
    const out = path.join(tmp, 'zip64.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME, forceZip64: true, chunkBytes: 200_000 });
    void zip.addFile('archive/A.warc.gz', await file(warcA), { compress: false, known: { crc32: crc(warcA), size: warcA.length } });
    void zip.addFile('archive/B.warc.gz', await file(warcB), { compress: false });
    void zip.addFile('indexes/index.cdxj', await file(cdx), { compress: true, known: { crc32: crc(cdx), size: cdx.length } });
    void zip.addFile('pages/extra.jsonl', await file(pages), { compress: true });
    void zip.addDeflated('indexes/index.idx', await file(deflated), { crc32: crc(raw), size: raw.length });
    const s = zip.addStream('pages/pages.jsonl', { compress: true });
    void zip.addBuffer('datapackage.json', json, false);
    void zip.addFile('archive/empty.warc.gz', await file(Buffer.alloc(0)), { compress: false });
    const streamed = await produce(s.stream, zip.failed, Buffer.from('line of the page list\n'), 300_000);
    const size = await zip.finish();
    const details = await checkPackage(out, [
      { name: 'archive/A.warc.gz', data: warcA, method: 0 },
      { name: 'archive/B.warc.gz', data: warcB, method: 0 },
      { name: 'indexes/index.cdxj', data: cdx, method: 8 },
      { name: 'pages/extra.jsonl', data: pages, method: 8 },
      { name: 'indexes/index.idx', data: raw, method: 8 },
      { name: 'pages/pages.jsonl', data: streamed, method: 8 },
      { name: 'datapackage.json', data: json, method: 0 },
      { name: 'archive/empty.warc.gz', data: Buffer.alloc(0), method: 0 },
    ], size);
    assert.equal(details.zip64End, true);
    assert.deepEqual(details.end, { count: 0xffff, dirSize: 0xffffffff, dirOffset: 0xffffffff });
    const descriptors = new Set(['archive/B.warc.gz', 'pages/extra.jsonl', 'pages/pages.jsonl', 'archive/empty.warc.gz']);
    for (const e of details.entries) {
      assert.equal(e.versionNeeded, 45, `${e.name}: version needed`);
      assert.equal(e.local.versionNeeded, 45);
      assert.deepEqual(e.centralZip64, [BigInt(e.size), BigInt(e.compressedSize), BigInt(e.localOffset)], `${e.name}: central ZIP64 extra`);
      assert.deepEqual([e.local.size, e.local.compressedSize], [0xffffffff, 0xffffffff], `${e.name}: local 32-bit sizes`);
      if (descriptors.has(e.name)) {
        assert.equal(e.local.flags & 8, 8);
        assert.deepEqual(e.local.zip64, [0n, 0n], `${e.name}: ZIP64 placeholders`);
        assert.equal(e.local.crc, 0);
        // 8-byte sizes: the descriptor ends where the next entry begins.
        assert.deepEqual(e.descriptor, { signature: true, crc: e.crc, compressedSize: e.compressedSize, size: e.size });
      } else {
        assert.equal(e.local.flags & 8, 0);
        assert.deepEqual(e.local.zip64, [BigInt(e.size), BigInt(e.compressedSize)], `${e.name}: ZIP64 sizes in the local header`);
        assert.equal(e.local.crc, e.crc);
      }
    }
    const b = details.entries[1]!;
    assert.equal(details.entries[2]!.localOffset, b.dataOffset + b.compressedSize + 24, 'a ZIP64 data descriptor is 24 bytes');
  });

  test('a missing file fails the writer: its entry, the entries after it, failed and finish reject, the stream behind it is destroyed, no file stays open', hasProc, async () => {
    const out = path.join(tmp, 'missing.wacz');
    const missing = path.join(tmp, 'no-such.warc.gz');
    const zip = await ZipWriter.open(out, { mtime: MTIME });
    const first = zip.addBuffer('first', Buffer.from('ok'), false);
    const gone = zip.addFile('archive/gone.warc.gz', missing, { compress: false });
    const s = zip.addStream('pages/pages.jsonl', { compress: true });
    const later = zip.addBuffer('later', Buffer.from('never'), false);
    // The producer of the stream behind fills it and waits: the failure, not a 'drain', ends its wait.
    const producing = produce(s.stream, zip.failed, Buffer.alloc(4096, 65), 8 * 1024 * 1024);

    await first;
    const err = await gone.then(
      () => assert.fail('the entry of a missing file resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ZipWriteError);
    assert.equal(err.code, 'ARCHIVER_WACZ_WRITE');
    assert.match(err.message, /no-such\.warc\.gz/);
    assert.equal((err.cause as NodeJS.ErrnoException).code, 'ENOENT');
    await assert.rejects(zip.failed, (e) => e === err);
    await assert.rejects(producing, (e) => e === err);
    assert.equal(s.stream.destroyed, true);
    await assert.rejects(s.written, (e) => e === err);
    await assert.rejects(later, (e) => e === err);
    // A stream queued after the failure is destroyed too, not left to fill.
    const afterwards = zip.addStream('afterwards', { compress: false });
    await assert.rejects(afterwards.written, (e) => e === err);
    assert.equal(afterwards.stream.destroyed, true);
    await assert.rejects(zip.finish(), (e) => e === err);
    assert.ok(!(await openFiles()).includes(out), 'the package file is closed');
    await zip.abort();
  });

  test('a stream destroyed with an error fails the writer at once, even before the writer reaches it', async () => {
    const out = path.join(tmp, 'broken-stream.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME });
    const held = zip.addStream('held', { compress: false });
    const broken = zip.addStream('broken', { compress: true });
    broken.stream.write('some bytes');
    broken.stream.destroy(new Error('the producer broke'));
    const err = await zip.failed.catch((e: unknown) => e);
    assert.ok(err instanceof ZipWriteError);
    assert.match(err.message, /broken/);
    assert.match(err.message, /the producer broke/);
    // The stream ahead, never ended by its producer, is destroyed too: nothing waits on it.
    assert.equal(held.stream.destroyed, true);
    await assert.rejects(held.written, (e) => e === err);
    await assert.rejects(broken.written, (e) => e === err);
    await assert.rejects(zip.finish(), (e) => e === err);
  });

  test('abort in the middle of a copy: pending streams destroyed, failed and finish reject, no file left open', hasProc, async () => {
    const source = await file(randomBytes(16 * 1024 * 1024), 'big.warc.gz');
    const out = path.join(tmp, 'aborted.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME, chunkBytes: 64 * 1024 });
    let aborted: Promise<void> | undefined;
    let chunks = 0;
    const copying = zip.addFile('archive/big.warc.gz', source, {
      compress: false,
      tap: () => {
        if (++chunks === 3) aborted = zip.abort();
      },
    });
    const s = zip.addStream('pages/pages.jsonl', { compress: true });
    const err = await copying.then(
      () => assert.fail('an aborted copy went on to the end'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ZipWriteError);
    assert.match(err.message, /aborted/);
    assert.ok(chunks < 10, `the copy stopped at once (${chunks} chunks read)`);
    await aborted;
    await zip.abort();
    assert.equal(s.stream.destroyed, true);
    await assert.rejects(zip.failed, (e) => e === err);
    await assert.rejects(zip.finish(), (e) => e === err);
    assert.throws(() => zip.addBuffer('late', Buffer.alloc(1), false), ZipWriteError);
    const open = await openFiles();
    assert.ok(!open.includes(out) && !open.includes(source), 'neither the package nor the source is open');
    assert.ok((await stat(out)).size < 16 * 1024 * 1024, 'the package was left partial (the caller removes it)');
  });

  test('a process that aborts a writer, or whose writer fails, exits by itself', async () => {
    const module = new URL('../../src/wacz/zip-writer.js', import.meta.url).href;
    const dir = await mkdtemp(path.join(tmp, 'child-'));
    const script = `
      import { writeFileSync } from 'node:fs';
      import { ZipWriter } from ${JSON.stringify(module)};
      const dir = ${JSON.stringify(dir)};
      writeFileSync(dir + '/big', Buffer.alloc(32 * 1024 * 1024, 1));
      const a = await ZipWriter.open(dir + '/a.zip', { mtime: new Date(), chunkBytes: 65536 });
      a.addFile('big', dir + '/big', { compress: true }).catch(() => {});
      const s = a.addStream('s', { compress: false });
      s.stream.write('x');
      setTimeout(() => a.abort(), 20);
      const b = await ZipWriter.open(dir + '/b.zip', { mtime: new Date() });
      b.addFile('gone', dir + '/gone', { compress: false }).catch(() => {});
      b.addStream('waiting', { compress: true }).stream.write('y');
      b.failed.catch(() => console.log('b failed'));
      a.failed.catch(() => console.log('a failed'));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(run.signal, null, 'the child exited by itself');
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split('\n').sort(), ['a failed', 'b failed']);
  });

  test('an entry counts as written once its bytes are in the file, while the entry after it waits', async () => {
    const out = path.join(tmp, 'written.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME });
    const small = Buffer.from('a few bytes');
    const known = randomBytes(1000);
    await zip.addBuffer('small', small, false);
    const s = zip.addStream('open', { compress: false });
    const onDisk = await readFile(out);
    assert.equal(onDisk.length, 30 + 'small'.length + small.length, 'the buffer entry whole, nothing of the next one yet');
    assert.ok(onDisk.subarray(35).equals(small));
    s.stream.end('the stream');
    await s.written;
    await zip.addFile('known', await file(known), { compress: false, known: { crc32: crc(known), size: known.length } });
    const later = await readFile(out);
    assert.ok(later.subarray(later.length - known.length).equals(known), 'the file entry ends the file');
    await checkPackage(
      out,
      [
        { name: 'small', data: small, method: 0 },
        { name: 'open', data: Buffer.from('the stream'), method: 0 },
        { name: 'known', data: known, method: 0 },
      ],
      await zip.finish(),
    );
  });

  test('names: UTF-8 accepted, absolute or backslashed names and additions after finish refused', async () => {
    const out = path.join(tmp, 'names.wacz');
    const zip = await ZipWriter.open(out, { mtime: MTIME });
    assert.throws(() => zip.addBuffer('/etc/passwd', Buffer.alloc(1), false), ZipWriteError);
    assert.throws(() => zip.addBuffer('a\\b', Buffer.alloc(1), false), ZipWriteError);
    assert.throws(() => zip.addBuffer('', Buffer.alloc(1), false), ZipWriteError);
    const size = await zip.finish();
    assert.equal(size, 22, 'an empty package is its end record');
    assert.throws(() => zip.addBuffer('late', Buffer.alloc(1), false), ZipWriteError);
    await checkPackage(out, [], size);
    // A handle of ours on the file is gone: it can be opened, truncated and removed.
    await (await open(out, 'r+')).close();
  });
});
