/**
 * Reading sitemaps: urlsets and indexes, gzip (a .xml.gz file, and gzip
 * content-encoding), plain text, the protocol's limits, lastmod, and XML
 * that is malformed or only nearly a sitemap. Bodies are also fed in tiny
 * pieces, so that no tag, entity or CDATA section read depends on arriving
 * whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { BodyStore } from '../../src/core/exchange.js';
import { lastmodPriority, lastmodTime } from '../../src/sitemap/lastmod.js';
import { readSitemap, type SitemapRead } from '../../src/sitemap/sitemap-read.js';
import { decodeEntities, SitemapXmlScanner } from '../../src/sitemap/sitemap-xml.js';

/** A body streamed in pieces of `piece` bytes. */
function body(bytes: Buffer | string, piece = 64 * 1024): BodyStore {
  const buf = Buffer.from(bytes);
  return {
    size: buf.length,
    async *stream() {
      for (let i = 0; i < buf.length; i += piece) yield buf.subarray(i, i + piece);
    },
    async head(max: number) {
      return buf.subarray(0, max);
    },
    async dispose() {},
  };
}

const urlset = (entries: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries}\n</urlset>\n`;
const url = (loc: string, lastmod?: string) => `  <url><loc>${loc}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}<changefreq>daily</changefreq></url>`;

const RICH = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE urlset [ <!ENTITY x "y"> <!-- a > in here --> ]>
<!-- generator: "x" > y -->
<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>
<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" a='x>y'>
  <sm:url>
    <sm:loc>
      http://example.org/a?x=1&amp;y=2&#38;z=&#x33;
    </sm:loc>
    <image:image><image:loc>http://example.org/img.png</image:loc></image:image>
    <sm:lastmod>2024-05-01T10:00:00+02:00</sm:lastmod>
  </sm:url>
  <sm:url><sm:loc><![CDATA[http://example.org/b?q=<&amp;>]]></sm:loc></sm:url>
  <sm:url><sm:priority>0.5</sm:priority></sm:url>
  <sm:url/>
</sm:urlset>`;

async function both(text: string): Promise<SitemapRead> {
  const whole = await readSitemap(body(text), undefined);
  for (const piece of [1, 2, 3, 7]) {
    assert.deepEqual(await readSitemap(body(text, piece), undefined), whole, `fed ${piece} byte(s) at a time`);
  }
  return whole;
}

test('a urlset: locs (entities decoded, CDATA kept as is, trimmed), lastmod, not the image extension\'s loc', async () => {
  const read = await both(RICH);
  assert.equal(read.format, 'urlset');
  assert.deepEqual(read.entries, [
    { loc: 'http://example.org/a?x=1&y=2&z=3', lastmod: '2024-05-01T10:00:00+02:00' },
    { loc: 'http://example.org/b?q=<&amp;>' },
  ]);
  assert.equal(read.skipped, 2, 'two entries without a loc');
  assert.equal(read.error, null);
  assert.equal(read.limit, null);
});

test('a sitemap index', async () => {
  const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://example.org/s1.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap><sitemap><loc>http://example.org/s2.txt</loc></sitemap></sitemapindex>`;
  const read = await both(index);
  assert.equal(read.format, 'sitemapindex');
  assert.deepEqual(read.entries.map((e) => e.loc), ['http://example.org/s1.xml.gz', 'http://example.org/s2.txt']);
});

test('gzip: a .xml.gz file, gzip content-encoding, and both at once', async () => {
  const xml = urlset([url('http://example.org/1'), url('http://example.org/2')].join('\n'));
  const want = ['http://example.org/1', 'http://example.org/2'];
  const file = gzipSync(xml);
  assert.deepEqual((await readSitemap(body(file, 5), undefined)).entries.map((e) => e.loc), want, 'a gzip file served as it is');
  assert.deepEqual((await readSitemap(body(file, 5), 'gzip')).entries.map((e) => e.loc), want, 'gzip content-encoding');
  assert.deepEqual((await readSitemap(body(gzipSync(file)), 'gzip')).entries.map((e) => e.loc), want, 'a gzip file sent gzip-encoded');
});

test('corrupt gzip: what inflated before the damage stands, flagged', async () => {
  const xml = urlset(Array.from({ length: 2000 }, (_, i) => url(`http://example.org/p${i}`)).join('\n'));
  const file = gzipSync(xml);
  const cut = file.subarray(0, Math.floor(file.length / 2));
  const read = await readSitemap(body(cut), undefined);
  assert.ok(read.entries.length > 0 && read.entries.length < 2000, `${read.entries.length} entries`);
  assert.notEqual(read.error, null);
});

test('plain text: one URL per line, anything else skipped', async () => {
  const read = await both('\uFEFF  http://example.org/a\r\nhttps://example.org/b\n\nnot a url\nftp://example.org/c\n' + 'http://example.org/' + 'x'.repeat(9000) + '\nhttp://example.org/last');
  assert.equal(read.format, 'text');
  assert.deepEqual(read.entries.map((e) => e.loc), ['http://example.org/a', 'https://example.org/b', 'http://example.org/last']);
  assert.equal(read.skipped, 3, 'a word, an ftp URL, an overlong line');
});

