/**
 * Issue 26, third round: on the held-out documentation sites a relevant
 * page's "previous" and "next" (its neighbours in the book, off the topic)
 * and its sidebar's links inherited its relevance like the links of its
 * text. Navigation the template repeats on every page is told by its
 * anchor's words or its URL recurring on at least half the pages (and on
 * three at least).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIN_PAGES, TemplateLinks } from '../../src/focus/template-links.js';

describe('template links', () => {
  it('tells "next" from the third page on, whatever it leads to, and not a link of one page\'s text', () => {
    const t = new TemplateLinks();
    const verdicts: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const page = t.page();
      verdicts.push(page.isTemplate('next', `http://d.test/ch${i + 1}.html`));
      assert.equal(page.isTemplate(`section ${i}`, `http://d.test/s${i}.html`), false);
    }
    assert.deepEqual(verdicts, [false, false, true, true, true]);
    assert.equal(MIN_PAGES, 3);
  });

  it('tells a URL every page links to, whatever its anchor, from words that lead elsewhere from each page', () => {
    const t = new TemplateLinks();
    const kinds: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const page = t.page();
      kinds.push(page.kind(i % 2 === 0 ? 'core' : undefined, 'http://d.test/core/index.html'));
      assert.equal(page.kind('up', `http://d.test/part${i}/index.html`), i < 2 ? null : 'anchor');
    }
    assert.deepEqual(kinds, [null, null, 'url', 'url']);
  });

  it('tells a <link> at once, and still counts its URL', () => {
    const t = new TemplateLinks();
    assert.equal(t.page().kind(undefined, 'http://d.test/ch2.html', 'link/@href'), 'head');
    assert.equal(t.page().kind('chapter two', 'http://d.test/ch2.html', 'a/@href'), null);
    assert.equal(t.page().kind('two', 'http://d.test/ch2.html', 'a/@href'), 'url');
  });

  it('counts a link once per page, and a share of the pages placed', () => {
    const t = new TemplateLinks();
    const first = t.page();
    for (let i = 0; i < 5; i++) first.isTemplate('index', 'http://d.test/genindex.html');
    for (let i = 0; i < 3; i++) t.page().isTemplate('other', `http://d.test/o${i}.html`);
    // On 2 pages of 5, however often the first repeats it: not the template.
    assert.equal(t.page().isTemplate('index', 'http://d.test/genindex.html'), false);
    assert.equal(t.pages, 5);
    // On 3 of 6: half, and three pages.
    assert.equal(t.page().isTemplate('index', 'http://d.test/genindex.html'), true);
    for (let i = 0; i < 3; i++) t.page().isTemplate('other', `http://d.test/p${i}.html`);
    // On 4 of 10: below half again.
    assert.equal(t.page().isTemplate('index', 'http://d.test/genindex.html'), false);
  });
});
