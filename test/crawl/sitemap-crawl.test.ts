/**
 * Sitemaps in a crawl. A host whose pages are reachable only through a
 * sitemap index (robots.txt names it) pointing to a gzipped sitemap, a
 * plain one, a plain-text one and one sent gzip-encoded: every page is
 * archived, and so is every sitemap file; what they list passes scope and
 * robots like links, tagged with the manifest hop M in crawl.log; a sitemap
 * on an out-of-scope host is never fetched. Also: robots.txt read for its
 * Sitemap lines only under robots.policy ignore, /sitemap.xml tried under
 * scope.sitemaps "seeds", nothing under "off", a seed that is a sitemap,
 * and a sitemap past the protocol's 50,000 URLs.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { crawlLogLines as crawlLog } from '../helpers/crawl-log-lines.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { RecordingSite, text } from '../fixtures/recording-site.js';
import { SitemapWeb, urlset } from '../fixtures/sitemap-web.js';

let tmp: string;
let web: SitemapWeb | null = null;
let extra: RecordingSite | null = null;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-sitemaps-'));
});
afterEach(async () => {
  await web?.close();
  await extra?.close();
  web = null;
  extra = null;
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function profile(name: string, seeds: string[], more: Record<string, unknown> = {}) {
  return validateProfile(testProfileJson(name, seeds, path.join(tmp, name), more), name);
}


async function crawl(p: ReturnType<typeof profile>, log = captureIo().stderr) {
  return (await Crawl.start(p, { log, quiet: true })).done;
}

/** URLs archived as 200 responses. */
async function archived(dir: string): Promise<Set<string>> {
  const records = await readWarcDir(path.join(dir, 'warcs'));
  return new Set(records.filter((r) => r.type === 'response' && r.status === 200).map((r) => r.url));
}

