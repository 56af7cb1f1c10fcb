/**
 * Decoding stored bodies for extraction: every Content-Encoding we offer,
 * a gzip bomb that must stop at the cap, truncated input, and charset
 * detection for the legacy encodings our seeds' web uses (GBK, Big5).
 * Non-UTF-8 bytes are spelled out by hand, since Node cannot encode them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { bufferBody } from '../../src/core/buffer-body.js';
import { decodeText, detectCharset } from '../../src/fetch/charset.js';
import { bodyText, decodeBody, decodeContentEncoding } from '../../src/fetch/content-decoding.js';
import { gunzipBufferBytes } from '../../src/fetch/gzip-framing.js';
import { extractHtml } from '../../src/fetch/link-extractor.js';

async function* chunksOf(buf: Buffer, size = 1000): AsyncIterable<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}
const TEXT = Buffer.from('<html><a href="/x">x</a></html>'.repeat(200));

// GBK: 中 D6D0, 文 CEC4, 页 D2B3.  Big5: 中 A4A4, 文 A4E5.
const GBK_ZHONGWEN = Buffer.from([0xd6, 0xd0, 0xce, 0xc4]);
const BIG5_ZHONGWEN = Buffer.from([0xa4, 0xa4, 0xa4, 0xe5]);
const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('decodeContentEncoding', () => {
  for (const [label, encode] of [
    ['gzip', zlib.gzipSync],
    ['x-gzip', zlib.gzipSync],
    ['br', zlib.brotliCompressSync],
    ['deflate', zlib.deflateSync],
  ] as const) {
    it(`decodes ${label}`, async () => {
      const out = await decodeContentEncoding(chunksOf(encode(TEXT)), label, 1 << 20);
      assert.ok(out.bytes.equals(TEXT));
      assert.equal(out.capped, false);
      assert.equal(out.complete, true);
    });
  }

  it('decodes raw deflate (no zlib wrapper), as many servers send it', async () => {
    const out = await decodeContentEncoding(chunksOf(zlib.deflateRawSync(TEXT), 1), 'deflate', 1 << 20);
    assert.ok(out.bytes.equals(TEXT));
  });

  it('undoes stacked codings last first', async () => {
    const out = await decodeContentEncoding(chunksOf(zlib.brotliCompressSync(zlib.gzipSync(TEXT))), 'gzip, br', 1 << 20);
    assert.ok(out.bytes.equals(TEXT));
  });

  it('passes identity through and caps it too', async () => {
    const out = await decodeContentEncoding(chunksOf(TEXT), undefined, 100);
    assert.ok(out.bytes.equals(TEXT.subarray(0, 100)));
    assert.equal(out.capped, true);
  });

  it('stops a gzip bomb at the cap', async () => {
    // 64 MiB of zeros compresses to about 64 KiB.
    const gz = zlib.createGzip({ level: 9 });
    const compressed: Buffer[] = [];
    gz.on('data', (c: Buffer) => compressed.push(c));
    const zeros = Buffer.alloc(1 << 20);
    for (let i = 0; i < 64; i++) gz.write(zeros);
    await new Promise<void>((resolve) => gz.end(resolve));
    const bomb = Buffer.concat(compressed);
    assert.ok(bomb.length < 1 << 20);
    const buffersBefore = process.memoryUsage().arrayBuffers;
    const out = await decodeContentEncoding(chunksOf(bomb, 16384), 'gzip', 2 << 20);
    assert.equal(out.bytes.length, 2 << 20);
    assert.equal(out.capped, true);
    assert.ok(out.bytes.every((b) => b === 0));
    // Well below the 64 MiB a full inflate would need.
    assert.ok(process.memoryUsage().arrayBuffers - buffersBefore < 32 << 20);
  });

  it('returns what it could decode from a truncated gzip body, marked incomplete', async () => {
    const gz = zlib.gzipSync(TEXT);
    const out = await decodeContentEncoding(chunksOf(gz.subarray(0, Math.floor(gz.length / 2))), 'gzip', 1 << 20);
    assert.ok(out.bytes.length > 0);
    assert.ok(TEXT.subarray(0, out.bytes.length).equals(out.bytes));
    assert.equal(out.complete, false);
  });

  // Regression: the decoders ended on a sync flush, which never fails, so a
  // body cut short (here, only its 8-byte gzip trailer or the last deflate
  // bytes missing) came back as complete.
  it('marks a body cut short as incomplete under every coding, on both paths, keeping all it holds', async () => {
    const codings: Array<[string, Buffer]> = [
      ['gzip', zlib.gzipSync(TEXT)],
      ['deflate', zlib.deflateSync(TEXT)],
      ['deflate', zlib.deflateRawSync(TEXT)],
      ['br', zlib.brotliCompressSync(TEXT)],
    ];
    for (const [coding, whole] of codings) {
      const streamed = await decodeContentEncoding(chunksOf(whole, 7), coding, 1 << 20);
      assert.deepEqual([streamed.complete, streamed.bytes.equals(TEXT)], [true, true], `${coding} whole`);
      for (const cut of [1, 4, 8]) {
        const short = whole.subarray(0, whole.length - cut);
        for (const out of [await decodeContentEncoding(chunksOf(short), coding, 1 << 20), await decodeBody(bufferBody(short), coding, 1 << 20)]) {
          assert.equal(out.complete, false, `${coding} without its last ${cut} bytes`);
          assert.ok(TEXT.subarray(0, out.bytes.length).equals(out.bytes), `${coding}: a prefix of the text`);
        }
      }
    }
    const gz = zlib.gzipSync(TEXT);
    const noTrailer = await decodeContentEncoding(chunksOf(gz.subarray(0, gz.length - 8)), 'gzip', 1 << 20);
    assert.ok(noTrailer.bytes.equals(TEXT), 'everything before the trailer is still decoded');
  });

  it('returns the stored bytes, marked incomplete, for an unknown coding', async () => {
    const out = await decodeContentEncoding(chunksOf(TEXT), 'zstd', 1 << 20);
    assert.ok(out.bytes.equals(TEXT));
    assert.equal(out.complete, false);
    assert.equal(out.capped, false);
  });

  it('reports garbage under a known coding as incomplete instead of throwing', async () => {
    const out = await decodeContentEncoding(chunksOf(Buffer.from('definitely not gzip data')), 'gzip', 1 << 20);
    assert.equal(out.complete, false);
    assert.equal(out.capped, false);
    assert.equal(out.bytes.length, 0);
  });

  it('reports garbage after a valid start as incomplete, keeping the decoded start', async () => {
    const gz = zlib.gzipSync(TEXT);
    // A gzip member whose deflate stream is cut short and followed by junk.
    const broken = Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from('junk junk junk junk')]);
    const out = await decodeContentEncoding(chunksOf(broken), 'gzip', 1 << 20);
    assert.equal(out.complete, false);
    assert.ok(TEXT.subarray(0, out.bytes.length).equals(out.bytes));
  });
});

describe('charset detection and decoding', () => {
  it('takes the Content-Type charset', () => {
    assert.equal(detectCharset(GBK_ZHONGWEN, 'text/html; charset=GBK'), 'gbk');
    assert.equal(detectCharset(BIG5_ZHONGWEN, 'text/html;charset="big5"'), 'big5');
    assert.equal(decodeText(GBK_ZHONGWEN, 'gbk'), '中文');
    assert.equal(decodeText(BIG5_ZHONGWEN, 'big5'), '中文');
  });

  it('falls back to <meta charset> and <meta http-equiv> in the first 1024 bytes', () => {
    assert.equal(detectCharset(Buffer.concat([ascii('<head><meta charset="gb2312">'), GBK_ZHONGWEN]), 'text/html'), 'gbk');
    const big5 = Buffer.concat([ascii('<meta http-equiv="Content-Type" content="text/html; charset=big5">'), BIG5_ZHONGWEN]);
    assert.equal(detectCharset(big5, undefined), 'big5');
    const late = Buffer.concat([ascii(' '.repeat(1100) + '<meta charset="big5">'), BIG5_ZHONGWEN]);
    assert.notEqual(detectCharset(late, undefined), 'big5');
  });

  it('prefers a BOM, and sniffs UTF-8 versus windows-1252 when nothing is declared', () => {
    assert.equal(detectCharset(Buffer.from([0xff, 0xfe, 0x41, 0x00]), 'text/html; charset=iso-8859-1'), 'utf-16le');
    assert.equal(detectCharset(Buffer.from('café', 'utf8'), undefined), 'utf-8');
    const latin = Buffer.from('caf\xe9 cr\xe8me', 'latin1');
    assert.equal(detectCharset(latin, undefined), 'windows-1252');
    assert.equal(decodeText(latin, 'windows-1252'), 'café crème');
    // A multi-byte sequence cut by the decode cap does not make UTF-8 look like windows-1252.
    assert.equal(detectCharset(Buffer.from('crème', 'utf8').subarray(0, 3), undefined), 'utf-8');
  });

  it('falls back to utf-8 on unknown labels without throwing', () => {
    assert.equal(detectCharset(Buffer.from('ok'), 'text/html; charset=no-such-charset'), 'utf-8');
    assert.equal(decodeText(Buffer.from('é', 'utf8'), 'no-such-charset'), 'é');
  });

  it('GBK page: non-ASCII link text and URLs come out right', async () => {
    const page = Buffer.concat([
      ascii('<html><head><meta charset="gbk"><title>'), GBK_ZHONGWEN, ascii('</title></head><body><a href="/'),
      GBK_ZHONGWEN, ascii('/page.html">'), GBK_ZHONGWEN, ascii('</a></body></html>'),
    ]);
    const headers = [['Content-Type', 'text/html'], ['Content-Encoding', 'gzip']] as const;
    const { text, charset } = await bodyText(bufferBody(zlib.gzipSync(page)), headers, 1 << 20);
    assert.equal(charset, 'gbk');
    const ex = extractHtml(text, 'http://site-a.test/dir/');
    assert.equal(ex.title, '中文');
    assert.deepEqual(ex.links, [{ url: 'http://site-a.test/%E4%B8%AD%E6%96%87/page.html', hop: 'L', context: 'a/@href' }]);
  });

  it('Big5 page declared in the header: non-ASCII URLs resolve against the page', async () => {
    const page = Buffer.concat([ascii('<title>'), BIG5_ZHONGWEN, ascii('</title><img src="'), BIG5_ZHONGWEN, ascii('.png">')]);
    const { text } = await bodyText(bufferBody(page), [['content-type', 'text/html; charset=big5']], 1 << 20);
    const ex = extractHtml(text, 'http://site-b.test/a/b.html');
    assert.equal(ex.title, '中文');
    assert.deepEqual(ex.links, [{ url: 'http://site-b.test/a/%E4%B8%AD%E6%96%87.png', hop: 'E', context: 'img/@src' }]);
  });
});

describe('decodeBody (one-shot path for small stored bodies)', () => {
  const html = Buffer.from('<html><body>' + 'hello archive '.repeat(500) + '</body></html>');

  it('gzip, deflate (both forms) and br decode in one call', async () => {
    for (const [coding, bytes] of [
      ['gzip', zlib.gzipSync(html)],
      ['deflate', zlib.deflateSync(html)],
      ['deflate', zlib.deflateRawSync(html)],
      ['br', zlib.brotliCompressSync(html)],
      ['', html],
    ] as const) {
      const out = await decodeBody(bufferBody(bytes), coding, 1 << 20);
      assert.ok(out.bytes.equals(html), coding);
      assert.equal(out.capped, false);
    }
  });

  it('a gzip bomb falls back to the capped streaming path', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024));
    const out = await decodeBody(bufferBody(bomb), 'gzip', 64 * 1024);
    assert.equal(out.bytes.length, 64 * 1024);
    assert.equal(out.capped, true);
  });

  it('a truncated gzip body still yields its decodable start', async () => {
    const gz = zlib.gzipSync(html);
    const out = await decodeBody(bufferBody(gz.subarray(0, Math.floor(gz.length / 2))), 'gzip', 1 << 20);
    assert.ok(out.bytes.length > 0 && html.subarray(0, out.bytes.length).equals(out.bytes));
  });

  it('inflates into the size the gzip trailer gives, and gets the same bytes where the trailer is wrong', async () => {
    const big = Buffer.from('<p><a href="/api/x.html">x</a></p>\n'.repeat(60_000)); // ~2.2 MB, deflates far more than 6:1
    const gz = zlib.gzipSync(big);
    assert.equal(gunzipBufferBytes(gz), big.length + 1);
    // Two members: the trailer names the last one's size only; the buffer then doubles as it did before.
    const twoMembers = Buffer.concat([gz, zlib.gzipSync(html)]);
    assert.equal(gunzipBufferBytes(twoMembers), html.length + 1);
    // A trailer that claims more than deflate can reach is not believed.
    const lying = Buffer.from(zlib.gzipSync(html));
    lying.writeUInt32LE(0xfffffff0, lying.length - 4);
    assert.equal(gunzipBufferBytes(lying), lying.length * 6 + 1024);
    assert.equal(gunzipBufferBytes(html), Math.min(html.length * 6 + 1024, 1 << 20), 'not gzip: the guess');
    for (const [label, body, want] of [
      ['trailer right', gz, big],
      ['two members (zlib stops after the first, as gunzipSync does)', twoMembers, zlib.gunzipSync(twoMembers)],
    ] as const) {
      const out = await decodeBody(bufferBody(body), 'gzip', 32 * 1024 * 1024);
      assert.ok(out.bytes.equals(want), label);
      assert.equal(out.complete, true, label);
    }
    // zlib checks the trailer itself: a wrong one makes the body incomplete, its text all there (below).
    const out = await decodeBody(bufferBody(lying), 'gzip', 32 * 1024 * 1024);
    assert.equal(out.complete, false);
    assert.ok(out.bytes.equals(html));
  });

  it('a gzip body whose trailer is wrong gives its whole text, marked incomplete; corrupt data still falls back', async () => {
    const gz = zlib.gzipSync(html);
    const badCrc = Buffer.from(gz);
    badCrc.writeUInt32LE((badCrc.readUInt32LE(badCrc.length - 8) ^ 0xffff) >>> 0, badCrc.length - 8);
    // With a file name in the header (FNAME), as gzip(1) writes it.
    const named = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3]), Buffer.from('page.html\0', 'latin1'), zlib.deflateRawSync(html), Buffer.alloc(8)]);
    for (const [label, body] of [['bad CRC', badCrc], ['named, zero trailer', named]] as const) {
      const out = await decodeBody(bufferBody(body), 'gzip', 1 << 20);
      assert.ok(out.bytes.equals(html), label);
      assert.equal(out.complete, false, label);
    }
    // Deflate data cut short: the trailer is not the trouble, and the streaming path keeps the decodable start as before.
    const cut = Buffer.concat([gz.subarray(0, Math.floor(gz.length / 2)), gz.subarray(gz.length - 8)]);
    const out = await decodeBody(bufferBody(cut), 'gzip', 1 << 20);
    assert.equal(out.complete, false);
    assert.ok(out.bytes.length < html.length && html.subarray(0, out.bytes.length).equals(out.bytes));
  });
});
