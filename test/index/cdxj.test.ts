/**
 * The CDXJ index of a real crawl, checked against the WARC bytes: every
 * line's offset/length is exactly one gzip member holding that record (same
 * URL, type, date and digest), lines are in bytewise order, and every
 * response/revisit of the WARCs has its line. Also the line format itself
 * and `archiver index`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { formatCdxjLine, parseCdxjLine, timestamp14, isoFromTimestamp14, compareCdxjLines, CdxjFormatError } from '../../src/index/cdxj.js';
import { indexMain } from '../../src/cli/index-command.js';
import { getSurt } from 'warcio';
import { captureIo } from '../helpers/capture.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { crawlJob, recordAt } from '../wacz/crawl-job.js';

let tmp: string;
let web: FixtureWeb;
let dir: string;
let lines: string[];

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-index-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
  ({ dir } = await crawlJob(web, tmp, 'idx'));
  lines = (await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8')).split('\n').filter((l) => l !== '');
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('CDXJ of a crawl', () => {
  test('each line points at exactly the gzip member of its record', async () => {
    assert.ok(lines.length > 10);
    for (const line of lines) {
      const e = parseCdxjLine(line);
      const rec = await recordAt(path.join(dir, 'warcs', e.filename), e.offset, e.length);
      const h = rec.warcHeaders;
      assert.equal(h.get('warc-target-uri'), e.url, line);
      // warcio's getSurt is the key replay looks captures up by: an independent implementation.
      assert.equal(e.key, getSurt(e.url), line);
      assert.equal(timestamp14(h.get('warc-date')!), e.timestamp);
      assert.equal(h.get('warc-payload-digest'), e.digest);
      const type = h.get('warc-type');
      assert.ok(type === 'response' || type === 'revisit', `${type} at ${e.offset}`);
      assert.equal(e.mime === 'warc/revisit', type === 'revisit');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(rec.block.subarray(0, 20).toString('latin1'))?.[1]);
      assert.equal(e.status, status, line);
    }
  });

  test('keys of a few captures, written out by hand (IP octets reversed, as warcio does; query sorted; escapes lower-cased)', () => {
    const keyOf = new Map(lines.map((l) => parseCdxjLine(l)).map((e) => [e.url, e.key]));
    const origin = web.origins[0]!;
    const port = new URL(origin).port;
    assert.equal(new URL(origin).hostname, '127.0.0.2');
    const expected: Array<[string, string]> = [
      [`${origin}/`, `2,0,0,127:${port})/`],
      [`${origin}/about.html`, `2,0,0,127:${port})/about.html`],
      [`${origin}/search?q=archive&lang=en`, `2,0,0,127:${port})/search?lang=en&q=archive`],
      [`${origin}/gbk/%E4%B8%AD%E6%96%87%E9%A1%B5%E9%9D%A2.html`, `2,0,0,127:${port})/gbk/%e4%b8%ad%e6%96%87%e9%a1%b5%e9%9d%a2.html`],
    ];
    for (const [url, key] of expected) assert.equal(keyOf.get(url), key, url);
  });

  test('lines are sorted bytewise and cover every response and revisit', async () => {
    for (let i = 1; i < lines.length; i++) assert.ok(Buffer.compare(Buffer.from(lines[i - 1]!), Buffer.from(lines[i]!)) <= 0, `order at line ${i}`);
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const captures = records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url).sort();
    assert.deepEqual(lines.map((l) => parseCdxjLine(l).url).sort(), captures);
    const statuses = new Set(lines.map((l) => parseCdxjLine(l).status));
    for (const s of [200, 301, 302, 404]) assert.ok(statuses.has(s), `status ${s} indexed`);
  });

  test('archiver index <job> rewrites the same index; WARC files go to stdout', async () => {
    const io = captureIo();
    assert.equal(await indexMain([dir], io), 0);
    assert.deepEqual((await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8')).trimEnd().split('\n'), lines);
    const io2 = captureIo();
    const warcs = (await readWarcDir(path.join(dir, 'warcs'))).map((r) => r.file);
    assert.equal(await indexMain([...new Set(warcs)], io2), 0);
    assert.deepEqual(io2.stdout.text.trimEnd().split('\n'), lines);
  });

  test('a missing input is a NoInputError (exit 4 in main)', async () => {
    await assert.rejects(indexMain([path.join(tmp, 'nope')], captureIo()), { code: 'ARCHIVER_NO_INPUT' });
  });
});

describe('CDXJ lines', () => {
  test('format and parse round-trip; numbers are strings as pywb writes them', () => {
    const e = { key: 'com,example)/a?b=1', timestamp: '20261129193802', url: 'https://www.example.com/a?b=1', mime: 'text/html', status: 200, digest: 'sha1:ABC', length: 12, offset: 345, filename: 'x.warc.gz' };
    const line = formatCdxjLine(e);
    assert.equal(line, 'com,example)/a?b=1 20261129193802 {"url":"https://www.example.com/a?b=1","mime":"text/html","status":"200","digest":"sha1:ABC","length":"12","offset":"345","filename":"x.warc.gz"}');
    assert.deepEqual(parseCdxjLine(line), e);
    assert.throws(() => parseCdxjLine('garbage'), CdxjFormatError);
  });

  test('timestamps: 14 digits in UTC, and back', () => {
    assert.equal(timestamp14('2026-11-29T19:38:02.987Z'), '20261129193802');
    assert.equal(isoFromTimestamp14('20261129193802'), '2026-11-29T19:38:02Z');
    assert.throws(() => timestamp14('yesterday'), { code: 'ARCHIVER_BAD_CDXJ' });
  });

  test('bytewise order: ")" (0x29) sorts before "," (0x2C), as LC_ALL=C sort does', () => {
    const a = 'com,example)/ 2026';
    const b = 'com,example,www)/ 2026';
    assert.ok(compareCdxjLines(a, b) < 0);
    assert.ok(compareCdxjLines('a\u00e9', 'az') > 0, 'UTF-8 bytes, not UTF-16 units');
    // U+FF61 is one UTF-16 unit above the surrogate U+D83D that starts U+1F600, yet below it in UTF-8.
    assert.ok(compareCdxjLines('x\uff61', 'x\u{1f600}') < 0, 'astral characters sort after the BMP');
    assert.ok(compareCdxjLines('x\u{1f600}', 'x\uff61') > 0);
    const words = ['b', 'a)', 'a,', 'a', '\u00e9', 'z\u{1f600}', 'z\uffff', 'z\ud7ff', ''];
    const bytewise = [...words].sort((p, q) => Buffer.compare(Buffer.from(p), Buffer.from(q)));
    assert.deepEqual([...words].sort(compareCdxjLines), bytewise);
  });
});
