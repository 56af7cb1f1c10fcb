/**
 * The terms a focused crawl scores are cut where the page is parsed (the
 * extraction thread): the page's (title twice, then text) and each
 * hyperlink's (anchor, surrounding text, URL) as the tokenizer cuts them,
 * one space-separated string each, the raw anchor and surrounding text
 * dropped; nothing of it unless asked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractFor } from '../../src/crawl/extract-for.js';
import { extractHtml } from '../../src/fetch/link-extractor.js';
import { documentTerms, splitTerms } from '../../src/focus/page-terms.js';
import { termsOf, urlTerms } from '../../src/focus/terms.js';

const HTML = `<html><head><title>绿茶指南</title></head><body><h1>乌龙茶</h1><p>我们喜欢喝茶。看看 <a href="/tea/green-tea.html">龙井绿茶的冲泡</a> 还有更多茶叶知识。</p><img src="/x.png"></body></html>`;

describe('page terms', () => {
  it('come cut, one string per field', async () => {
    const page = await extractFor(HTML, 'http://h.test/', { focusTerms: true });
    const raw = extractHtml(HTML, 'http://h.test/', { linkText: true });
    assert.deepEqual(splitTerms(page.terms!), documentTerms(raw.title, raw.text));
    assert.deepEqual(documentTerms('Tea', 'green tea'), ['tea', 'tea', 'green', 'tea']);
    const link = page.links.find((l) => l.hop === 'L')!;
    const rawLink = raw.links.find((l) => l.hop === 'L')!;
    assert.deepEqual(splitTerms(link.anchorTerms!), termsOf(rawLink.anchor!));
    assert.deepEqual(splitTerms(link.aroundTerms!), termsOf(rawLink.around!));
    assert.deepEqual(splitTerms(link.urlTerms!), urlTerms(link.url));
    assert.deepEqual(splitTerms(link.urlTerms!), ['tea', 'green', 'tea']);
    assert.equal(link.anchor, undefined);
    assert.equal(link.around, undefined);
    assert.equal(page.links.find((l) => l.hop === 'E')!.urlTerms, undefined, 'embeds are not scored');
  });

  it('are absent unless asked', async () => {
    const page = await extractFor(HTML, 'http://h.test/', {});
    assert.equal(page.terms, undefined);
    assert.ok(page.links.every((l) => l.anchorTerms === undefined && l.urlTerms === undefined));
    assert.deepEqual(splitTerms(''), []);
  });
});
