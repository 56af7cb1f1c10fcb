/**
 * Issue 26, fourth round: on a documentation site of several books, each
 * in its own directory, one book's relevant table of contents handed every
 * chapter of its book a rank above the other books, and the chapters,
 * off the topic one after the other, kept that rank: the rest of the book
 * was fetched before another book was opened (Berkeley DB, 0.341). The
 * relevance of each directory's pages is now learnt as the crawl goes
 * (src/focus/region-rates.ts): a queued link into a directory whose pages
 * turned out off the topic goes back lower when claimed, and a directory
 * not looked at yet keeps a chance.
 *
 * The hand-built site: an off-topic front page lists three notes about the
 * topic (at the site's root, under anchors that name it) and opens four
 * books under anchors that say nothing of the topic, but for book A's
 * ("Tomato compost handbook"). Book A's contents page is about the topic
 * and lists 20 chapters, all off the topic. Book C's contents page names
 * the topic in passing and lists six parts, all about it; books B and D are
 * off the topic. Without the rule, book A's chapters (inheriting the
 * relevance of its contents) fill the budget.
 * Order judged from the server's side.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { pageMapFixture } from '../helpers/page-map-server.js';
import { testProfileJson } from '../helpers/test-profile.js';

const OFF_WORDS = 'railway timetable platform ticket carriage departure station signal';
const ON_WORDS = 'tomato compost seedlings tomato greenhouse compost watering tomato';
const CHAPTERS = 20;
const PARTS = 6;
const NOTES = 3;

function page(title: string, body: string, links: readonly [string, string][]): string {
  const list = links.map(([href, text]) => `<li><a href="${href}">${text}</a></li>`).join('\n');
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p><ul>${list}</ul></body></html>`;
}

function site(): Map<string, string> {
  const pages = new Map<string, string>();
  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
  const notes = range(NOTES).map((i): [string, string] => [`/note${i}.html`, `Tomato note ${i}`]);
  pages.set('/', page('The library', OFF_WORDS, [...notes, ['/a/index.html', 'Tomato compost handbook'], ['/b/index.html', 'Second book'], ['/c/index.html', 'Third book'], ['/d/index.html', 'Fourth book']]));
  for (const [href, text] of notes) pages.set(href, page(text, `${ON_WORDS} ${ON_WORDS}`, []));
  pages.set('/a/index.html', page('Handbook', `${ON_WORDS} ${ON_WORDS}`, range(CHAPTERS).map((i) => [`/a/ch${i}.html`, `Chapter ${i}`])));
  for (const i of range(CHAPTERS)) pages.set(`/a/ch${i}.html`, page(`Chapter ${i}`, `${OFF_WORDS} ${OFF_WORDS}`, []));
  pages.set('/c/index.html', page('Third book', `${OFF_WORDS} compost ${OFF_WORDS}`, range(PARTS).map((i) => [`/c/p${i}.html`, `Part ${i}`])));
  for (const i of range(PARTS)) pages.set(`/c/p${i}.html`, page(`Part ${i}`, `${ON_WORDS} ${ON_WORDS}`, []));
  for (const b of ['b', 'd']) {
    pages.set(`/${b}/index.html`, page('A book', OFF_WORDS, range(5).map((i) => [`/${b}/s${i}.html`, `Section ${i}`])));
    for (const i of range(5)) pages.set(`/${b}/s${i}.html`, page(`Section ${i}`, OFF_WORDS, []));
  }
  return pages;
}

const fixture = pageMapFixture('focus-regions', site);

describe('a focused crawl of a site of several books', () => {
  it('leaves a book whose chapters turn out off the topic for an unexplored one, and fetches the parts about the topic there', async () => {
    // robots.txt, the front page, three notes, book A's contents, then 21 pages: fewer than book A's 20 chapters and book C's 7 pages.
    const p = validateProfile(
      testProfileJson('regions', [`${fixture.web.origin}/`], path.join(fixture.tmp, 'regions'), { limits: { maxPages: 27 }, focus: { keywords: ['tomato', 'compost'] } }),
      'regions', fixture.tmp,
    );
    const summary = await (await Crawl.start(p, { log: captureIo().stderr, quiet: true })).done;
    assert.equal(summary.status, 'FINISHED_DOCUMENT_LIMIT');
    const pages = fixture.web.asked.filter((a) => a.endsWith('.html') || a === '/');
    const parts = pages.filter((a) => /^\/c\/p\d\.html$/.test(a));
    const chapters = pages.filter((a) => /^\/a\/ch\d+\.html$/.test(a));
    assert.equal(parts.length, PARTS, `every part of book C: ${pages.join(' ')}`);
    assert.ok(chapters.length < CHAPTERS - 5, `book A left before its end: ${pages.join(' ')}`);
  });
});