describe('a host whose pages are only in its sitemaps', () => {
  it('every page is archived through robots.txt → index → gzipped, plain, text and gzip-encoded sitemaps; the other host is never asked', async () => {
    web = await SitemapWeb.start();
    const origin = web.site.origin;
    const p = profile('onlySitemaps', [`${origin}/`]);
    const summary = await crawl(p);
    assert.equal(summary.status, 'FINISHED');
    const got = await archived(p.output.dir);
    for (const page of web.hiddenPages) assert.ok(got.has(`${origin}${page}`), `${page} archived`);
    for (const file of ['/sitemap_index.xml', '/sitemaps/pages.xml.gz', '/sitemaps/plain.xml', '/sitemaps/list.txt', '/sitemaps/encoded.xml']) {
      assert.ok(got.has(`${origin}${file}`), `the sitemap ${file} is archived like any fetch`);
    }
    assert.deepEqual(web.other.arrivals, [], 'nothing asked of the out-of-scope host');
    assert.ok(!web.site.paths().includes('/blocked/secret'), 'robots.txt is obeyed for URLs from sitemaps');

    const lines = await crawlLog(p.output.dir);
    const byUrl = new Map(lines.map((l) => [l.url, l]));
    assert.equal(byUrl.get(`${origin}/sitemap_index.xml`)!.hopPath, 'PM', 'named by robots.txt');
    assert.equal(byUrl.get(`${origin}/sitemaps/pages.xml.gz`)!.hopPath, 'PMM', 'listed in the index');
    assert.equal(byUrl.get(`${origin}/hidden/g1`)!.hopPath, 'PMMM', 'listed in a sitemap');
    assert.ok(byUrl.get(`${origin}/sitemap_index.xml`)!.annotations.includes('sitemap:sitemapindex:5'));
    assert.ok(byUrl.get(`${origin}/sitemaps/pages.xml.gz`)!.annotations.includes('sitemap:urlset:5'));
    assert.ok(byUrl.get(`${origin}/sitemaps/list.txt`)!.annotations.includes('sitemap:text:3'));
    assert.equal(byUrl.get(`${origin}/blocked/secret`)!.status, -9998);
    for (const off of [`${web.other.origin}/sitemap.xml`, `${web.other.origin}/sitemap-b.xml`, `${web.other.origin}/page`]) {
      assert.equal(byUrl.get(off)?.status, -5000, `${off} refused by scope`);
    }
  });

  it('under robots.policy ignore, robots.txt is fetched for its Sitemap lines only: its rules are not applied', async () => {
    web = await SitemapWeb.start();
    const origin = web.site.origin;
    const p = profile('ignoreRobots', [`${origin}/`], { robots: { policy: 'ignore' } });
    await crawl(p);
    const got = await archived(p.output.dir);
    for (const page of web.hiddenPages) assert.ok(got.has(`${origin}${page}`), `${page} archived`);
    assert.ok(web.site.paths().includes('/blocked/secret'), 'the disallowed page is fetched');
    assert.equal(web.site.paths().filter((x) => x === '/robots.txt').length, 1);
  });

  it('scope.sitemaps: "seeds" also tries /sitemap.xml of each seed host; "robots" does not; "off" reads no sitemap', async () => {
    web = await SitemapWeb.start({ robotsNamesSitemaps: false });
    const origin = web.site.origin;
    const seeds = profile('seedsMode', [`${origin}/`], { scope: { sitemaps: 'seeds' } });
    await crawl(seeds);
    const got = await archived(seeds.output.dir);
    for (const page of web.hiddenPages) assert.ok(got.has(`${origin}${page}`), `${page} archived`);
    assert.equal((await crawlLog(seeds.output.dir)).find((l) => l.url === `${origin}/sitemap.xml`)!.hopPath, 'M');
    await web.close();

    web = await SitemapWeb.start({ robotsNamesSitemaps: false });
    const robots = profile('robotsMode', [`${web.site.origin}/`]);
    await crawl(robots);
    assert.deepEqual(web.site.paths().sort(), ['/', '/robots.txt']);
    await web.close();

    web = await SitemapWeb.start();
    const off = profile('offMode', [`${web.site.origin}/`], { scope: { sitemaps: 'off' }, robots: { policy: 'ignore' } });
    await crawl(off);
    assert.deepEqual(web.site.paths(), ['/'], 'not even robots.txt under ignore');
  });

  it('a seed may itself be a sitemap', async () => {
    web = await SitemapWeb.start();
    const origin = web.site.origin;
    const p = profile('seedSitemap', [`${origin}/sitemaps/plain.xml`, `${origin}/sitemaps/pages.xml.gz`], { scope: { hosts: [web.site.host] } });
    await crawl(p);
    const got = await archived(p.output.dir);
    for (const page of web.hiddenPages.filter((x) => /\/hidden\/[gp]/.test(x))) assert.ok(got.has(`${origin}${page}`), `${page} archived`);
    const lines = await crawlLog(p.output.dir);
    assert.equal(lines.find((l) => l.url === `${origin}/hidden/p1`)!.hopPath, 'M');
    // One hop from the seed, M is no transclusion hop: the other host's page it lists stays out.
    assert.equal(lines.find((l) => l.url === `${web!.other.origin}/page`)!.status, -5000);
    assert.deepEqual(web.other.arrivals, []);
  });

  it('a sitemap past 50,000 URLs: the first 50,000 are followed, and one line says so', async () => {
    const many = Array.from({ length: 50_001 }, (_, i) => `http://127.0.0.63/x/${i}`);
    extra = await RecordingSite.start('127.0.0.63', (origin) => ({
      '/robots.txt': text(`Sitemap: ${origin}/big.xml\n`),
      '/big.xml': { headers: { 'content-type': 'application/xml' }, body: urlset(many.map((u) => u.replace('http://127.0.0.63', origin))) },
    }));
    const log = captureIo().stderr;
    const p = profile('bigSitemap', [`${extra.origin}/`], { scope: { exclude: ['/x/'] } });
    const start = await Crawl.start(p, { log, quiet: false, progressIntervalMs: 60_000 });
    await start.done;
    const lines = await crawlLog(p.output.dir);
    assert.ok(lines.find((l) => l.url === `${extra!.origin}/big.xml`)!.annotations.includes('sitemapLimit:urls'));
    const refused = lines.filter((l) => l.url.includes('/x/'));
    assert.equal(refused.length, 50_000, 'each listed URL up to the limit went through scope');
    assert.ok(!refused.some((l) => l.url.endsWith('/x/50000')), 'the 50,001st was not read');
    assert.match(log.text, /sitemap http:\/\/127\.0\.0\.63:\d+\/big\.xml lists more than 50,000 URLs, the protocol's limit: the first 50,000 are followed/);
  });

  it('a malformed sitemap is read up to the fault (sitemapError); one past 50 MB uncompressed is read up to there (sitemapLimit:bytes); sitemap links are not cut at maxOutlinks', async () => {
    // Written out here: the protocol's 50 MB (52,428,800 bytes, uncompressed) as the default limit.
    const padding = ' '.repeat(52_428_800);
    extra = await RecordingSite.start('127.0.0.63', (origin) => ({
      '/robots.txt': text(`Sitemap: ${origin}/broken.xml\nSitemap: ${origin}/huge.xml.gz\nSitemap: ${origin}/five.xml\n`),
      '/': { body: `<!doctype html><title>home</title>${[1, 2, 3, 4, 5].map((i) => `<a href="/l/${i}">${i}</a>`).join('')}` },
      '/broken.xml': { headers: { 'content-type': 'application/xml' }, body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/b/before</loc></url><url><loc>${origin}/b/cut</loc></urll><url><loc>${origin}/b/after</loc></url></urlset>` },
      '/huge.xml.gz': {
        headers: { 'content-type': 'application/x-gzip' },
        body: gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/h/early</loc></url>${padding}<url><loc>${origin}/h/late</loc></url></urlset>`),
      },
      '/five.xml': { headers: { 'content-type': 'application/xml' }, body: urlset([1, 2, 3, 4, 5].map((i) => `${origin}/s/${i}`)) },
    }));
    const log = captureIo().stderr;
    const p = profile('sitemapFaults', [`${extra.origin}/`], { robots: { policy: 'ignore' }, limits: { fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10, maxOutlinks: 2 } });
    const start = await Crawl.start(p, { log, quiet: false, progressIntervalMs: 60_000 });
    await start.done;
    const lines = await crawlLog(p.output.dir);
    const line = (suffix: string) => lines.find((l) => l.url === `${extra!.origin}${suffix}`);
    assert.ok(line('/broken.xml')!.annotations.includes('sitemapError'), line('/broken.xml')!.annotations.join(','));
    assert.ok(line('/b/before'), 'what came before the fault stands');
    assert.equal(line('/b/after'), undefined, 'nothing after the fault is read');
    assert.ok(line('/huge.xml.gz')!.annotations.includes('sitemapLimit:bytes'), line('/huge.xml.gz')!.annotations.join(','));
    assert.ok(line('/h/early'), 'an entry inside the first 50 MB is followed');
    assert.equal(line('/h/late'), undefined, 'the one past 50 MB is not');
    assert.match(log.text, /sitemap http:\/\/127\.0\.0\.63:\d+\/huge\.xml\.gz is larger than 52,428,800 bytes uncompressed, the protocol's limit: read up to there, the rest ignored/);
    // maxOutlinks 2 cuts the home page's five links, not the sitemap's five.
    assert.deepEqual([1, 2, 3, 4, 5].filter((i) => line(`/s/${i}`) !== undefined), [1, 2, 3, 4, 5], 'every sitemap link');
    assert.equal([1, 2, 3, 4, 5].filter((i) => line(`/l/${i}`) !== undefined).length, 2, 'two of the page links');
  });
});
