/**
 * The tokenizer scan behind extractHtml: the tree builder's jobs it takes
 * over (text states, foreign content), the visible text it builds for the
 * WACZ page list, the late <base> replay, and that a page of a million
 * links is scanned to its end in bounded memory.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractHtml } from '../../src/fetch/link-extractor.js';
import { scanHtml, type HtmlScanHandler } from '../../src/fetch/html-scan.js';
import { VisibleText } from '../../src/fetch/html-scan-text.js';

const PAGE = 'http://site-a.test/dir/page.html';
const urls = (html: string): string[] => extractHtml(html, PAGE).links.map((l) => l.url);
const text = (html: string, maxTextChars?: number): string => extractHtml(html, PAGE, maxTextChars === undefined ? {} : { maxTextChars }).text;

/** Records what the scanner reports, one string per call. */
function record(html: string): string[] {
  const events: string[] = [];
  const handler: HtmlScanHandler = {
    onHtmlElement: (tag) => events.push(`html ${tag}`),
    onForeignElement: (tag) => events.push(`foreign ${tag}`),
    onElementText: (tag, t) => events.push(`${tag} text ${JSON.stringify(t)}`),
    onVisibleText: (chunk) => events.push(`text ${JSON.stringify(chunk)}`),
    onTextBoundary: () => {},
  };
  scanHtml(html, handler);
  return events;
}

describe('scanHtml', () => {
  it('reports elements in document order, HTML and foreign apart, <image> read as <img>', () => {
    assert.deepEqual(record('<p>a<image src=x><svg><circle/><image/></svg><math><mi></mi></math>'), [
      'html p', 'text "a"', 'html img', 'foreign svg', 'foreign circle', 'foreign image', 'foreign math', 'foreign mi',
    ]);
  });

  it('reads script, style, title, textarea, iframe, noembed, noframes and xmp content as text, not markup', () => {
    const html = `<script>document.write('<a href="s.html">')</script><style>/* <a href="st.html"> */</style>
      <title><a href="t.html"></title><textarea><a href="ta.html"></textarea><iframe><a href="if.html"></iframe>
      <noembed><a href="ne.html"></noembed><noframes><a href="nf.html"></noframes><xmp><a href="x.html"></xmp><a href="real.html">r</a>`;
    assert.deepEqual(urls(html), ['http://site-a.test/dir/real.html']);
    assert.equal(extractHtml(html, PAGE).title, '<a href="t.html">');
  });

  it('reads everything after <plaintext> as text', () => {
    assert.deepEqual(urls('<a href="before.html">b</a><plaintext><a href="after.html">'), ['http://site-a.test/dir/before.html']);
  });

  it('collects an unterminated <title> or <style> to the end of input', () => {
    assert.deepEqual(record('<title>open'), ['html title', 'title text "open"']);
    assert.deepEqual(urls('<style>@import "late.css"'), ['http://site-a.test/dir/late.css']);
  });

  it('inside SVG: no text states, CDATA is text, <a> is not followed, <image> is', () => {
    const html = `<svg><style>@import "svg.css";</style><a href="svg-a.html"><text>t</text></a>
      <![CDATA[ x > <img src="in-cdata.png"> ]]><image xlink:href="xl.png"/><image href="h.png"></image></svg>`;
    assert.deepEqual(urls(html), ['http://site-a.test/dir/xl.png', 'http://site-a.test/dir/h.png']);
  });

  it('leaves foreign content where the tree builder does: breakout tags, end of <svg>, integration points', () => {
    assert.deepEqual(urls('<svg><p><a href="broke-out.html">x</a></svg>'), ['http://site-a.test/dir/broke-out.html']);
    assert.deepEqual(urls('<svg><g></g></svg><a href="after.html">x</a>'), ['http://site-a.test/dir/after.html']);
    assert.deepEqual(urls('<svg><foreignObject><div><a href="fo.html">x</a></div></foreignObject><a href="svg-a.html"></a></svg>'), [
      'http://site-a.test/dir/fo.html',
    ]);
    assert.deepEqual(urls('<math><mi><a href="mi.html">x</a></mi></math>'), ['http://site-a.test/dir/mi.html']);
    // An unclosed <svg> ends with the HTML element around it; an unmatched SVG end tag changes nothing.
    assert.deepEqual(urls('<div><svg><g></div><a href="after-div.html">x</a>'), ['http://site-a.test/dir/after-div.html']);
    assert.deepEqual(urls('<svg><g></path><a href="svg-a.html"></a></g></svg>'), []);
    // After </svg>, CDATA is a bogus comment again: it ends at the first '>'.
    assert.deepEqual(urls('<svg></svg><![CDATA[ x > <img src="after-cdata.png"> ]]>'), ['http://site-a.test/dir/after-cdata.png']);
  });
});

