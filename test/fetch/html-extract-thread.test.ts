/**
 * HTML extraction on its worker thread gives what extraction in this thread
 * gives. Under `npm test` (compiled JavaScript) the worker really runs;
 * from the TypeScript sources (tsx) the thread falls back by design, and the
 * test checks that too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFor, HtmlExtractThread, SMALL_PAGE_CHARS } from '../../src/fetch/html-extract-thread.js';
import { extractHtml } from '../../src/fetch/link-extractor.js';

function page(n: number): string {
  const links = Array.from({ length: 60 }, (_, i) => `<li><a href="/p/${n}/${i}?q=${i}#f">link ${i} of ${n}</a> <img src="img/${i}.png" srcset="a.png 1x, b.png 2x"></li>`);
  return `<!doctype html><html><head><title> Page ${n} </title><meta name="robots" content="noindex"><base href="https://base.test/dir/"></head>
<body><p>Visible text ${n} é ü 漢字</p><script>var hidden = 1;</script><ul>${links.join('\n')}</ul></body></html>`;
}

test('pages extracted on the worker equal pages extracted here, many at once', async () => {
  const thread = new HtmlExtractThread();
  const pages = Array.from({ length: 30 }, (_, n) => page(n));
  assert.ok(pages.every((p) => p.length >= SMALL_PAGE_CHARS));
  const results = await Promise.all(pages.map((html, n) => thread.extract(html, `http://site.test/page/${n}`)));
  results.forEach((result, n) => assert.deepEqual(result, extractHtml(pages[n] as string, `http://site.test/page/${n}`)));
  assert.equal(results[3]?.title, 'Page 3');
  assert.equal(results[3]?.links.length, 122); // 60 pages, 60 images, a.png and b.png once (links are distinct)
  const compiled = import.meta.url.endsWith('.js');
  assert.equal(thread.fellBack, !compiled, compiled ? 'the worker should have run' : 'from sources extraction stays here');
  await thread.close();
});

test('small pages, and everything after close, are extracted here with the same result', async () => {
  const thread = new HtmlExtractThread();
  const small = '<title>s</title><a href="x">x</a>';
  assert.deepEqual(await thread.extract(small, 'http://s.test/'), extractHtml(small, 'http://s.test/'));
  await thread.close();
  const big = page(99);
  assert.deepEqual(await thread.extract(big, 'http://s.test/'), extractHtml(big, 'http://s.test/'));
  assert.equal(thread.fellBack, true);
});

test('a focused crawl\'s terms are cut on the worker, small pages too, as they would be here', async () => {
  const thread = new HtmlExtractThread({ focusTerms: true });
  const small = '<title>绿茶</title><p>我们喜欢乌龙茶</p><a href="/tea/green">龙井</a>';
  const pages = [small, ...Array.from({ length: 5 }, (_, n) => page(n))];
  const results = await Promise.all(pages.map((html, n) => thread.extract(html, `http://site.test/page/${n}`)));
  results.forEach((result, n) => assert.deepEqual(result, extractFor(pages[n] as string, `http://site.test/page/${n}`, { focusTerms: true })));
  assert.equal(results[0]?.terms, '绿茶 绿茶 我们 喜欢 乌龙茶 龙井');
  assert.equal(results[0]?.links[0]?.anchorTerms, '龙井');
  const compiled = import.meta.url.endsWith('.js');
  assert.equal(thread.fellBack, !compiled);
  await thread.close();
});
