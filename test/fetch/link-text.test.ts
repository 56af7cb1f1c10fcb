/**
 * A hyperlink's anchor text and the text around it, which a focused crawl
 * scores links by: taken only when asked for, from the visible text (an
 * image's alt standing in inside an anchor, an <area>'s alt), and bounded
 * whatever the page (anchors of at most MAX_ANCHOR_CHARS, at most
 * AROUND_CHARS each side).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractHtml } from '../../src/fetch/link-extractor.js';
import { AROUND_CHARS, MAX_ANCHOR_CHARS } from '../../src/fetch/link-text.js';

const PAGE = `<!DOCTYPE html><html><head><title>T</title><script>var a = "<a href='/no'>x</a>";</script></head><body>
<p>Notes on green tea before the link <a href="/oolong">Oolong <b>tea</b> guide</a> and after it comes more text.</p>
<a href="/photo"><img src="/p.png" alt="A teapot"></a>
<a href="/open">never closed <a href="/next">next one</a> tail words
<map><area href="/area" alt="area text"></map>
<svg><a href="/svg-link">svg</a></svg>
</body></html>`;

describe('link text', () => {
  it('gives each hyperlink its anchor and the words around it, when asked', () => {
    const links = extractHtml(PAGE, 'http://h.test/', { linkText: true }).links;
    const byUrl = new Map(links.map((l) => [l.url, l]));
    assert.equal(byUrl.get('http://h.test/oolong')!.anchor, 'Oolong tea guide');
    assert.match(byUrl.get('http://h.test/oolong')!.around!, /^Notes on green tea before the link and after it comes more text\./);
    assert.equal(byUrl.get('http://h.test/photo')!.anchor, 'A teapot', 'an image inside an anchor speaks for it');
    assert.equal(byUrl.get('http://h.test/open')!.anchor, 'never closed', 'a new <a> ends the one open');
    assert.equal(byUrl.get('http://h.test/next')!.anchor, 'next one');
    assert.equal(byUrl.get('http://h.test/area')!.anchor, 'area text');
    assert.equal(byUrl.get('http://h.test/p.png')!.anchor, undefined, 'embeds have none');
    assert.ok(!byUrl.has('http://h.test/no'), 'nothing from inside a script');
  });

  it('gives nothing unless asked', () => {
    for (const l of extractHtml(PAGE, 'http://h.test/').links) {
      assert.equal(l.anchor, undefined);
      assert.equal(l.around, undefined);
    }
  });

  it('stays bounded on a page of 6000 links', () => {
    const long = 'word '.repeat(500);
    const html = `<p>${long}</p>` + Array.from({ length: 3000 }, (_, i) => `<a href="/i${i}"><img src="/i${i}.png"></a>`).join('') +
      Array.from({ length: 3000 }, (_, i) => `<a href="/t${i}">${long}</a>`).join('');
    const links = extractHtml(html, 'http://h.test/', { linkText: true, maxLinks: 10_000 }).links.filter((l) => l.hop === 'L');
    assert.equal(links.length, 6000);
    for (const l of links) {
      assert.ok((l.anchor ?? '').length <= MAX_ANCHOR_CHARS);
      assert.ok((l.around ?? '').length <= 2 * AROUND_CHARS + 1);
    }
    assert.equal(links[0]!.anchor, '');
    assert.match(links[0]!.around!, /word/, 'image links with no text between them still get the text around');
    assert.equal(links[5999]!.anchor, long.slice(0, MAX_ANCHOR_CHARS).trim());
  });
});