describe('extractHtml visible text', () => {
  it('collapses whitespace, decodes entities and separates text nodes as page-text.ts does', () => {
    const html = `<!doctype html><html><head><title>T</title><meta charset="utf-8"></head>
      <body><h1>Big\n\t  news</h1><p>Hello <b>bold</b>world &amp; friends&nbsp;&nbsp;x<!-- c -->y</p>
      <ul><li>one</li><li>two</li></ul></body></html>`;
    assert.equal(text(html), 'Big news Hello bold world & friends x y one two');
  });

  it('leaves out the title and non-rendered content, keeps textarea and xmp', () => {
    const html = `<title>title</title><p>a</p><script>script()</script><style>.s{}</style><template><p>tpl</p></template>
      <noscript><p>noscript</p></noscript><object data="o.swf"><p>fallback</p></object><canvas>canvas</canvas>
      <iframe>iframe</iframe><svg><text>svg</text><foreignObject><p>fo</p></foreignObject></svg><math><mi>math</mi></math>
      <p>b</p><textarea>typed</textarea><xmp>x<y</xmp>`;
    assert.equal(text(html), 'a b typed x<y');
  });

  it('is empty for a page without text', () => {
    assert.equal(text('<html><head><title>only</title></head><body> \n </body></html>'), '');
  });

  it('caps the text at maxTextChars, as a prefix of the whole', () => {
    const html = '<p>' + Array.from({ length: 200 }, (_, i) => `word${i}`).join(' </p><p> ') + '</p>';
    const whole = text(html);
    assert.ok(whole.length > 1000);
    for (const cap of [1, 5, 7, 100, 999]) {
      const capped = text(html, cap);
      assert.ok(capped.length <= cap, `${capped.length} > ${cap}`);
      assert.ok(capped.length >= cap - 1, `${capped.length} for ${cap}`);
      assert.ok(whole.startsWith(capped));
    }
  });

  it('keeps only the cap of one huge text node', () => {
    const ex = extractHtml(`<p>${'lorem ipsum '.repeat(500_000)}</p>`, PAGE, { maxTextChars: 50 });
    assert.equal(ex.text, 'lorem ipsum '.repeat(5).slice(0, 50).trimEnd());
  });
});

describe('VisibleText', () => {
  it('treats every JavaScript whitespace character as a separator, and nothing else', () => {
    const t = new VisibleText(1000);
    for (const chunk of ['a\u00a0b', '\u2003', 'c\u3000\u3000d', '\u200b', 'e\u0085f']) t.append(chunk);
    // U+200B (zero width space) and U+0085 are not \s in JavaScript.
    assert.equal(t.toString(), 'a b c d\u200be\u0085f');
  });

  it('owes a space at a boundary only between words', () => {
    const t = new VisibleText(1000);
    t.boundary();
    t.append('  ');
    t.append('a');
    t.boundary();
    t.boundary();
    t.append('b ');
    t.append('c');
    t.boundary();
    assert.equal(t.toString(), 'a b c');
  });

  it('counts collapsed characters toward the cap, not raw ones', () => {
    const t = new VisibleText(10);
    t.append('a' + '\u00a0'.repeat(12));
    t.boundary();
    t.append('bcdefghijk');
    assert.equal(t.toString(), 'a bcdefghi');
  });

  it('keeps the same text whether words come one by one or several to a piece, across the cap', () => {
    const words = Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? `w${i}\u00a0\u00a0x` : `word${i}`));
    const all = words.join(' ').replace(/\s+/g, ' ');
    for (const cap of [50, 333, 1000, 5000]) {
      const one = new VisibleText(cap);
      for (const w of words) {
        one.append(w);
        one.boundary();
      }
      const several = new VisibleText(cap);
      for (let i = 0; i < words.length; i += 5) {
        several.append(words.slice(i, i + 5).join(' '));
        several.boundary();
      }
      const expected = all.slice(0, cap).trimEnd();
      assert.equal(one.toString(), expected, `cap ${cap}, one by one`);
      assert.equal(several.toString(), expected, `cap ${cap}, five to a piece`);
    }
  });
});

