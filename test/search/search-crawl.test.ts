/**
 * Archive search over a real crawl: a loopback site of English pages drawn
 * from a small Zipf vocabulary (so phrases repeat across pages), a UTF-8
 * and a GBK Chinese page, a page with words only in <script>/<style>, a
 * noindex page and a 404, crawled by archiver into a job. The index the
 * crawl wrote is copied aside, then rebuilt by `archiver index <job>` (which
 * replaces the job's copy) and built from the WARCs alone; all three must
 * hold the same pages. Then `archiver search`
 * must put the one page holding a phrase first, quoted or not, find the
 * Chinese pages by a two-character word, and honour exclusions, phrases
 * and filters.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../../src/crawl/crawler.js';
import { GBK_TEXT } from '../../src/demo/prose.js';
import { SearchCorpus } from '../helpers/search-corpus.js';
import { buildJobSearchIndex } from '../../src/search/build-search-index.js';
import { currentJobSearchIndex } from '../../src/search/job-search.js';
import { jobSearchDir } from '../../src/job/job-dir.js';
import { SearchStore, type StoredPage } from '../../src/search/search-store.js';
import type { SearchResponse } from '../../src/search/search-types.js';
import { captureIo } from '../helpers/capture.js';
import { mulberry32 } from '../helpers/prng.js';
import { testProfileJson } from '../helpers/test-profile.js';

const PAGES = 40;
const UTF8_ZH = { title: '网络图书馆', text: '图书馆收藏了城市的历史和文化，学生和老师都来研究。' };

interface Site {
  server: Server;
  origin: string;
  /** Page path → its visible words, lower case, for finding phrases on one page only. */
  words: Map<string, string[]>;
}

async function startSite(): Promise<Site> {
  const rng = mulberry32(7);
  const corpus = new SearchCorpus(rng, 300);
  const pages = new Map<string, { title: string; text: string }>();
  for (let i = 0; i < PAGES; i++) {
    const text = corpus.render(corpus.textIds(900));
    pages.set(`/p/${i}.html`, { title: `Page ${i} ${corpus.words[corpus.wordId()]}`, text });
  }
  const html = (title: string, body: string, head = ''): string =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
  const links = [...pages.keys(), '/zh/utf8.html', '/zh/gbk.html', '/hidden.html', '/noindex.html', '/missing.html'].map((p) => `<a href="${p}">${p}</a>`).join(' ');
  const gbk = Buffer.concat([
    Buffer.from('<!DOCTYPE html><html lang="zh-CN"><head><meta http-equiv="Content-Type" content="text/html; charset=gbk"><title>'),
    GBK_TEXT.title.bytes,
    Buffer.from('</title></head><body><h1>'),
    GBK_TEXT.title.bytes,
    Buffer.from('</h1><p>'),
    GBK_TEXT.intro.bytes,
    Buffer.from('</p><p>'),
    GBK_TEXT.body.bytes,
    Buffer.from('</p></body></html>'),
  ]);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const send = (status: number, body: string | Buffer, type = 'text/html; charset=utf-8'): void => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(body);
    };
    const page = pages.get(url);
    if (page) return send(200, html(page.title, `<h1>${page.title}</h1><p>${page.text}</p>`));
    if (url === '/') return send(200, html('Home', links));
    if (url === '/robots.txt') return send(404, 'none', 'text/plain');
    if (url === '/zh/utf8.html') return send(200, html(UTF8_ZH.title, `<p>${UTF8_ZH.text}</p>`));
    // No charset in the header: the <meta http-equiv> must be found.
    if (url === '/zh/gbk.html') return send(200, gbk, 'text/html');
    if (url === '/hidden.html') {
      return send(200, html('Hidden words', '<p>visible zebraword</p><script>var scriptword = 1;</script>', '<style>.styleword { color: red }</style>'));
    }
    if (url === '/noindex.html') return send(200, html('Not for search', '<p>noindexword</p>', '<meta name="robots" content="noindex">'));
    return send(404, html('Missing', '<p>missingword</p>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const words = new Map<string, string[]>();
  for (const [p, { title, text }] of pages) words.set(`${origin}${p}`, wordsOf(`${title} ${text}`));
  return { server, origin, words };
}

function wordsOf(s: string): string[] {
  return s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
}

/** For each page, a phrase of `n` words found on that page only (null when the page has none). */
function knownItems(words: Map<string, string[]>, n: number, rng: () => number): Map<string, string> {
  const joined = new Map([...words].map(([u, w]) => [u, ` ${w.join(' ')} `]));
  const out = new Map<string, string>();
  for (const [url, w] of words) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const at = Math.floor(rng() * (w.length - n));
      const phrase = w.slice(at, at + n).join(' ');
      const holders = [...joined].filter(([, text]) => text.includes(` ${phrase} `));
      if (holders.length === 1) {
        out.set(url, phrase);
        break;
      }
    }
  }
  return out;
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function search(job: string, query: string, ...opts: string[]): Promise<SearchResponse> {
  const r = await cli('search', job, query, '--json', ...opts);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as SearchResponse;
}

