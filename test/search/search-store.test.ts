/**
 * The query language and what a hit carries, on a SearchStore of a few
 * hand-written pages: words ANDed, phrases, exclusions, operators typed by
 * a user taken as words, Unicode forms and case, filters and paging, and
 * snippets that are safe HTML whatever the page held.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SearchStore } from '../../src/search/search-store.js';
import type { SearchPage } from '../../src/search/search-types.js';

const page = (n: number, url: string, title: string, text: string, extra: Partial<SearchPage> = {}): SearchPage => ({
  url,
  timestamp: `2024-02-0${n}T10:00:00Z`,
  status: 200,
  mime: 'text/html',
  digest: null,
  title,
  text,
  ...extra,
});

const PAGES = [
  page(1, 'http://a.test/river', 'The river', 'The quiet river flows past the old harbour and the lighthouse.'),
  page(2, 'http://a.test/harbour', 'Harbour notes', 'A harbour, a river, a bridge: river traffic near the harbour.'),
  page(3, 'http://b.test/markup', 'Markup <b>bold</b>', 'Text with <script>alert(1)</script> & "quotes" near harbour.'),
  page(4, 'http://b.test/fullwidth', 'Ｆｕｌｌ Café', 'ＡＲＣＨＩＶＥ of the STRASSE and naïve résumé.', { status: 203, mime: 'application/xhtml+xml' }),
  page(5, 'http://c.test/ops', 'Operators', 'NEAR AND OR NOT title: star* words (parenthesised) "quoted".'),
  page(6, 'http://c.test/ja', '東京の図書館', '東京都に住んでいます。コンピュータの本を読みます。'),
];

describe('SearchStore queries', () => {
  let tmp: string;
  let store: SearchStore;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-search-store-'));
    store = SearchStore.open(tmp);
    assert.equal(store.addBatch(PAGES), PAGES.length);
    assert.equal(store.addBatch(PAGES.slice(0, 3)), 0);
  });
  after(async () => {
    store.close();
    await rm(tmp, { recursive: true, force: true });
  });
  const urls = (q: string, opts = {}): string[] => store.search(q, opts).hits.map((h) => h.url).sort();

  test('all words are required; a phrase needs its words adjacent, in order', () => {
    assert.deepEqual(urls('river harbour'), ['http://a.test/harbour', 'http://a.test/river']);
    assert.deepEqual(urls('river lighthouse'), ['http://a.test/river']);
    assert.deepEqual(urls('"river flows"'), ['http://a.test/river']);
    assert.deepEqual(urls('"flows river"'), []);
    assert.deepEqual(urls('"river traffic" harbour'), ['http://a.test/harbour']);
  });

  test('unquoted words that form a phrase on a page rank that page first', () => {
    // "harbour and" is adjacent only on the river page, while the harbour page says harbour more often.
    assert.equal(store.search('harbour and').hits[0]?.url, 'http://a.test/river');
  });

  test('-word and -"phrase" exclude', () => {
    assert.deepEqual(urls('harbour -bridge'), ['http://a.test/river', 'http://b.test/markup']);
    assert.deepEqual(urls('harbour -"old harbour"'), ['http://a.test/harbour', 'http://b.test/markup']);
    assert.deepEqual(urls('-harbour'), [], 'exclusions alone match nothing');
  });

  test('operators and punctuation typed by a user are searched as words, never as syntax', () => {
    assert.deepEqual(urls('NEAR'), ['http://a.test/harbour', 'http://b.test/markup', 'http://c.test/ops']);
    assert.deepEqual(urls('AND OR NOT'), ['http://c.test/ops']);
    assert.deepEqual(urls('title: star*'), ['http://c.test/ops']);
    assert.deepEqual(urls('(parenthesised)'), ['http://c.test/ops']);
    assert.deepEqual(urls('"\\"quoted'), ['http://c.test/ops']);
    assert.deepEqual(urls('&& ||'), []);
  });

  test('case, diacritics and compatibility forms do not matter', () => {
    assert.deepEqual(urls('archive'), ['http://b.test/fullwidth']);
    assert.deepEqual(urls('FULL cafe'), ['http://b.test/fullwidth']);
    assert.deepEqual(urls('naive resume'), ['http://b.test/fullwidth']);
    assert.deepEqual(urls('ＲＩＶＥＲ'), ['http://a.test/harbour', 'http://a.test/river']);
  });

  test('Japanese words are found in running text', () => {
    assert.deepEqual(urls('東京'), ['http://c.test/ja']);
    assert.deepEqual(urls('コンピュータ'), ['http://c.test/ja']);
    assert.deepEqual(urls('図書館'), ['http://c.test/ja']);
  });

  test('host, mime and status filters; limit, offset and total', () => {
    assert.deepEqual(urls('harbour', { host: 'A.TEST' }), ['http://a.test/harbour', 'http://a.test/river']);
    assert.deepEqual(urls('archive', { mime: 'text/html' }), []);
    assert.deepEqual(urls('archive', { mime: 'application/xhtml+xml', status: 203 }), ['http://b.test/fullwidth']);
    const all = store.search('harbour');
    assert.equal(all.total, 3);
    const second = store.search('harbour', { limit: 1, offset: 1 });
    assert.equal(second.total, 3);
    assert.deepEqual(second.hits.map((h) => h.url), [all.hits[1]!.url]);
    assert.equal(store.search('harbour', { limit: 0 }).hits.length, 0);
    // Paging across the phrase-first part and the rest of an unquoted query.
    const both = store.search('harbour the', { limit: 10 }).hits.map((h) => h.url);
    assert.equal(both.length, 2);
    for (let offset = 0; offset < 3; offset++) {
      assert.deepEqual(store.search('harbour the', { limit: 1, offset }).hits.map((h) => h.url), both.slice(offset, offset + 1));
    }
  });

  test('a hit carries url, title, escaped snippet with marks, score, timestamp, status, mime', () => {
    const [hit] = store.search('alert').hits;
    assert.ok(hit);
    assert.deepEqual(Object.keys(hit).sort(), ['mime', 'score', 'snippet', 'status', 'timestamp', 'title', 'url']);
    assert.equal(hit.title, 'Markup <b>bold</b>');
    assert.equal(hit.timestamp, '2024-02-03T10:00:00Z');
    assert.ok(hit.score > 0);
    assert.equal(hit.snippet, 'Text with &lt;script&gt;<mark>alert</mark>(1)&lt;/script&gt; &amp; &quot;quotes&quot; near harbour.');
    assert.equal(hit.snippet.replace(/<\/?mark>/g, '').includes('<'), false);
  });
});

// Issue 28: `archiver search jobs/demo river` printed `score 0` for every hit: "river" is on 51 of 76
// pages, FTS5 clamps its idf to 1e-6, and the score was rounded to 4 decimals.
describe('SearchStore scores of a word on most pages', () => {
  test('are not 0, differ, and come in descending order', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-search-common-'));
    const store = SearchStore.open(tmp);
    try {
      const pages = Array.from({ length: 9 }, (_, i) =>
        page(1, `http://a.test/${i}`, `Page ${i}`, `${'river '.repeat(i < 7 ? i + 1 : 0)}bank stone field ${'meadow '.repeat(20 - i)}`));
      store.addBatch(pages);
      const hits = store.search('river').hits;
      assert.equal(hits.length, 7);
      const scores = hits.map((h) => h.score);
      assert.ok(scores.every((s) => s > 0), scores.join(' '));
      assert.equal(new Set(scores).size, scores.length, `distinct: ${scores.join(' ')}`);
      assert.deepEqual([...scores].sort((a, b) => b - a), scores);
      assert.equal(hits[0]?.url, 'http://a.test/6', 'the page saying it most often first');
    } finally {
      store.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