describe('late <base href>', () => {
  it('re-resolves links found before it, keeping links that only the new base tells apart', () => {
    const ex = extractHtml('<a href="x">1</a><a href="/dir/x">2</a><base href="http://other.test/q/"><a href="y">3</a>', PAGE);
    assert.equal(ex.baseUrl, 'http://other.test/q/');
    assert.deepEqual(ex.links.map((l) => l.url), ['http://other.test/q/x', 'http://other.test/dir/x', 'http://other.test/q/y']);
  });

  it('changes nothing when "<base" only appears in a comment or script', () => {
    const html = '<!-- <base href="http://c.test/"> --><script>s = "<base href=x>"</script><a href="x">x</a>';
    const ex = extractHtml(html, PAGE);
    assert.equal(ex.baseUrl, PAGE);
    assert.deepEqual(ex.links.map((l) => l.url), ['http://site-a.test/dir/x']);
  });

  it('a base that is not http(s) leaves the page URL in charge, and a later one does not count', () => {
    const ex = extractHtml('<a href="a">a</a><base href="javascript:void(0)"><base href="http://ignored.test/"><a href="b">b</a>', PAGE);
    assert.equal(ex.baseUrl, PAGE);
    assert.deepEqual(ex.links.map((l) => l.url), ['http://site-a.test/dir/a', 'http://site-a.test/dir/b']);
  });

  it('takes a late base start tag in any case and form, and only a base tag', () => {
    for (const tag of ['<BASE HREF="http://other.test/q/">', '<base\nhref=http://other.test/q/>', '<Base href="http://other.test/q/"/>']) {
      const ex = extractHtml(`<a href="x">1</a>${tag}<a href="y">2</a>`, PAGE);
      assert.equal(ex.baseUrl, 'http://other.test/q/', tag);
      assert.deepEqual(ex.links.map((l) => l.url), ['http://other.test/q/x', 'http://other.test/q/y'], tag);
    }
    const ex = extractHtml('<a href="x">1</a><basefont size=3><p>base</p>', PAGE);
    assert.equal(ex.baseUrl, PAGE);
    assert.deepEqual(ex.links.map((l) => l.url), ['http://site-a.test/dir/x']);
  });

  it('a second base tag after links, late or not, neither counts nor makes the reading fail', () => {
    for (const html of [
      '<base href="http://first.test/"><a href="x">1</a><base href="http://second.test/"><a href="y">2</a>',
      '<a href="x">1</a><base href="http://first.test/"><a href="y">2</a><base href="http://second.test/"><a href="z">3</a>',
    ]) {
      const ex = extractHtml(html, PAGE);
      assert.equal(ex.baseUrl, 'http://first.test/', html);
      assert.ok(ex.links.every((l) => l.url.startsWith('http://first.test/')), html);
    }
  });
});

describe('a page of a million links', () => {
  it('is scanned to its end in bounded memory; links stop at maxLinks', () => {
    const parts = ['<!doctype html><title>Sink</title><body>'];
    for (let i = 0; i < 1_000_000; i++) parts.push(`<a href="/s/${i}">${i}</a>\n`);
    parts.push('<meta name="robots" content="nofollow">');
    const html = parts.join('');
    parts.length = 0;
    const peakRss0 = process.resourceUsage().maxRSS * 1024;
    const ex = extractHtml(html, 'http://127.0.0.1/many');
    const peakGrowth = process.resourceUsage().maxRSS * 1024 - peakRss0;
    assert.equal(ex.links.length, 100_000);
    assert.equal(ex.links[99_999]!.url, 'http://127.0.0.1/s/99999');
    assert.deepEqual(ex.metaRobots, { noindex: false, nofollow: true }, 'the tag after the last link was read');
    assert.equal(ex.title, 'Sink');
    assert.equal(ex.text.length, 100_000);
    // The parse5 tree took ~780 MB for a page like this (34 MB of HTML); the result itself is ~20 MB.
    assert.ok(peakGrowth < 200 * 1024 * 1024, `peak RSS grew ${(peakGrowth / 1048576).toFixed(0)} MiB`);
  });
});
