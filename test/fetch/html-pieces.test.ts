/**
 * A large HTML body read in pieces (html-pieces.ts) against the same body
 * read whole (bodyText, then one string): the same links, base, title,
 * meta robots, text and cap, whatever the piece size, on pages of over
 * 1 MiB strung together from what sits badly at a piece's edge (characters
 * of two to four UTF-8 bytes, CRLF, references, script and style, quoted
 * values, a `<base>` early, late, or cut in two), gzip or as they came, the
 * charset declared in a header or a meta tag or sniffed; and what is left
 * to the whole path: small bodies, other codings, UTF-16, corrupt gzip.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { bufferBody } from '../../src/core/buffer-body.js';
import { extractStored, MAX_DECODED_BYTES } from '../../src/crawl/extract-for.js';
import { bodyText } from '../../src/fetch/content-decoding.js';
import { htmlPieces, PIECE_BYTES, PIECED_MIN_BYTES, storedHtmlPieces } from '../../src/fetch/html-pieces.js';
import { extractHtml, type HtmlExtraction } from '../../src/fetch/link-extractor.js';
import { mulberry32 } from '../helpers/prng.js';

const URL_ = 'http://127.0.0.1:8080/docs/api/page.html';

const PARTS = [
  '<p>Plain words and more words.</p>\n', '<p>Café crème, naïve — “quotes”.</p>\r\n', '<p>中文页面的文本。</p>', '<p>Emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.</p>',
  '<a href="other.html">other</a> ', '<a href="../up/index.html#frag">up</a>\n', '<a href="/abs/path?q=1&amp;r=2">abs</a>', '<a href="https://example.org/x">ext</a>',
  '<a href="sub/页面.html">cjk</a>', '<a href="#only-fragment">frag</a>', "<a href='single.html' title=\"t\">s</a>", '<img src="img/pic.png" alt="p" srcset="a.png 1x, b.png 2x">',
  '<script>var x = "<a href=\\"no.html\\">";\r\n</script>', '<style>body { background: url(bg.png) }</style>', '<!-- a comment <a href="c.html"> -->', '&lt;&eacute;&#x1F600;&notit; ',
  '<div style="background-image: url(\'st.png\')">styled</div>', '<link rel="stylesheet" href="s.css">', '<table><tr><td class="c">cell</td></tr></table>\n', '<a\nhref="nl.html"\n>nl</a>',
];

/** A page of over `minBytes` UTF-8 bytes from PARTS, seeded, with `head` first and `body` spliced in at `bodyAt` (a fraction of the way). */
function bigPage(seed: number, opts: { head?: string; insert?: string; insertAt?: number; minBytes?: number } = {}): string {
  const rnd = mulberry32(seed);
  const parts: string[] = [`<!DOCTYPE html><html><head>${opts.head ?? '<meta charset="utf-8">'}<title>Big page ${seed}</title></head><body>`];
  let bytes = 0;
  const min = opts.minBytes ?? PIECED_MIN_BYTES + 200_000;
  let inserted = opts.insert === undefined;
  while (bytes < min) {
    const part = PARTS[Math.floor(rnd() * PARTS.length)]!;
    parts.push(part);
    bytes += Buffer.byteLength(part);
    if (!inserted && bytes >= min * (opts.insertAt ?? 0.5)) {
      parts.push(opts.insert!);
      inserted = true;
    }
  }
  parts.push('</body></html>');
  return parts.join('');
}

const HTML_GZIP: Array<[string, string]> = [['content-type', 'text/html'], ['content-encoding', 'gzip']];

async function wholeExtraction(stored: Buffer, headers: Array<[string, string]>, max = MAX_DECODED_BYTES): Promise<{ page: HtmlExtraction; capped: boolean }> {
  const { text, capped } = await bodyText(bufferBody(stored), headers, max);
  return { page: extractHtml(text, URL_), capped };
}

function piecedExtraction(stored: Buffer, coding: 'gzip' | null, contentType: string, pieceBytes: number, max = MAX_DECODED_BYTES): { page: HtmlExtraction; capped: boolean; longest: number } {
  const pieces = htmlPieces(stored, coding, contentType, max, pieceBytes);
  assert.ok(pieces !== null, 'read in pieces');
  let longest = 0;
  const watched = {
    *[Symbol.iterator]() {
      for (const text of pieces.texts) {
        longest = Math.max(longest, text.length);
        yield text;
      }
    },
  };
  const page = extractHtml({ texts: watched }, URL_);
  return { page, capped: pieces.capped, longest };
}

