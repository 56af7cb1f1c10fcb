/**
 * Link extraction and body decoding: what counts as a
 * link, base and fragments, and bodies stored chunked, compressed or in a
 * legacy charset.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { BodyDecodeError } from '../../src/core/errors.js';
import { decodeText, detectCharset } from '../../src/fetch/charset.js';
import { dechunk, decodeContent } from '../../src/fetch/content-decoding.js';
import { extractLinks } from '../../src/analysis/html-links.js';
import { resolveLinks } from '../../src/analysis/link-extract.js';
import { mulberry32 } from '../helpers/prng.js';

const page = new URL('http://host.test/dir/page.html');

describe('extractLinks', () => {
  it('takes a/area href and iframe/frame src, not markup inside scripts, styles or textareas', () => {
    const html = `<!doctype html><title> Hello &amp;\n world </title>
      <script>document.write('<a href="in-script">')</script><style>/* <a href="in-style"> */</style>
      <a href="x.html#frag">x</a><AREA HREF='area.html'><iframe src="f.html"><a href="in-iframe"></iframe>
      <frame src="fr.html"><textarea><a href="in-textarea"></textarea><noscript><a href="ns.html"></a></noscript>
      <link href="style.css" rel=stylesheet><img src="i.png"><a name=x>`;
    const l = extractLinks(html);
    assert.deepEqual(l.hrefs, ['x.html#frag', 'area.html', 'f.html', 'fr.html', 'ns.html']);
    assert.equal(l.title, 'Hello & world');
    assert.equal(l.baseHref, null);
  });

  it('reads links of svg <a>, where <style> is ordinary markup', () => {
    const l = extractLinks('<svg><a xlink:href="s.html"></a><style><a href="t.html"></a></style></svg><script><a href="no"></script>');
    assert.deepEqual(l.hrefs, ['s.html', 't.html']);
  });

  it('resolves against the first <base href>, drops fragments and non-http schemes', () => {
    const l = extractLinks(
      `<a href="before.html"></a><base href="/sub/"><base href="/ignored/"><a href="x#y"></a><a href="mailto:a@b"></a>
       <a href="javascript:void(0)"></a><a href="#top"></a><a href="  //other.test/p  "></a><a href="http://[bad"></a>
       <a href="HTTPS://Ex.TEST:443/q?a=1#h"></a><a href="ftp://f.test/"></a><a href=""></a>`,
    );
    assert.deepEqual(resolveLinks(page, l), [
      'http://host.test/sub/before.html',
      'http://host.test/sub/x',
      'http://other.test/p',
      'https://ex.test/q?a=1',
    ]);
  });
});

describe('resolveLinks', () => {
  it('resolves as the URL parser does, plain references included (which skip the parser)', () => {
    // Pieces chosen to hit what the parser rewrites: dot segments (also %2e), characters it percent-encodes, '\\', fragments, schemes.
    const pieces = ['a', 'Z', '1', '/', '/', '.', '%', '2', 'e', 'E', '?', ':', "'", '^', '`', '#', '\\', ' ', '~', '@', '|', '[', ']', 'é', '&', '=',
      '%2e', '%2E', '..', './', '../', '//', 'http:', 'x:', '{', '"', '<', '\t', '!', '$', '(', '*', ','];
    const bases = ['http://h.test/', 'http://h.test/a/b/c.html', 'https://u:p@h.test:8443/dir/?q=1', 'http://[::1]:8080/x/y', 'https://xn--bcher-kva.test/ä/ö', 'http://h.test/a?x#f'];
    const rand = mulberry32(12);
    for (let i = 0; i < 20000; i++) {
      let href = '';
      for (let k = 1 + Math.floor(rand() * 8); k > 0; k--) href += pieces[Math.floor(rand() * pieces.length)];
      const base = new URL(bases[Math.floor(rand() * bases.length)]!);
      let want: string[] = [];
      const trimmed = href.trim();
      if (trimmed !== '' && !trimmed.startsWith('#')) {
        // new URL rather than URL.canParse, which node 20 answers differently for some inputs ("http:é" on an https base).
        let u: URL | null = null;
        try {
          u = new URL(trimmed, base);
        } catch {
          u = null;
        }
        if (u !== null && (u.protocol === 'http:' || u.protocol === 'https:')) want = [u.href.split('#')[0]!];
      }
      assert.deepEqual(resolveLinks(base, { hrefs: [href], baseHref: null, title: '' }), want, `${JSON.stringify(href)} against ${base.href}`);
    }
  });
});

describe('body decoding', () => {
  const text = Buffer.from('<html>héllo</html>');

  it('removes chunked framing, and leaves an already de-chunked body alone', () => {
    const chunked = Buffer.concat([Buffer.from('5\r\n<html\r\n'), Buffer.from('e;ext=1\r\n>héllo</html>\r\n0\r\n\r\n')]);
    assert.deepEqual(Buffer.from(dechunk(chunked)), Buffer.from('<html>héllo</html>'));
    assert.deepEqual(Buffer.from(dechunk(text)), text);
  });

  it('undoes gzip, deflate (zlib and raw), br and stacked encodings', () => {
    for (const [enc, body] of [
      ['gzip', zlib.gzipSync(text)],
      ['x-gzip', zlib.gzipSync(text)],
      ['deflate', zlib.deflateSync(text)],
      ['deflate', zlib.deflateRawSync(text)],
      ['br', zlib.brotliCompressSync(text)],
      ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))],
      ['identity', text],
    ] as const) {
      assert.deepEqual(Buffer.from(decodeContent(body, enc)), text, enc);
    }
  });

  it('keeps what a truncated gzip body inflates to', () => {
    const big = Buffer.from('<a href="x">'.repeat(2000));
    const gz = zlib.gzipSync(big);
    const out = Buffer.from(decodeContent(gz.subarray(0, gz.length - 20), 'gzip')).toString();
    assert.ok(out.length > 1000 && big.toString().startsWith(out));
  });

  it('throws BodyDecodeError on corrupt data and unknown encodings', () => {
    const corrupt = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), Buffer.alloc(50, 0xff)]);
    for (const [body, enc] of [[corrupt, 'gzip'], [text, 'compress'], [Buffer.alloc(40, 0xee), 'br']] as const) {
      assert.throws(() => decodeContent(body, enc), (e: unknown) => e instanceof BodyDecodeError && e.code === 'ARCHIVER_BODY_UNDECODABLE');
    }
  });

  it('honours the charset from Content-Type, BOM and <meta>', () => {
    const gbk = Buffer.concat([Buffer.from('<meta charset="gbk"><title>'), Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), Buffer.from('</title>')]);
    const cs = detectCharset(gbk, 'text/html');
    assert.equal(cs, 'gbk');
    assert.equal(extractLinks(decodeText(gbk, cs)).title, '你好');
    const big5 = Buffer.from([0xa7, 0x41, 0xa6, 0x6e]);
    assert.equal(detectCharset(big5, 'text/html; charset="Big5"'), 'big5');
    assert.equal(decodeText(big5, 'big5'), '你好');
    assert.equal(detectCharset(Buffer.from('<p>'), 'text/html; charset=bogus'), 'utf-8');
    assert.equal(detectCharset(Buffer.from([0xef, 0xbb, 0xbf, 0x41]), 'text/html; charset=gbk'), 'utf-8');
    // The label as TextDecoder names the decoder: ISO-8859-1 is read as windows-1252, as browsers do.
    assert.equal(detectCharset(Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'), null), 'windows-1252');
  });
});