function dump(dir: string): StoredPage[] {
  const store = SearchStore.open(dir, { readonly: true });
  try {
    return [...store.pages()];
  } finally {
    store.close();
  }
}

describe('archive search over a crawled job', () => {
  let tmp: string;
  let site: Site;
  let job: string;
  let liveDir: string;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-search-'));
    site = await startSite();
    job = path.join(tmp, 'job');
    const profile = validateProfile(testProfileJson('search', [`${site.origin}/`], job), 'search');
    await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
    // The crawl does not index: the first reader brings the index up to date from the capture journal.
    assert.equal(existsSync(jobSearchDir(job)), false, 'the crawl wrote no search index');
    assert.equal(await currentJobSearchIndex(job), jobSearchDir(job));
    // That index, kept aside before anything rebuilds the job's copy in place.
    liveDir = path.join(tmp, 'live');
    await cp(jobSearchDir(job), liveDir, { recursive: true });
  });

  after(async () => {
    await new Promise((resolve) => site.server.close(resolve));
    await rm(tmp, { recursive: true, force: true });
  });

  test('archiver index rebuilds the same index as the journal gave, and so do the WARCs alone', async () => {
    const r = await cli('index', job);
    assert.equal(r.code, 0, r.stderr);
    const live = dump(liveDir);
    const rebuilt = dump(jobSearchDir(job));
    // 40 pages, home, two Chinese pages, the hidden-words page; not the noindex page nor the 404.
    assert.equal(live.length, PAGES + 4);
    assert.deepEqual(rebuilt, live);
    await buildJobSearchIndex(job, { ignoreJournal: true });
    assert.deepEqual(dump(jobSearchDir(job)), live);
    const fromWarcs = path.join(tmp, 'from-warcs');
    const warcs = (await readdir(path.join(job, 'warcs'))).filter((f) => f.endsWith('.warc.gz')).map((f) => path.join(job, 'warcs', f));
    const built = await cli('index', '--search', ...warcs, '-o', fromWarcs);
    assert.equal(built.code, 0, built.stderr);
    assert.deepEqual(dump(fromWarcs), live);
  });

  test('a phrase found on one page only brings that page first, quoted or not', async () => {
    const items = knownItems(site.words, 4, mulberry32(11));
    assert.ok(items.size >= PAGES * 0.9, `only ${items.size} pages have a phrase of their own`);
    for (const [url, phrase] of items) {
      const plain = await search(job, phrase);
      assert.equal(plain.hits[0]?.url, url, `"${phrase}" unquoted`);
      const quoted = await search(job, `"${phrase}"`);
      assert.equal(quoted.total, 1, `"${phrase}" quoted`);
      assert.equal(quoted.hits[0]?.url, url);
      assert.match(quoted.hits[0]!.snippet, /<mark>/);
    }
  });

  test('Chinese pages, UTF-8 and GBK, are found by a two-character word', async () => {
    const gbk = await search(job, '读者');
    assert.deepEqual(gbk.hits.map((h) => h.url), [`${site.origin}/zh/gbk.html`]);
    assert.equal(gbk.hits[0]!.title, GBK_TEXT.title.text);
    assert.match(gbk.hits[0]!.snippet, /<mark>读者<\/mark>/);
    assert.deepEqual((await search(job, '国标')).hits.map((h) => h.url), [`${site.origin}/zh/gbk.html`]);
    assert.deepEqual((await search(job, '站点')).hits.map((h) => h.url), [`${site.origin}/zh/gbk.html`]);
    // ICU cuts the page's 图书馆 as 图书|馆, so 书馆 is no word of the page: its bigram still finds it.
    const bigram = await search(job, '书馆');
    assert.deepEqual(bigram.hits.map((h) => h.url), [`${site.origin}/zh/utf8.html`]);
    assert.match(bigram.hits[0]!.snippet, /图<mark>书馆<\/mark>收藏/);
    const utf8 = await search(job, '收藏');
    assert.deepEqual(utf8.hits.map((h) => h.url), [`${site.origin}/zh/utf8.html`]);
    assert.deepEqual((await search(job, '"城市的历史"')).hits.map((h) => h.url), [`${site.origin}/zh/utf8.html`]);
    assert.equal((await search(job, '收藏 -学生')).total, 0);
  });

  test('words in scripts, styles, noindex pages and 404s are not searchable; visible words are', async () => {
    assert.equal((await search(job, 'zebraword')).total, 1);
    for (const w of ['scriptword', 'styleword', 'noindexword', 'missingword']) assert.equal((await search(job, w)).total, 0, w);
  });

  test('exclusions, phrases, filters, paging', async () => {
    const [first] = [...site.words.values()];
    const common = first!.find((w) => w.length > 2)!;
    const all = await search(job, common, '--top', '1000');
    assert.ok(all.total > 2 && all.hits.length === all.total);
    const offset = await search(job, common, '--top', '2', '--offset', '1');
    assert.deepEqual(offset.hits.map((h) => h.url), all.hits.slice(1, 3).map((h) => h.url));
    assert.equal(offset.total, all.total);
    const other = all.hits[0]!.url;
    const otherWords = site.words.get(other)!;
    const excluded = otherWords.find((w) => (site.words.get(all.hits[1]!.url) ?? []).indexOf(w) < 0 && w !== common)!;
    const minus = await search(job, `${common} -${excluded}`, '--top', '1000');
    assert.ok(!minus.hits.some((h) => h.url === other));
    assert.ok(minus.hits.every((h) => !site.words.get(h.url)!.includes(excluded)));
    assert.ok(minus.total < all.total);
    assert.equal((await search(job, common, '--host', 'example.org')).total, 0);
    assert.equal((await search(job, common, '--host', '127.0.0.1')).total, all.total);
    assert.equal((await search(job, common, '--status', '404')).total, 0);
    assert.equal((await search(job, common, '--mime', 'text/html')).total, all.total);
    for (const h of all.hits) assert.match(h.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  test('archiver search: text output, no hits is success, no index and no WARCs exits 4', async () => {
    const text = await cli('search', job, 'zebraword');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^1 page match "zebraword"/);
    assert.match(text.stdout, /  1\. Hidden words\n {5}http:\/\/127\.0\.0\.1:\d+\/hidden\.html\n/);
    assert.match(text.stdout, /\[zebraword\]/);
    assert.match(text.stdout, / score (\d+(\.\d+)?|\d\.\d\de-\d+)\n/);
    const none = await cli('search', job, 'nosuchwordanywhere');
    assert.equal(none.code, 0);
    assert.match(none.stdout, /^0 pages match/);
    const empty = path.join(tmp, 'empty-job');
    await mkdir(empty, { recursive: true });
    const noWarcs = await cli('search', empty, 'x');
    assert.equal(noWarcs.code, 4);
    assert.match(noWarcs.stderr, /empty-job: no search index and no WARC files to build one from/);
    // Issue 28: a job directory that does not exist was reported as having "no search index".
    const nowhere = await cli('search', path.join(tmp, 'nowhere'), 'x');
    assert.equal(nowhere.code, 4);
    assert.match(nowhere.stderr, /nowhere: no such job directory/);
    assert.equal((await cli('search', job)).code, 2);
  });
});