describe('a large HTML body read in pieces', () => {
  it('gives what the whole body gives, gzip or not, at every piece size, and no piece longer than asked for', async () => {
    for (const seed of [1, 2]) {
      const html = Buffer.from(bigPage(seed));
      const gz = zlib.gzipSync(html, { level: 1 });
      const want = await wholeExtraction(gz, HTML_GZIP);
      assert.ok(want.page.links.length > 10 && want.page.text.length > 1000, 'a page with links and text');
      for (const pieceBytes of [1000, 4093, PIECE_BYTES]) {
        for (const [coding, stored] of [['gzip', gz], [null, html]] as const) {
          const got = piecedExtraction(stored, coding, 'text/html', pieceBytes);
          assert.deepEqual(got.page, want.page, `seed ${seed}, pieces of ${pieceBytes}, ${coding ?? 'identity'}`);
          assert.equal(got.capped, false);
          assert.ok(got.longest <= pieceBytes, `${got.longest} > ${pieceBytes}`);
        }
      }
      // And through the crawl's own door.
      assert.deepEqual(await extractStored(bufferBody(gz), HTML_GZIP, URL_, {}), want);
    }
  });

  it('resolves every link against a <base>, in <head>, after the first links, or cut between two pieces', async () => {
    const base = '<base href="http://127.0.0.1:8080/elsewhere/deep/">';
    const pages = [
      bigPage(3, { head: `<meta charset="utf-8">${base}` }),
      bigPage(4, { insert: base, insertAt: 0.5 }),
      bigPage(5, { head: '<meta charset="utf-8"><link rel="stylesheet" href="first.css">' + base }),
    ];
    // `<base` starting three bytes before the end of a 1000-byte piece (ASCII before it: bytes are characters).
    const ascii = '<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="fav.ico"><title>t</title></head><body><p>';
    pages.push(ascii + 'x'.repeat(1997 - ascii.length) + base + bigPage(6).slice(ascii.length));
    for (const [k, page] of pages.entries()) {
      const html = Buffer.from(page);
      const want = await wholeExtraction(html, [['content-type', 'text/html']]);
      assert.equal(want.page.baseUrl, 'http://127.0.0.1:8080/elsewhere/deep/', `page ${k}`);
      for (const pieceBytes of [1000, PIECE_BYTES]) {
        assert.deepEqual(piecedExtraction(html, null, 'text/html', pieceBytes).page, want.page, `page ${k}, pieces of ${pieceBytes}`);
      }
    }
  });

  it('finds the charset as the whole path does: a header, a meta tag, or sniffed over every byte', async () => {
    const latin = (s: string): Buffer => Buffer.from(s, 'latin1');
    const page = bigPage(7, { head: '' }).replace(/[^\x00-\x7f]/g, 'e');
    const cases: Array<[string, Buffer, string]> = [
      ['utf-8 sniffed', Buffer.from(page), 'text/html'],
      // windows-1252 bytes far past the first 1024: only a sniff over every byte tells it is not UTF-8.
      ['windows-1252 sniffed', Buffer.concat([latin(page.slice(0, 600_000)), latin('<p>caf\xe9 na\xefve</p>'), latin(page.slice(600_000))]), 'text/html'],
      ['header', Buffer.concat([latin(page.slice(0, 600_000)), latin('<p>caf\xe9</p>'), latin(page.slice(600_000))]), 'text/html; charset=windows-1252'],
      ['meta', latin(page.replace('<head>', '<head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">').replace('<p>', '<p>\xe9\xe8 ')), 'text/html'],
    ];
    for (const [label, bytes, type] of cases) {
      const want = await wholeExtraction(bytes, [['content-type', type]]);
      const pieces = htmlPieces(bytes, null, type, MAX_DECODED_BYTES, 4093);
      assert.ok(pieces !== null, label);
      const { text } = await bodyText(bufferBody(bytes), [['content-type', type]], MAX_DECODED_BYTES);
      assert.equal([...pieces.texts].join(''), text, label);
      assert.deepEqual(piecedExtraction(bytes, null, type, 4093).page, want.page, label);
    }
  });

  it('stops at the cap where the whole path does, and says so', async () => {
    const html = Buffer.from(bigPage(8));
    const gz = zlib.gzipSync(html);
    const cap = PIECED_MIN_BYTES + 100_003;
    const want = await wholeExtraction(gz, HTML_GZIP, cap);
    assert.equal(want.capped, true);
    const got = piecedExtraction(gz, 'gzip', 'text/html', 4093, cap);
    assert.equal(got.capped, true);
    assert.deepEqual(got.page, want.page);
  });

  it('leaves small bodies, other codings and UTF-16 to the whole path', async () => {
    const html = Buffer.from(bigPage(9));
    const small = Buffer.from(bigPage(9, { minBytes: 100_000 }));
    assert.equal(await storedHtmlPieces(bufferBody(zlib.gzipSync(small)), HTML_GZIP, MAX_DECODED_BYTES), null, 'small gzip');
    assert.equal(await storedHtmlPieces(bufferBody(small), [['content-type', 'text/html']], MAX_DECODED_BYTES), null, 'small identity');
    assert.equal(await storedHtmlPieces(bufferBody(zlib.brotliCompressSync(html)), [['content-encoding', 'br']], MAX_DECODED_BYTES), null, 'br');
    assert.notEqual(await storedHtmlPieces(bufferBody(zlib.gzipSync(html)), HTML_GZIP, MAX_DECODED_BYTES), null, 'large gzip');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(bigPage(9, { minBytes: 700_000 }), 'utf16le')]);
    assert.equal(htmlPieces(utf16, null, 'text/html', MAX_DECODED_BYTES), null, 'utf-16');
  });

  it('reads a corrupt or cut gzip body whole, keeping what decodes, as before', async () => {
    const gz = zlib.gzipSync(Buffer.from(bigPage(10)));
    const corrupt = Buffer.from(gz);
    for (let i = Math.floor(gz.length * 0.6); i < Math.floor(gz.length * 0.6) + 64; i++) corrupt[i] = corrupt[i]! ^ 0x5a;
    const cut = Buffer.concat([gz.subarray(0, Math.floor(gz.length * 0.7)), gz.subarray(gz.length - 8)]); // a trailer that still names the full size
    for (const [label, body] of [['corrupt', corrupt], ['cut', cut]] as const) {
      const want = await wholeExtraction(body, HTML_GZIP);
      assert.ok(want.page.links.length > 0, `${label}: the whole path keeps the start`);
      assert.deepEqual(await extractStored(bufferBody(body), HTML_GZIP, URL_, {}), want, label);
    }
  });
});
