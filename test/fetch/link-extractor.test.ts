/**
 * Link extraction: every element and attribute the crawler follows, with its
 * hop letter and context, base href, srcset descriptors, meta refresh forms,
 * CSS url()/@import, the schemes that are skipped, meta robots and
 * X-Robots-Tag.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractCss, extractHtml, robotsDirectivesFromHeaders, type ExtractedLink } from '../../src/fetch/link-extractor.js';
import { metaRefreshUrl, srcsetUrls } from '../../src/fetch/html-attributes.js';

const PAGE = 'http://site-a.test/dir/page.html';
const has = (links: ExtractedLink[], url: string, hop: string, context: string): void => {
  assert.ok(
    links.some((l) => l.url === url && l.hop === hop && l.context === context),
    `missing ${hop} ${context} ${url} in\n${links.map((l) => `${l.hop} ${l.context} ${l.url}`).join('\n')}`,
  );
};

describe('extractHtml', () => {
  it('finds every hyperlink and embed with its hop and context', () => {
    const html = `<!doctype html><html><head>
      <title>  The
        Page </title>
      <link rel="stylesheet" href="/s.css"><link rel="icon" href="fav.ico">
      <link rel="alternate" hreflang="fr" href="/fr/"><link rel="canonical" href="http://site-a.test/canon">
      <link rel="next" href="p2.html"><link rel="prev" href="p0.html">
      <link rel="index" href="genindex.html"><link rel="up" title="Chapter" href="chapter.html"><link rel="search" href="search.html">
      <link rel="alternate stylesheet" href="alt.css"><link rel="preconnect" href="https://cdn.test">
      <script src="app.js"></script>
      <style>@import "imp.css"; body { background: url( 'bg.png' ) }</style>
    </head><body background="bodybg.gif">
      <a href="a.html">a</a><map><area href="/area.html"></map>
      <img src="img.png" srcset="img-1x.png 1x, img-2x.png 2x">
      <iframe src="frame.html"></iframe><frameset><frame src="frame2.html"></frameset>
      <embed src="movie.swf"><object data="obj.pdf"></object>
      <picture><source srcset="pic.webp 100w" src="pic-src.webp"></picture>
      <video src="v.mp4" poster="poster.jpg"><source src="v.webm"><track src="subs.vtt"></video>
      <audio src="a.mp3"></audio>
      <input type="image" src="button.png"><input type="text" src="not-an-image.png">
      <div style="background-image:url(div.png)"></div>
      <table background="tbl.gif"><tr><td background="td.gif">x</td></tr></table>
      <noscript><img src="noscript.png"></noscript>
      <template><a href="in-template.html">t</a></template>
      <svg><image href="svg-img.png"/></svg>
    </body></html>`;
    const ex = extractHtml(html, PAGE);
    const L = ex.links;
    assert.equal(ex.title, 'The Page');
    assert.equal(ex.baseUrl, PAGE);
    const d = 'http://site-a.test/dir/';
    has(L, 'http://site-a.test/s.css', 'E', 'link/@href');
    has(L, `${d}fav.ico`, 'E', 'link/@href');
    has(L, 'http://site-a.test/fr/', 'L', 'link/@href');
    has(L, 'http://site-a.test/canon', 'L', 'link/@href');
    has(L, `${d}p2.html`, 'L', 'link/@href');
    has(L, `${d}p0.html`, 'L', 'link/@href');
    // Sphinx's and DocBook's navigation on every page: pages, not this page's resources (issue 26).
    for (const nav of ['genindex.html', 'chapter.html', 'search.html']) has(L, `${d}${nav}`, 'L', 'link/@href');
    has(L, `${d}alt.css`, 'E', 'link/@href');
    assert.ok(!L.some((l) => l.url.startsWith('https://cdn.test')), 'preconnect hints are not links');
    has(L, `${d}app.js`, 'E', 'script/@src');
    has(L, `${d}imp.css`, 'E', 'style/@import');
    has(L, `${d}bg.png`, 'E', 'style/url()');
    has(L, `${d}bodybg.gif`, 'E', 'body/@background');
    has(L, `${d}a.html`, 'L', 'a/@href');
    has(L, 'http://site-a.test/area.html', 'L', 'area/@href');
    has(L, `${d}img.png`, 'E', 'img/@src');
    has(L, `${d}img-1x.png`, 'E', 'img/@srcset');
    has(L, `${d}img-2x.png`, 'E', 'img/@srcset');
    has(L, `${d}frame.html`, 'E', 'iframe/@src');
    has(L, `${d}movie.swf`, 'E', 'embed/@src');
    has(L, `${d}obj.pdf`, 'E', 'object/@data');
    has(L, `${d}pic.webp`, 'E', 'source/@srcset');
    has(L, `${d}pic-src.webp`, 'E', 'source/@src');
    has(L, `${d}v.mp4`, 'E', 'video/@src');
    has(L, `${d}poster.jpg`, 'E', 'video/@poster');
    has(L, `${d}v.webm`, 'E', 'source/@src');
    has(L, `${d}subs.vtt`, 'E', 'track/@src');
    has(L, `${d}a.mp3`, 'E', 'audio/@src');
    has(L, `${d}button.png`, 'E', 'input/@src');
    assert.ok(!L.some((l) => l.url.endsWith('not-an-image.png')));
    has(L, `${d}div.png`, 'E', 'div/@style');
    has(L, `${d}tbl.gif`, 'E', 'table/@background');
    has(L, `${d}td.gif`, 'E', 'td/@background');
    has(L, `${d}noscript.png`, 'E', 'img/@src');
    has(L, `${d}in-template.html`, 'L', 'a/@href');
    has(L, `${d}svg-img.png`, 'E', 'image/@href');
  });

  it('frameset pages yield their frames', () => {
    const ex = extractHtml('<html><frameset><frame src="left.html"><frame src="right.html"></frameset></html>', PAGE);
    has(ex.links, 'http://site-a.test/dir/left.html', 'E', 'frame/@src');
    has(ex.links, 'http://site-a.test/dir/right.html', 'E', 'frame/@src');
  });

  it('resolves against the first <base href>, for links before and after it', () => {
    const html = '<a href="before.html">x</a><base href="http://cdn.test/root/"><base href="http://ignored.test/"><img src="i.png">';
    const ex = extractHtml(html, PAGE);
    assert.equal(ex.baseUrl, 'http://cdn.test/root/');
    assert.deepEqual(ex.links.map((l) => l.url), ['http://cdn.test/root/before.html', 'http://cdn.test/root/i.png']);
  });

  it('resolves a relative base against the page', () => {
    const ex = extractHtml('<base href="../other/"><a href="x">x</a>', PAGE);
    assert.deepEqual(ex.links.map((l) => l.url), ['http://site-a.test/other/x']);
  });

  it('follows meta refresh as a redirect hop (R)', () => {
    const ex = extractHtml('<meta http-equiv="Refresh" content="0; url=\'/next.html\'">', PAGE);
    assert.deepEqual(ex.links, [{ url: 'http://site-a.test/next.html', hop: 'R', context: 'meta/@content' }]);
  });

  it('skips non-http schemes and empty values, drops fragments, trims, de-duplicates', () => {
    const html = `
      <a href="mailto:a@b.test">m</a><a href="javascript:void(0)">j</a><a href="tel:+123">t</a>
      <img src="data:image/png;base64,AAAA"><a href="about:blank">a</a><a href="">e</a><a href="#top">f</a>
      <a href="ftp://files.test/x">ftp</a><a>no href</a>
      <a href="  spaced.html#frag  ">s</a><a href="spaced.html">again</a><a href="spaced.html#other">again</a>
      <img src="spaced.html">`;
    const ex = extractHtml(html, PAGE);
    assert.deepEqual(ex.links, [
      { url: 'http://site-a.test/dir/spaced.html', hop: 'L', context: 'a/@href' },
      { url: 'http://site-a.test/dir/spaced.html', hop: 'E', context: 'img/@src' },
    ]);
  });

  it('reads meta robots noindex / nofollow / none, case-insensitively', () => {
    assert.deepEqual(extractHtml('<meta name="ROBOTS" content="NoIndex">', PAGE).metaRobots, { noindex: true, nofollow: false });
    assert.deepEqual(extractHtml('<meta name="robots" content="index, nofollow">', PAGE).metaRobots, { noindex: false, nofollow: true });
    assert.deepEqual(extractHtml('<meta name="robots" content="none">', PAGE).metaRobots, { noindex: true, nofollow: true });
    assert.deepEqual(extractHtml('<meta name="description" content="noindex">', PAGE).metaRobots, { noindex: false, nofollow: false });
  });

  it('caps the number of links', () => {
    let html = '';
    for (let i = 0; i < 5000; i++) html += `<a href="/p${i}">x</a>`;
    const ex = extractHtml(html, PAGE, { maxLinks: 1000 });
    assert.equal(ex.links.length, 1000);
    assert.equal(ex.links[999]!.url, 'http://site-a.test/p999');
  });

  it("takes elements named like Object's members for the unknown elements they are", () => {
    const names = ['constructor', '__proto__', 'tostring', 'hasownproperty', 'valueof', '__definegetter__', 'isprototypeof'];
    const html = names.map((n) => `<${n} src="/${n}.js" data="/${n}.bin" href="/${n}.html">x</${n}>`).join('') + '<a href="/after.html">a</a>';
    // Past the cap the same names are counted, not looked up as embeds either.
    for (const maxLinks of [100, 1]) {
      const ex = extractHtml(`<a href="/first.html">f</a>${html}`, PAGE, { maxLinks });
      assert.deepEqual(ex.links.map((l) => l.url), ['http://site-a.test/first.html', 'http://site-a.test/after.html'].slice(0, maxLinks));
    }
  });

  it('returns a null title when there is none', () => {
    assert.equal(extractHtml('<p>hi</p><svg><title>icon</title></svg>', PAGE).title, null);
  });
});

describe('srcset and meta refresh parsing', () => {
  it('splits srcset candidates, keeping commas inside URLs', () => {
    assert.deepEqual(srcsetUrls(' a.png 1x,b.png   2x , c.png 300w, d.png'), ['a.png', 'b.png', 'c.png', 'd.png']);
    assert.deepEqual(srcsetUrls('img.php?w=100,200 1x, other.png'), ['img.php?w=100,200', 'other.png']);
    assert.deepEqual(srcsetUrls('a.png,b.png'), ['a.png,b.png']);
    assert.deepEqual(srcsetUrls('a.png, b.png'), ['a.png', 'b.png']);
    assert.deepEqual(srcsetUrls(''), []);
  });

  it('reads the URL from every refresh form', () => {
    assert.equal(metaRefreshUrl('0; url=next.html'), 'next.html');
    assert.equal(metaRefreshUrl('5;URL="quoted.html"'), 'quoted.html');
    assert.equal(metaRefreshUrl('3, bare.html'), 'bare.html');
    assert.equal(metaRefreshUrl('1.5 ; url = spaced.html '), 'spaced.html');
    assert.equal(metaRefreshUrl('30'), null);
    assert.equal(metaRefreshUrl('x; url=no-delay.html'), null);
  });
});

describe('extractCss', () => {
  it('finds url() with and without quotes and both @import forms, resolved against the stylesheet', () => {
    const css = `@import "a.css"; @import url(b.css) screen; @IMPORT 'c.css';
      /* url(commented.png) */ .x { background: url(d.png) } .y { background: URL("e f.png") }
      .z::before { content: "url(not-a-ref.png)" } .w { background-image: url( 'g.png' ), url(h\\29 .png) }
      .font { src: url(data:font/woff;base64,AAA) } .ok { mask: url(#svg-mask) }`;
    const links = extractCss(css, 'http://cdn.test/css/main.css');
    assert.deepEqual(
      links.map((l) => `${l.hop} ${l.context} ${l.url}`),
      [
        'E css/@import http://cdn.test/css/a.css',
        'E css/@import http://cdn.test/css/b.css',
        'E css/@import http://cdn.test/css/c.css',
        'E css/url() http://cdn.test/css/d.png',
        'E css/url() http://cdn.test/css/e%20f.png',
        'E css/url() http://cdn.test/css/g.png',
        'E css/url() http://cdn.test/css/h).png',
      ],
    );
  });

  it('does not take identifiers ending in "url(" for references', () => {
    assert.deepEqual(extractCss('.a { background: myurl(x.png) }', 'http://cdn.test/'), []);
  });
});