test('the 50,000-URL limit: the first 50,000 are kept and the limit is reported', async () => {
  const entries = Array.from({ length: 50_001 }, (_, i) => url(`http://example.org/${i}`)).join('\n');
  const read = await readSitemap(body(urlset(entries)), undefined);
  assert.equal(read.entries.length, 50_000);
  assert.equal(read.entries.at(-1)!.loc, 'http://example.org/49999');
  assert.equal(read.limit, 'urls');
  const exact = await readSitemap(body(urlset(Array.from({ length: 50_000 }, (_, i) => url(`http://example.org/${i}`)).join('\n'))), undefined);
  assert.equal(exact.entries.length, 50_000);
  assert.equal(exact.limit, null, '50,000 is within the limit');
});

test('the byte limit is on the inflated bytes; a file cut there is not malformed', async () => {
  const xml = urlset(Array.from({ length: 1000 }, (_, i) => url(`http://example.org/${i}`)).join('\n'));
  const maxBytes = Math.floor(xml.length / 2);
  const read = await readSitemap(body(gzipSync(xml)), undefined, { maxUrls: 50_000, maxBytes });
  assert.equal(read.limit, 'bytes');
  assert.equal(read.error, null);
  const within = xml.slice(0, maxBytes).match(/<\/url>/g)!.length;
  assert.equal(read.entries.length, within, 'every entry complete within the limit');
  const text = Array.from({ length: 100 }, (_, i) => `http://example.org/${i}`).join('\n');
  const cutText = await readSitemap(body(text), undefined, { maxUrls: 10, maxBytes: 1 << 20 });
  assert.deepEqual([cutText.entries.length, cutText.limit], [10, 'urls']);
});

test('bad XML: reading stops at the fault, the entries before it stand', async () => {
  const mismatched = await both(urlset(`${url('http://example.org/ok')}\n<url><loc>http://example.org/bad</url>\n${url('http://example.org/after')}`));
  assert.deepEqual(mismatched.entries.map((e) => e.loc), ['http://example.org/ok']);
  assert.match(mismatched.error!, /does not close/);
  const truncated = await both(urlset(url('http://example.org/ok')).slice(0, -5));
  assert.deepEqual(truncated.entries.map((e) => e.loc), ['http://example.org/ok']);
  assert.match(truncated.error!, /ends inside/);
  const endless = await readSitemap(body(`<urlset><url a="${'x'.repeat(20_000)}`), undefined);
  assert.match(endless.error!, /tag longer/);
  const tooDeep = await readSitemap(body(`<urlset>${'<a>'.repeat(40)}`), undefined);
  assert.match(tooDeep.error!, /nested deeper/);
});

test('not a sitemap: an HTML page, another XML document, an empty body', async () => {
  assert.equal((await readSitemap(body('<!doctype html><html><body><a href="/x">x</a></body></html>'), undefined)).format, 'other');
  assert.equal((await readSitemap(body('<?xml version="1.0"?><rss><channel/></rss>'), undefined)).format, 'other');
  assert.equal((await readSitemap(body('  \n '), undefined)).format, 'other');
});

test('the scanner stops when told to', () => {
  const seen: string[] = [];
  const scanner = new SitemapXmlScanner((e) => {
    seen.push(e.loc);
    return seen.length < 2;
  });
  scanner.write(urlset([1, 2, 3].map((i) => url(`http://example.org/${i}`)).join('')));
  assert.deepEqual(seen, ['http://example.org/1', 'http://example.org/2']);
  assert.equal(scanner.done, true);
});

test('entities: the predefined five and character references; others left as written', () => {
  assert.equal(decodeEntities('a&amp;b&lt;&gt;&quot;&apos;&#233;&#xE9;&nbsp;&bogus'), 'a&b<>"\'éé&nbsp;&bogus');
});

test('lastmod: W3C datetimes read, priority grows with the date and stays under 1', () => {
  assert.equal(lastmodTime('2024-05-01'), Date.UTC(2024, 4, 1));
  assert.equal(lastmodTime('2024'), Date.UTC(2024, 0, 1));
  assert.equal(lastmodTime('2024-05-01T10:00+02:00'), Date.UTC(2024, 4, 1, 8));
  assert.equal(lastmodTime('2024-05-01T10:00:30.5Z'), Date.UTC(2024, 4, 1, 10, 0, 30, 500));
  for (const bad of ['2024-02-31', 'yesterday', '2024-05-01T10:00', '01/05/2024', '']) assert.equal(lastmodTime(bad), null, bad);
  const older = lastmodPriority('2020-01-01');
  const newer = lastmodPriority('2024-05-01T10:00:00Z');
  assert.ok(older > 0 && older < newer && newer < 1, `${older} < ${newer}`);
  assert.equal(lastmodPriority('not a date'), 0);
});
