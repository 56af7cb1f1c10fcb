/**
 * LinkCollector remembers each page's resolutions by resolutionKey (a
 * value up to its fragment). That must never change a link: on thousands of
 * generated values — fragments, whitespace and control characters around
 * and before the `#`, `#` inside authorities, queries and schemes, dot
 * segments, backslashes, percent signs, non-ASCII — the key resolves to
 * exactly what the whole value resolves to, against several bases; and a
 * collector fed them gives the links resolving each value alone would.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LinkCollector, resolutionKey } from '../../src/fetch/html-scan-links.js';
import { directoryOf, resolveKey, resolveUrl } from '../../src/fetch/link-resolution.js';
import { mulberry32 } from '../helpers/prng.js';

const PARTS = [
  'a.html', '../b/c.html', './', '/', '//other.example/x', 'http://h.example', 'https://h.example:8443/p', 'HTTP://H.example/Q', 'mailto:x@y', 'javascript:void(0)', 'ftp://f/',
  'http:', 'http:x', 'x:y', '#', '#frag', '##', 'a#b#c', '?', '?q=1', '&b=2', '%23', '%', '%zz', '\\', '\\\\h\\p', '..', '.', ' ', '  ', '\t', '\n', '\r', '\f', '\u0000', '\u0001',
  '\u001f', '\u00a0', '\u3000', 'é', '😀', 'user:pw@', '@', ':', '[::1]', '[', 'index', 'x y', '"', "'", '<', '>', '`', '{', '}', '|', '^',
];

const BASES = ['http://127.0.0.1:8080/dir/page.html', 'https://docs.example/a/b/', 'http://h.example', 'http://h.example/x?y=1#z'];

function randomValue(rnd: () => number): string {
  const n = 1 + Math.floor(rnd() * 6);
  let v = '';
  for (let i = 0; i < n; i++) v += PARTS[Math.floor(rnd() * PARTS.length)];
  return v;
}

describe('resolution by key', () => {
  it('a value up to its fragment resolves exactly as the whole value does', () => {
    const rnd = mulberry32(23);
    let keyed = 0;
    for (let i = 0; i < 20_000; i++) {
      const raw = randomValue(rnd);
      const key = resolutionKey(raw.trim());
      if (key !== raw.trim()) keyed++;
      for (const base of BASES) assert.equal(resolveUrl(key, base), resolveUrl(raw, base), `${JSON.stringify(raw)} against ${base}`);
    }
    // The generator does reach the shortened keys the memo relies on.
    assert.ok(keyed > 2000, `only ${keyed} values were shortened`);
  });

  it('whitespace just before the fragment keeps the whole value as its key', () => {
    assert.equal(resolutionKey('a.html#x'), 'a.html');
    assert.equal(resolutionKey('a #x'), 'a #x');
    assert.equal(resolutionKey('a\t#x'), 'a\t#x');
    assert.equal(resolutionKey('#x'), '#x');
    assert.equal(resolveUrl('a #x', BASES[0]!), 'http://127.0.0.1:8080/dir/a%20');
  });

  it('a \'%\' that begins no escape is sent as %25, in the path and the query; escapes are kept as they are', () => {
    const base = 'http://h.example/boost/yap/';
    assert.equal(resolveUrl('operator%.html', base), 'http://h.example/boost/yap/operator%25.html');
    assert.equal(resolveUrl('operator%25.html', base), 'http://h.example/boost/yap/operator%25.html');
    assert.equal(resolveUrl('a%4.html?x=100%&y=%41%zz#%frag', base), 'http://h.example/boost/yap/a%254.html?x=100%25&y=%41%25zz');
    assert.equal(resolveUrl('%%41%', base), 'http://h.example/boost/yap/%25%41%25');
    // The whole value and its resolution key still agree (the fragment cut can leave a bare '%').
    assert.equal(resolveUrl('a%#x', base), resolveUrl(resolutionKey('a%#x'), base));
    assert.equal(resolveUrl('a%#x', base), 'http://h.example/boost/yap/a%25');
  });

  it('a collector gives the links that resolving each value alone gives, in order', () => {
    const rnd = mulberry32(7);
    for (let page = 0; page < 300; page++) {
      const base = BASES[page % BASES.length]!;
      const values = Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => randomValue(rnd));
      // Repeats at other anchors, as documentation pages have them.
      for (const v of values.slice(0, 10)) values.push(`${v}#again`, v);
      const maxLinks = 1 + Math.floor(rnd() * 40);
      const collector = new LinkCollector(base, { maxLinks, mayHaveBase: false });
      for (const v of values) collector.add(v, 'L', 'a/@href');
      const expected: string[] = [];
      for (const v of values) {
        const url = resolveUrl(v, base);
        if (url !== null && !expected.includes(url) && expected.length < maxLinks) expected.push(url);
      }
      assert.deepEqual(collector.links.map((l) => l.url), expected, `page ${page}`);
    }
  });

  it('a late <base> resolves what came before it again, not from the memo', () => {
    const collector = new LinkCollector('http://h.example/one/page.html', { maxLinks: 10, mayHaveBase: true });
    collector.add('x.html#a', 'L', 'a/@href');
    collector.setBase('http://other.example/two/');
    collector.add('x.html#b', 'L', 'a/@href');
    collector.add('y.html', 'L', 'a/@href');
    assert.deepEqual(collector.links.map((l) => l.url), ['http://other.example/two/x.html', 'http://other.example/two/y.html']);
  });
});

describe('a plain segment resolved without the URL parser', () => {
  // Bases as pages and <base> elements give them: queries and fragments holding '/', userinfo, ports,
  // IPv6, percent-encoded and dot segments, an empty query, a directory, no path, and some that are not http(s).
  const bases = [
    ...BASES, 'http://h.example/a/b.html?x=/y/z', 'http://h.example/a/?', 'http://h.example/a/b#/c/d', 'http://u:p@h.example:81/p/q',
    'https://[::1]:8443/v/w/', 'http://h.example/%7Ea/b%2Fc/d', 'http://h.example/a/./b/../c', 'HTTP://H.EXAMPLE/A', 'http://h.example/a b/c',
    'ftp://f.example/a/b', 'file:///tmp/a', 'mailto:x@y', 'not a url',
  ];
  const chars = 'aZ09._~-!$&\'()*+,;=:@/?#%\\ é\t';

  it('gives what the URL parser gives, for every value against every base', () => {
    const rnd = mulberry32(41);
    let shortcut = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + Math.floor(rnd() * 8);
      let key = '';
      // Mostly path characters, so that many values are plain segments.
      for (let j = 0; j < n; j++) key += rnd() < 0.8 ? 'aZ09._~-'[Math.floor(rnd() * 8)] : chars[Math.floor(rnd() * chars.length)];
      for (const base of bases) {
        const directory = directoryOf(base);
        assert.equal(resolveKey(key, base, directory), resolveUrl(key, base), `${JSON.stringify(key)} against ${base}`);
        if (directory !== null && /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/.test(key)) shortcut++;
      }
    }
    assert.ok(shortcut > 50_000, `the shortcut was taken ${shortcut} times`);
  });

  it('knows the directory of an http(s) URL as the parser writes it, and of nothing else', () => {
    assert.equal(directoryOf('http://h.example/a/b.html?x=/y/z'), 'http://h.example/a/');
    assert.equal(directoryOf('http://h.example/a/b#/c/d'), 'http://h.example/a/');
    assert.equal(directoryOf('http://u:p@h.example:81/p/q'), 'http://u:p@h.example:81/p/');
    assert.equal(directoryOf('http://h.example'), null, 'not as the parser writes it (no path)');
    assert.equal(directoryOf('http://h.example/'), 'http://h.example/');
    assert.equal(directoryOf('HTTP://H.EXAMPLE/A'), null);
    assert.equal(directoryOf('ftp://f.example/a/b'), null);
    assert.equal(directoryOf('not a url'), null);
  });
});