describe('robotsDirectivesFromHeaders', () => {
  it('reads X-Robots-Tag, all occurrences, any case', () => {
    assert.deepEqual(robotsDirectivesFromHeaders([['X-Robots-Tag', 'noindex']]), { noindex: true, nofollow: false });
    assert.deepEqual(robotsDirectivesFromHeaders([['x-robots-tag', 'NoFollow'], ['X-ROBOTS-TAG', 'noarchive']]), { noindex: false, nofollow: true });
    assert.deepEqual(robotsDirectivesFromHeaders([['X-Robots-Tag', 'none']]), { noindex: true, nofollow: true });
    assert.deepEqual(robotsDirectivesFromHeaders([['X-Robots-Tag', 'unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow']]), { noindex: false, nofollow: true });
    assert.deepEqual(robotsDirectivesFromHeaders([['Content-Type', 'text/html']]), { noindex: false, nofollow: false });
  });

  it('ignores values scoped to another user agent, applies ones scoped to ours', () => {
    const headers = [['X-Robots-Tag', 'googlebot: noindex, nofollow']] as const;
    assert.deepEqual(robotsDirectivesFromHeaders(headers), { noindex: false, nofollow: false });
    assert.deepEqual(robotsDirectivesFromHeaders(headers, 'archiver/0.1'), { noindex: false, nofollow: false });
    assert.deepEqual(robotsDirectivesFromHeaders([['X-Robots-Tag', 'archiver: nofollow']], 'archiver/0.1 (+http://x.test/)'), { noindex: false, nofollow: true });
  });
});
