/**
 * The hostile web, content side: an endless body, a gzip bomb, binary noise
 * as HTML, a page of 200 000 links, broken/IDN URLs, GBK and Big5 pages,
 * redirect chains and loops, and crawler traps (a calendar nesting deeper,
 * repeated path segments, a doubling query, an endless calendar). The crawl
 * must finish, cut each at the right rule with the right crawl.log status,
 * archive what it fetched exactly, and keep its memory bounded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { extractHtml } from '../../src/fetch/link-extractor.js';
import { ENCODED_LINK_PATHS, GBK_PAGE } from '../fixtures/hostile-encodings.js';
import { HostileWeb, IDN_HOST } from '../fixtures/hostile-web.js';
import { hostileCrawl, linesFor, responseFor, tempRoot, type HostileCrawl } from './hostile-harness.js';

const MiB = 1024 * 1024;
let root: Awaited<ReturnType<typeof tempRoot>>;
let web: HostileWeb;
before(async () => {
  root = await tempRoot();
  // The bomb inflates to twice the extraction cap (32 MiB), from ~64 KiB.
  web = await HostileWeb.start({ firstAddress: 60, bombDecodedBytes: 64 * MiB });
});
after(async () => {
  await web.close();
  await root.remove();
});

describe('an endless body', () => {
  let crawl: HostileCrawl;
  const maxBodyBytes = 96 * MiB;
  before(async () => {
    // A generous whole-fetch deadline: the cut must come from the size, not the clock, on a busy machine.
    crawl = await hostileCrawl(web, root.dir, 'huge', [web.url('main', '/huge')], { limits: { maxBodyBytes, maxFetchDurationMs: 120_000 } });
  });

  test('is cut at maxBodyBytes, marked WARC-Truncated: length', () => {
    const rec = responseFor(crawl, web.url('main', '/huge'));
    assert.equal(rec.warc.get('warc-truncated'), 'length');
    assert.equal(rec.payload.length, maxBodyBytes);
    assert.ok(linesFor(crawl, web.url('main', '/huge'))[0]?.annotations.includes('truncated:length'));
  });

  test('is never held whole in memory: buffers grow by far less than the body', (t) => {
    // Measured on ArrayBuffers (where a Buffer's bytes live), not RSS: the
    // hostile server shares this process, and RSS here moves by tens of MiB
    // for a 16 MiB body as for a 256 MiB one. Buffers grew 30-35 MiB for 16,
    // 64 and 256 MiB bodies alike (pipes, the HTML worker, the server's
    // chunks); a body held in memory adds its whole 96 MiB to that, so the
    // bound (the body's size, ~3x what streaming costs) fails it and nothing
    // else. test/fetch/bounded-memory.test.ts bounds RSS with the server in
    // a child process.
    t.diagnostic(`buffers grew ${(crawl.bufferGrowthBytes / MiB).toFixed(1)} MiB, RSS ${(crawl.rssGrowthBytes / MiB).toFixed(0)} MiB`);
    assert.ok(crawl.bufferGrowthBytes < maxBodyBytes, `buffers grew ${(crawl.bufferGrowthBytes / MiB).toFixed(1)} MiB for a ${maxBodyBytes / MiB} MiB body`);
  });
});

describe('a crawl of hostile content', () => {
  let crawl: HostileCrawl;
  const url = (path: string) => web.url('main', path);
  before(async () => {
    crawl = await hostileCrawl(web, root.dir, 'content', [
      url('/gzip-bomb'),
      url('/garbage'),
      // 200 000 links on one page: extraction reads its first 100 000 (its per-page
      // bound), the crawl takes the first limits.maxOutlinks (6000) of those, and every
      // one of them is refused (out of scope) and logged once.
      url('/many-links?n=200000'),
      url('/bad-urls'),
      url('/gbk'),
      url('/big5'),
      url('/redirect/chain/0'),
      url('/redirect/loop/a'),
      url('/trap/calendar/2024/01/'),
      url('/trap/repeat/0'),
      url('/trap/query?q=x'),
      url('/trap/day?d=0'),
    ], {
      scope: { hosts: [web.host('main'), IDN_HOST], exclude: ['/sink/'] },
      politeness: { maxConnectionsPerHost: 4 },
      // The hostile web is served from this process: while the crawl reads the page of 200 000
      // links, neither it nor the server runs, and on a loaded machine the harness's 500 ms idle
      // timeout then cut the other fetches, closing the host (8 tests failed that way at load 7,
      // old code and new alike; at load 9 the harness's 3 s bound on a whole fetch cut them too,
      // and 10 s idle was not always enough). Nothing here is about timeouts (hostile-transport.test.ts is).
      limits: { maxRedirects: 5, fetchTimeoutMs: 60_000, maxFetchDurationMs: 120_000 },
    });
  });

  test('finishes', () => {
    assert.equal(crawl.summary.status, 'FINISHED');
  });

  test('memory stays bounded (gzip bomb, many links)', () => {
    assert.ok(crawl.rssGrowthBytes < 400 * MiB, `RSS grew ${(crawl.rssGrowthBytes / MiB).toFixed(0)} MiB`);
  });

  test('a gzip bomb is archived as received, its decoding for extraction capped', () => {
    const rec = responseFor(crawl, url('/gzip-bomb'));
    assert.equal(rec.httpHeaders.get('content-encoding'), 'gzip');
    assert.ok(rec.payload.length < 2 * MiB, `stored ${rec.payload.length} bytes`);
    assert.equal(gunzipSync(rec.payload.subarray(0, 64 * 1024), { finishFlush: 2 }).subarray(0, 15).toString(), '<!doctype html>');
    assert.ok(linesFor(crawl, url('/gzip-bomb'))[0]?.annotations.includes('extractCapped'));
    assert.equal(responseFor(crawl, url('/ok/bomb')).status, 200, 'links before the cap are followed');
  });

  test('binary garbage served as text/html is archived byte for byte', () => {
    const rec = responseFor(crawl, url('/garbage'));
    assert.equal(rec.status, 200);
    assert.equal(rec.payload.length, 256 * 1024);
  });

  test('a page of many links: the first maxOutlinks taken, each refused once in crawl.log, none requested, the rest counted', (t) => {
    const refused = crawl.lines.filter((l) => l.url.includes('/sink/'));
    assert.equal(refused.length, 6000);
    assert.equal(new Set(refused.map((l) => l.url)).size, 6000);
    assert.ok(refused.every((l) => l.status === -5000));
    assert.equal(web.requestsTo('main').filter((r) => r.path.startsWith('/sink/')).length, 0);
    const page = linesFor(crawl, url('/many-links?n=200000'))[0];
    assert.ok(page?.annotations.includes('maxOutlinks:194000'), `annotations ${page?.annotations}`);
    t.diagnostic(`RSS grew ${(crawl.rssGrowthBytes / MiB).toFixed(0)} MiB over the crawl (hostile server in this process)`);
  });

  test('invalid and relative-to-nothing URLs are dropped; usable ones fetched, percent-encoded', () => {
    assert.equal(responseFor(crawl, url('/bad-urls')).status, 200);
    const paths = web.requestsTo('main').map((r) => r.path);
    assert.ok(paths.includes('/above-root'), 'dot-segments above the root resolve to the root');
    assert.ok(paths.includes('/ok/p%C3%A4th%20with%20spaces'), paths.filter((p) => p.startsWith('/ok/')).join(' '));
    assert.ok(!crawl.lines.some((l) => /\s|\[|%zz/.test(l.url.replace(/^http:\/\/[^/]+/, '')) && !l.url.includes('%20')));
  });

  test('an IDN host is fetched under its punycode name and matched by its Unicode scope entry', () => {
    const idn = web.requests.filter((r) => r.host.startsWith('xn--bcher-kva.hostile.test'));
    assert.deepEqual(idn.map((r) => r.path).sort(), ['/ok/idn', '/robots.txt']);
    assert.equal(responseFor(crawl, `http://xn--bcher-kva.hostile.test:${web.port}/ok/idn`).status, 200);
  });

  test('GBK and Big5 pages: non-ASCII links decoded with the page\'s charset', () => {
    const paths = new Set(web.requestsTo('main').map((r) => r.path));
    for (const p of ENCODED_LINK_PATHS) assert.ok(paths.has(p), `requested ${p}`);
    assert.ok(responseFor(crawl, url('/gbk')).payload.equals(GBK_PAGE), 'archived as sent, not transcoded');
  });

  test('an endless redirect chain stops at maxRedirects with -4001', () => {
    const chain = crawl.lines.filter((l) => l.url.includes('/redirect/chain/'));
    assert.deepEqual(chain.filter((l) => l.status === 302).length, 6, chain.map((l) => `${l.status} ${l.url}`).join('\n'));
    assert.deepEqual(linesFor(crawl, url('/redirect/chain/6')).map((l) => l.status), [-4001]);
  });

  test('a redirect loop ends at the seen filter: each end fetched once', () => {
    assert.deepEqual(linesFor(crawl, url('/redirect/loop/a')).map((l) => l.status), [302]);
    assert.deepEqual(linesFor(crawl, url('/redirect/loop/b')).map((l) => l.status), [302]);
  });

  test('traps are cut by the path-depth, path-repetition and URL-length rules with -5000', () => {
    const trapLines = (prefix: string) => crawl.lines.filter((l) => l.url.includes(prefix));
    const calendar = trapLines('/trap/calendar/');
    const tooDeep = calendar.filter((l) => l.status === -5000);
    assert.equal(tooDeep.length, 1);
    assert.ok(new URL(tooDeep[0]!.url).pathname.split('/').length - 1 > 20);
    assert.ok(calendar.filter((l) => l.status === 200).length <= 10);

    assert.deepEqual(linesFor(crawl, url('/trap/repeat/a/b/a/b/a/b/')).map((l) => l.status), [-5000]);
    // Same bytes as its parent page, so archived as a revisit: check the log.
    assert.deepEqual(linesFor(crawl, url('/trap/repeat/a/b/a/b/')).map((l) => l.status), [200]);

    const query = trapLines('/trap/query');
    const tooLong = query.filter((l) => l.status === -5000);
    assert.equal(tooLong.length, 1);
    assert.ok(tooLong[0]!.url.length > 2083);
    assert.ok(query.filter((l) => l.status === 200).every((l) => l.url.length <= 2083));
  });

  test('an endless calendar is ended by maxHops (-4001)', () => {
    const days = crawl.lines.filter((l) => l.url.includes('/trap/day'));
    assert.ok(days.some((l) => l.status === -4001));
    assert.ok(days.filter((l) => l.status === 200).length <= 2 * 21);
  });
});

test('extraction from a page of 200 000 links is bounded (link cap)', () => {
  const html = '<!doctype html><body>' + Array.from({ length: 200_000 }, (_, i) => `<a href="/sink/${i}">${i}</a>`).join('\n');
  const rss0 = process.memoryUsage().rss;
  const { links } = extractHtml(html, 'http://127.0.0.1/many');
  assert.ok(links.length > 0 && links.length <= 100_000, `${links.length} links`);
  assert.ok(process.memoryUsage().rss - rss0 < 400 * MiB);
});
