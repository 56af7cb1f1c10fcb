/**
 * The analysis' own WARC record reader against files written with warcio:
 * gzip per record, one gzip member for the whole file, no compression; the
 * one-call and the streaming inflate paths; blocks kept only for the types
 * asked for, and capped; wget's <…> target URIs; and the ways a file can be
 * broken (truncated member, truncated head, CRC mismatch, garbage where a
 * record should start), each reported with its offset.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { WARCParser } from 'warcio';
import { describeWarcDamage, WarcFormatError, type WarcDamage } from '../../src/warc/warc-damage.js';
import { parseHttpHead, readWarcRecords, WARC_RECORDS_DEFAULTS, type WarcRecord, type WarcRecordsOptions } from '../../src/warc/warc-records.js';
import { pageHtml, prng, warcBytes, type PageSpec } from '../analysis/synthetic.js';

const KEEP: WarcRecordsOptions = { ...WARC_RECORDS_DEFAULTS, keepBlockOf: new Set(['response', 'revisit']) };

/** Pages of a few hundred bytes to ~200 KB (incompressible filler in some), an image, a redirect and a revisit. */
function specs(): PageSpec[] {
  const rand = prng(3);
  const noise = (n: number): string => Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(rand() * 90))).join('');
  const out: PageSpec[] = [];
  for (let i = 0; i < 30; i++) {
    out.push({ url: `http://w.test/${i}`, html: pageHtml(`P${i}`, [`/${i + 1}`]) + (i % 7 === 0 ? noise(200_000) : ''), encoding: i % 5 === 0 ? 'gzip' : undefined });
  }
  out.push({ url: 'http://w.test/img.png', html: noise(5000), headers: { 'Content-Type': 'image/png' } });
  out.push({ url: 'http://w.test/old', status: 301, headers: { Location: '/0' } });
  out.push({ url: 'http://w.test/again', type: 'revisit', refersTo: 'http://w.test/0' });
  return out;
}

interface Seen {
  offset: number;
  type: string | null;
  uri: string | null;
  block: string;
}

async function collect(file: string, options: WarcRecordsOptions = KEEP): Promise<Seen[]> {
  const out: Seen[] = [];
  for await (const r of readWarcRecords(file, options)) out.push(seen(r));
  return out;
}

function seen(r: WarcRecord): Seen {
  return { offset: r.offset, type: r.type, uri: r.targetUri, block: r.block.toString('latin1') };
}

/** What warcio reads from the same file: offsets, types, URIs and whole blocks (for the kept types). */
async function warcioView(file: string): Promise<Seen[]> {
  const parser = new WARCParser((await import('node:fs')).createReadStream(file));
  const out: Seen[] = [];
  for await (const r of parser) {
    const kept = r.warcType === 'response' || r.warcType === 'revisit';
    // The block as stored: warcio parses the HTTP head off it, so read the raw payload back through its reader.
    const payload = Buffer.from(await r.readFully(false));
    const head = r.httpHeaders === null ? '' : r.httpHeaders.toString() + '\r\n';
    out.push({ offset: parser.offset, type: r.warcType, uri: r.warcTargetURI ?? null, block: kept ? head + payload.toString('latin1') : '' });
  }
  return out;
}

describe('readWarcRecords', () => {
  let dir: string;
  let gz: string;
  let plain: string;
  let wholeGz: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-records-'));
    gz = path.join(dir, 'a.warc.gz');
    plain = path.join(dir, 'a.warc');
    wholeGz = path.join(dir, 'whole.warc.gz');
    await fs.writeFile(gz, await warcBytes(specs(), true));
    const uncompressed = await warcBytes(specs(), false);
    await fs.writeFile(plain, uncompressed);
    await fs.writeFile(wholeGz, zlib.gzipSync(uncompressed));
  });

  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('reads per-record gzip as warcio does: offsets, types, URIs, blocks', async () => {
    const ours = await collect(gz);
    const theirs = await warcioView(gz);
    assert.equal(ours.length, 33);
    assert.deepEqual(ours.map((r) => [r.offset, r.type, r.uri]), theirs.map((r) => [r.offset, r.type, r.uri]));
    // Blocks: ours are the stored bytes; warcio's re-serialized head may differ in header case only.
    for (let i = 0; i < ours.length; i++) {
      assert.equal(ours[i]!.block.length > 0, theirs[i]!.block.length > 0, `record ${i}`);
      assert.ok(ours[i]!.block.toLowerCase().endsWith(theirs[i]!.block.slice(theirs[i]!.block.indexOf('\r\n\r\n')).toLowerCase()), `record ${i} body`);
    }
  });

  it('gives the same records from an uncompressed file, a whole-file gzip and the streaming inflate', async () => {
    const reference = (await collect(gz)).map((r) => [r.type, r.uri, r.block]);
    const plainRecords = await collect(plain);
    assert.deepEqual(plainRecords.map((r) => [r.type, r.uri, r.block]), reference);
    // Uncompressed: offsets are exact byte positions where "WARC/" starts.
    const bytes = await fs.readFile(plain);
    for (const r of plainRecords) assert.equal(bytes.toString('latin1', r.offset, r.offset + 5), 'WARC/');
    assert.deepEqual((await collect(wholeGz)).map((r) => [r.type, r.uri, r.block]), reference);
    // Every member through zlib's stream instead of one call.
    const streamed = { ...KEEP, syncMaxOutputBytes: 1000, syncMaxInputBytes: 1000 };
    assert.deepEqual((await collect(gz, streamed)).map((r) => [r.offset, r.type, r.uri, r.block]), (await collect(gz)).map((r) => [r.offset, r.type, r.uri, r.block]));
    assert.deepEqual((await collect(wholeGz, streamed)).map((r) => [r.type, r.uri, r.block]), reference);
  });

  it('keeps blocks of the types asked for only, up to the cap', async () => {
    const none = await collect(gz, { ...KEEP, keepBlockOf: new Set() });
    assert.ok(none.every((r) => r.block === ''));
    const capped = await collect(plain, { ...KEEP, maxKeptBlockBytes: 100 });
    assert.ok(capped.every((r) => r.block.length <= 100));
    assert.deepEqual(capped.map((r) => r.block), (await collect(plain)).map((r) => r.block.slice(0, 100)));
  });

  it('strips the <…> GNU wget wraps target URIs in, and parses the HTTP head', async () => {
    const file = path.join(dir, 'wget.warc');
    const page = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Folded: a\r\n  b\r\ncontent-type: image/png\r\n\r\n<a href=x>';
    const head = `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://w.test/x>\r\nContent-Length: ${page.length}\r\n\r\n`;
    await fs.writeFile(file, head + page + '\r\n\r\n');
    const [r] = await collect(file);
    assert.equal(r!.uri, 'http://w.test/x');
    const http = parseHttpHead(Buffer.from(r!.block, 'latin1'))!;
    assert.equal(http.status, 200);
    assert.equal(http.headers.get('content-type'), 'text/html');
    assert.equal(http.headers.get('x-folded'), 'a b');
    assert.equal(r!.block.slice(http.bodyStart), '<a href=x>');
    assert.equal(parseHttpHead(Buffer.alloc(0)), null);
    assert.ok(Number.isNaN(parseHttpHead(Buffer.from('garbage\r\n\r\n'))!.status));
  });

  async function problem(bytes: Buffer, name: string): Promise<{ records: Seen[]; error: WarcFormatError | null }> {
    const file = path.join(dir, name);
    await fs.writeFile(file, bytes);
    const records: Seen[] = [];
    try {
      for await (const r of readWarcRecords(file, KEEP)) records.push({ ...seen(r), block: r.truncated ? 'TRUNCATED' : '' });
    } catch (err) {
      if (!(err instanceof WarcFormatError)) throw err;
      return { records, error: err };
    }
    return { records, error: null };
  }

  it('reports a truncated gzip member, a truncated head, a bad CRC and garbage with their offsets', async () => {
    const good = await fs.readFile(gz);
    const offsets = (await collect(gz)).map((r) => r.offset);
    const cut = offsets[10]! + 40; // inside the 11th member
    const truncated = await problem(good.subarray(0, cut), 'cut.warc.gz');
    assert.equal(truncated.records.length, 10);
    assert.deepEqual([truncated.error?.problem, truncated.error?.offset], ['truncated', offsets[10]]);

    // The same cut in a whole-file gzip: the records before it are still read.
    const whole = await fs.readFile(wholeGz);
    const wholeCut = await problem(whole.subarray(0, Math.floor(whole.length * 0.6)), 'wholecut.warc.gz');
    assert.ok(wholeCut.records.length > 5 && wholeCut.records.length < 33, String(wholeCut.records.length));
    assert.deepEqual([wholeCut.error?.problem, wholeCut.error?.offset], ['truncated', 0]);

    const badCrc = Buffer.from(good);
    const trailerOfFirst = offsets[1]! - 8;
    badCrc[trailerOfFirst] = badCrc[trailerOfFirst]! ^ 0xff;
    const crc = await problem(badCrc, 'crc.warc.gz');
    assert.deepEqual([crc.records.length, crc.error?.problem, crc.error?.offset], [0, 'corrupt', 0]);

    const garbage = await problem(Buffer.concat([good.subarray(0, offsets[2]!), Buffer.from('not gzip at all'), good.subarray(offsets[2]!)]), 'garbage.warc.gz');
    assert.deepEqual([garbage.records.length, garbage.error?.problem, garbage.error?.offset], [2, 'corrupt', offsets[2]]);

    const plainBytes = await fs.readFile(plain);
    const plainOffsets = (await collect(plain)).map((r) => r.offset);
    const headCut = await problem(plainBytes.subarray(0, plainOffsets[3]! + 30), 'headcut.warc');
    assert.deepEqual([headCut.records.length, headCut.error?.problem, headCut.error?.offset], [3, 'truncated', plainOffsets[3]]);
    const blockCut = await problem(plainBytes.subarray(0, plainOffsets[4]! - 30), 'blockcut.warc');
    assert.deepEqual(blockCut.records.map((r) => r.block), ['', '', '', 'TRUNCATED']);
    assert.equal(blockCut.error, null);
    const notRecord = await problem(Buffer.concat([plainBytes.subarray(0, plainOffsets[1]!), Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), plainBytes.subarray(plainOffsets[1]!)]), 'norecord.warc');
    assert.deepEqual([notRecord.records.length, notRecord.error?.problem, notRecord.error?.offset], [1, 'not-a-record', plainOffsets[1]]);
  });

  async function damaged(bytes: Buffer, name: string, from?: { start: number; length: number }): Promise<{ records: Seen[]; damage: WarcDamage[] }> {
    const file = path.join(dir, name);
    await fs.writeFile(file, bytes);
    const damage: WarcDamage[] = [];
    const records: Seen[] = [];
    const source = from === undefined ? file : { path: file, name, start: from.start, length: from.length };
    for await (const r of readWarcRecords(source, { ...KEEP, onDamage: (d) => damage.push(d) })) records.push({ ...seen(r), block: r.truncated ? 'TRUNCATED' : '' });
    return { records, damage };
  }

  it('with onDamage, reports each damaged stretch and reads on after it', async () => {
    const good = await fs.readFile(gz);
    const offsets = (await collect(gz)).map((r) => r.offset);
    // Garbage over the middle of the 4th member: the other 32 records are read.
    const bad = Buffer.from(good);
    bad.fill(0x41, offsets[3]! + 30, offsets[3]! + 60);
    const corrupt = await damaged(bad, 'corrupt.warc.gz');
    assert.deepEqual(corrupt.records.map((r) => r.offset), offsets.filter((_, i) => i !== 3));
    assert.equal(corrupt.damage.length, 1);
    assert.deepEqual(
      { ...corrupt.damage[0]!, detail: '' },
      { file: path.join(dir, 'corrupt.warc.gz'), problem: 'corrupt', offset: offsets[3], resumeAt: offsets[4], size: good.length, detail: '' },
    );
    assert.equal(
      describeWarcDamage({ ...corrupt.damage[0]!, file: 'x.warc.gz', detail: 'bad' }),
      `x.warc.gz: corrupt data at offset ${offsets[3]} (bad); skipped ${(offsets[4]! - offsets[3]!).toLocaleString('en-US')} bytes, read on from offset ${offsets[4]}`,
    );

    // Bytes that look like a gzip header inside garbage are no member: reading goes on at a real one.
    const fake = Buffer.concat([good.subarray(0, offsets[2]!), Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff]), good.subarray(offsets[2]!)]);
    const faked = await damaged(fake, 'fake.warc.gz');
    assert.equal(faked.records.length, 33);
    assert.deepEqual([faked.damage[0]!.offset, faked.damage[0]!.resumeAt], [offsets[2], offsets[2]! + 12]);

    // Cut inside a member: the rest of the file.
    const cut = await damaged(good.subarray(0, offsets[10]! + 40), 'cut2.warc.gz');
    assert.equal(cut.records.length, 10);
    assert.deepEqual([cut.damage[0]!.problem, cut.damage[0]!.offset, cut.damage[0]!.resumeAt], ['truncated', offsets[10], null]);

    // An uncompressed file: garbage where a record should start, then the next "WARC/" line.
    const plainBytes = await fs.readFile(plain);
    const plainOffsets = (await collect(plain)).map((r) => r.offset);
    const junk = Buffer.from('HTTP/1.1 200 OK\r\nnot a record\r\n\r\n');
    const plainBad = await damaged(Buffer.concat([plainBytes.subarray(0, plainOffsets[1]!), junk, plainBytes.subarray(plainOffsets[1]!)]), 'junk.warc');
    assert.equal(plainBad.records.length, 33);
    assert.deepEqual(
      [plainBad.damage[0]!.problem, plainBad.damage[0]!.offset, plainBad.damage[0]!.resumeAt],
      ['not-a-record', plainOffsets[1], plainOffsets[1]! + junk.length],
    );
    // A block cut short: returned marked, and reported.
    const blockCut = await damaged(plainBytes.subarray(0, plainOffsets[4]! - 30), 'blockcut2.warc');
    assert.deepEqual(blockCut.records.map((r) => r.block), ['', '', '', 'TRUNCATED']);
    assert.deepEqual([blockCut.damage[0]!.problem, blockCut.damage[0]!.offset, blockCut.damage[0]!.uri], ['truncated', plainOffsets[3], 'http://w.test/3']);

    const notWarc = await damaged(Buffer.from('hello, not a warc\n'), 'notes.txt');
    assert.deepEqual([notWarc.records.length, notWarc.damage[0]!.problem], [0, 'not-a-warc']);
  });

  it('reads a WARC stored inside a larger file (a WACZ) as a byte range, offsets counted from its start', async () => {
    const good = await fs.readFile(gz);
    const wrapped = Buffer.concat([Buffer.alloc(1000, 0x50), good, Buffer.alloc(500, 0x50)]);
    const inside = await damaged(wrapped, 'wrapped.bin', { start: 1000, length: good.length });
    assert.deepEqual(inside.damage, []);
    assert.deepEqual(inside.records.map((r) => [r.offset, r.uri]), (await collect(gz)).map((r) => [r.offset, r.uri]));
  });
});
