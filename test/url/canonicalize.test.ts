/**
 * Seen-check canonicalization, rule by rule, with the examples Heritrix's
 * own rules document (StripSessionIDs, StripSessionCFIDs, StripWWWNRule,
 * FixupQueryString) plus the UURI normalizations they run after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeForSeen as canon, canonicalizeViaWhatwg } from '../../src/url/canonicalize.js';
import { plainHttpParts } from '../../src/url/url-split.js';

test('scheme and host are lowercased; the path keeps its case', () => {
  assert.equal(canon('HTTP://Example.ORG/Path/File.HTML'), 'http://example.org/Path/File.HTML');
});

test('IDN hosts become punycode', () => {
  assert.equal(canon('http://bücher.example/x'), 'http://xn--bcher-kva.example/x');
  assert.equal(canon('http://BÜCHER.example/x'), 'http://xn--bcher-kva.example/x');
});

test('userinfo is stripped from http, https and ftp URLs', () => {
  assert.equal(canon('http://stack:psswrd@archive.org/index.htm'), 'http://archive.org/index.htm');
  assert.equal(canon('https://user@archive.org/'), 'https://archive.org/');
  assert.equal(canon('ftp://u:p@files.example/f.txt'), 'ftp://files.example/f.txt');
});

test('default ports go, other ports stay', () => {
  assert.equal(canon('http://example.org:80/a'), 'http://example.org/a');
  assert.equal(canon('https://example.org:443/a'), 'https://example.org/a');
  assert.equal(canon('http://example.org:443/a'), 'http://example.org:443/a');
  assert.equal(canon('https://example.org:80/a'), 'https://example.org:80/a');
  assert.equal(canon('http://127.0.0.2:8080/a'), 'http://127.0.0.2:8080/a');
});

test('the fragment goes', () => {
  assert.equal(canon('http://example.org/a#section-2'), 'http://example.org/a');
  assert.equal(canon('http://example.org/a?b=1#'), 'http://example.org/a?b=1');
});

test('www and wwwN are stripped when the URL has something after the root slash', () => {
  assert.equal(canon('http://www.archive.org/index.html'), 'http://archive.org/index.html');
  assert.equal(canon('http://www0001.archive.org/index.html'), 'http://archive.org/index.html');
  assert.equal(canon('https://WWW2.archive.org/?q=1'), 'https://archive.org/?q=1');
  // Top pages stay distinct: a site may answer on only one of the two names.
  assert.equal(canon('http://www.archive.org/'), 'http://www.archive.org/');
  assert.equal(canon('http://www.archive.org'), 'http://www.archive.org/');
  // Only a leading www label, only on http(s).
  assert.equal(canon('http://wwwx.archive.org/a'), 'http://wwwx.archive.org/a');
  assert.equal(canon('http://sub.www.archive.org/a'), 'http://sub.www.archive.org/a');
  assert.equal(canon('ftp://www.archive.org/a'), 'ftp://www.archive.org/a');
  // Never strip the whole host away.
  assert.equal(canon('http://www./a'), 'http://www./a');
});

test('jsessionid, phpsessid and sid query parameters with 32-character values are stripped, any case', () => {
  const id = '999A9EF028317A82AC83F0FDFE59385A';
  assert.equal(canon(`http://archive.org/index.html?JSESSIONID=${id}`), 'http://archive.org/index.html');
  assert.equal(canon(`http://archive.org/index.html?jsessionid=${id}&x=y`), 'http://archive.org/index.html?x=y');
  assert.equal(canon(`http://archive.org/i.php?x=y&PHPSESSID=9682993c8daa2c5497996114facdc805`), 'http://archive.org/i.php?x=y');
  assert.equal(canon(`http://archive.org/i?a=1&sid=9682993c8daa2c5497996114facdc805&b=2`), 'http://archive.org/i?a=1&b=2');
  // Not a session id by Heritrix's patterns: wrong length, or only a suffix of the name.
  assert.equal(canon('http://archive.org/i?sid=12345'), 'http://archive.org/i?sid=12345');
  assert.equal(canon(`http://archive.org/i?mysid=${id}`), `http://archive.org/i?mysid=${id}`);
});

test('ASPSESSIONID parameters are stripped', () => {
  assert.equal(canon('http://archive.org/a.asp?ASPSESSIONIDAQBSDSRT=EOHBLBDDPFCLHKPGGKLILNAM'), 'http://archive.org/a.asp');
  assert.equal(canon('http://archive.org/a.asp?x=1&aspsessionidaqbsdsrt=EOHBLBDDPFCLHKPGGKLILNAM&y=2'), 'http://archive.org/a.asp?x=1&y=2');
});

test('ColdFusion CFID and CFTOKEN are stripped when both are present', () => {
  assert.equal(canon('http://archive.org/boo?CFID=1169580&CFTOKEN=48630702&dtstamp=22%2F08%2F2006'), 'http://archive.org/boo?dtstamp=22%2F08%2F2006');
  assert.equal(
    canon('http://archive.org/boo?CFID=14475712&CFTOKEN=2D89F5AF-3048-2957-DA4EE4B6B13661AB&r=468710288378&m=forgotten'),
    'http://archive.org/boo?r=468710288378&m=forgotten',
  );
  assert.equal(canon('http://archive.org/boo?cfid=1&a=b'), 'http://archive.org/boo?cfid=1&a=b');
});

test(';jsessionid= path parameters are stripped', () => {
  assert.equal(canon('http://example.org/shop;jsessionid=0A1B2C3D4E5F.node01?item=3'), 'http://example.org/shop?item=3');
  assert.equal(canon('http://example.org/a;JSESSIONID=abc/b'), 'http://example.org/a/b');
  assert.equal(canon('http://example.org/a;type=x'), 'http://example.org/a;type=x');
});

test('a trailing ? or &, and an empty leading &, are dropped', () => {
  assert.equal(canon('http://www.archive.org/index.html?'), 'http://archive.org/index.html');
  assert.equal(canon('http://archive.org/index.html?&'), 'http://archive.org/index.html');
  assert.equal(canon('http://archive.org/index.html?&x=y'), 'http://archive.org/index.html?x=y');
  assert.equal(canon('http://archive.org/index.html?x=y&'), 'http://archive.org/index.html?x=y');
  assert.equal(canon('http://archive.org/index.html?x=y&&z=1'), 'http://archive.org/index.html?x=y&&z=1');
});

test('non-hierarchical URLs: dns: bodies are lowercased, others kept', () => {
  assert.equal(canon('DNS:Archive.ORG'), 'dns:archive.org');
  assert.equal(canon('mailto:Someone@Example.org'), 'mailto:Someone@Example.org');
});

test('unparsable input comes back unchanged, without throwing', () => {
  for (const bad of ['', 'not a url', 'http://', 'http://exa mple.org/', '//example.org/relative']) {
    assert.equal(canon(bad), bad);
  }
});

test('canonicalizing twice changes nothing more', () => {
  for (const u of [
    'HTTP://User:Pw@WWW.Example.ORG:80/a/B.html?x=1&jsessionid=999A9EF028317A82AC83F0FDFE59385A&#f',
    'http://www.example.org/',
    'https://bücher.example/p;jsessionid=1?',
  ]) {
    const once = canon(u);
    assert.equal(canon(once), once);
  }
});

/**
 * Deterministic xorshift32 picks. (An LCG in plain doubles, as used here
 * before, loses its low bits above 2^53 and repeats after a few hundred
 * values, so most generated URLs were the same few.)
 */
function picker(seed: number): <T>(xs: readonly T[]) => T {
  let x = seed;
  return <T>(xs: readonly T[]): T => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return xs[(x >>> 0) % xs.length] as T;
  };
}

test('the fast path agrees with the WHATWG parser on thousands of generated URLs', () => {
  const pick = picker(7);
  const schemes = ['http://', 'https://', 'HTTP://', 'HttpS://', 'http:/', 'http:///', 'ftp://'];
  const hosts = ['example.org', 'WWW.Example.org', 'www2.example.org', 'www.', 'www.com', 'a_b.example', 'sub.www.example', '127.0.0.2',
    '127.1', '0x7f.0.0.1', 'example.123', 'example.org.', 'xn--bcher-kva.example', 'xn--invalid-.example', 'bücher.example',
    'u:p@example.org', '[::1]', 'exa%41mple.org', '', '192.168.0.1', '0.0.0.0', '255.255.255.255', '256.1.1.1', '1.2.3.04', '01.2.3.4',
    '1.2.3', '1.2.3.4.5', '1.2.3.4.', '1.2..4', '1.2.3.1000', '1.2.3.a', 'a.1.2.3.4', '0x1.2.3.4'];
  const ports = ['', ':80', ':443', ':8080', ':080', ':', ':65536', ':0'];
  const paths = ['', '/', '/a/b.html', '/A/B', '/a/./b', '/a/../b', '/.well-known/x', '/a%2e/b', '/%2E%2E/x', '/a b', '/a\\b',
    '/ü', '/a|b', '/a^b', '/a`b', '/{x}', '/a;jsessionid=ABC/b', '/a;type=i', "/it's", '/a%20b', '/%zz', '/a//b'];
  const queries = ['', '?', '?&', '?a=1', '?a=1&', '?&a=1', "?q='x'", '?q=a b', '?q=ü', '?sid=9682993c8daa2c5497996114facdc805',
    '?x=1&JSESSIONID=999A9EF028317A82AC83F0FDFE59385A', '?a=1?b=2', '?q=<x>', '?q=%41', '?CFID=1&CFTOKEN=2'];
  const frags = ['', '#', '#top', '#a b'];
  let compared = 0;
  let split = 0;
  for (let i = 0; i < 5000; i++) {
    const url = pick(schemes) + pick(hosts) + pick(ports) + pick(paths) + pick(queries) + pick(frags);
    assert.equal(canon(url), canonicalizeViaWhatwg(url), url);
    compared++;
    const quick = plainHttpParts(url);
    if (quick !== null) {
      const u = new URL(url);
      assert.deepEqual(quick, { protocol: u.protocol, hostname: u.hostname, port: u.port, pathname: u.pathname }, url);
      split++;
    }
  }
  assert.equal(compared, 5000);
  // Both happen: the quick split taken (189 of these odd mixes), and refused for what the parser would change.
  assert.ok(split > 100 && split < 4900, `split ${split}`);
  assert.deepEqual(plainHttpParts('http://127.0.0.2:8080/a/b?q=1#f'), { protocol: 'http:', hostname: '127.0.0.2', port: '8080', pathname: '/a/b' });
  assert.equal(plainHttpParts('http://127.1/'), null);
});

test('the one-scan path for already-canonical links agrees with the WHATWG parser near its edges', () => {
  // Shapes a crawl mostly sees (lowercase http(s), plain host, path, maybe a
  // query and fragment), each varied at one place where the scan must give
  // up or cut: www labels, ports, dot segments, %2e, `;`, session-like
  // parameter names of every length, empty parameters at the ends.
  const pick = picker(2024);
  const schemes = ['http://', 'https://', 'https://', 'http://'];
  const hosts = ['example.org', 'www.example.org', 'www1.example.org', 'www.', 'www.x', 'www', 'wwwx.org', 'a-b.c_d.example', 'xn--bcher-kva.example',
    'axn--b.example', 'a.xn--x', 'x-n--y.org', 'a.1b', 'a.b1', '9.example.org', 'host', 'a..b', '.a', 'a.',
    '127.0.0.2', '10.0.0.255', '0.0.0.0', '1.2.3.256', '1.02.3.4', '1.2.3', '1.2.3.4.5', 'www.1.2.3.4', '1.2.3.4x', '00.1.2.3'];
  const ports = ['', '', '', ':80', ':443', ':8080', ':0', ':00', ':08', ':65535', ':65536', ':123456', ':'];
  const paths = ['', '/', '/', '/a', '/a/b.html', '/docs/api/item-12.html', '/.x', '/a/.', '/a/..', '/a.b/c.', '/a%2e', '/a%2Eb', '/%2', '/a%41',
    '/a;b', '/a;jsessionid=1', '/a b', '/ü', "/it's", '/a|b', '/a//b', '/x-n--y'];
  const names = ['id', 'p', 'ref', 'sid', 'SID', 'six', 'cfid', 'CFID', 'cfix', 'cftoken', 'cftokex', 'phpsessid', 'phpsessix', 'jsessionid', 'JSESSIONIX',
    'aspsessionidabcdefgh', 'ASPSESSIONIDAQBSDSRT', 'aspsessionidabcdefg', 'q', ''];
  const values = ['1', 'nav', '', '9682993c8daa2c5497996114facdc805', 'EOHBLBDDPFCLHKPGGKLILNAM', 'a=b', "'", 'ü', '%20', '?x'];
  const frags = ['', '', '#', '#top', '#a b', '#ü'];
  let changed = 0;
  for (let i = 0; i < 8000; i++) {
    let query = '';
    const params = pick([0, 0, 1, 1, 2, 3]);
    if (params > 0) {
      const list = Array.from({ length: params }, () => (pick([0, 1, 2, 3]) === 0 ? pick(names) : `${pick(names)}=${pick(values)}`));
      query = pick(['?', '?', '?', '?&']) + list.join(pick(['&', '&', '&&'])) + pick(['', '', '', '&']);
    } else if (pick([0, 1, 2, 3, 4]) === 0) {
      query = '?';
    }
    const url = pick(schemes) + pick(hosts) + pick(ports) + pick(paths) + query + pick(frags);
    const got = canon(url);
    assert.equal(got, canonicalizeViaWhatwg(url), url);
    assert.equal(canon(got), got, `idempotent: ${url}`);
    if (got !== url) changed++;
  }
  // Both kinds occur: URLs returned as they are, and URLs the rules change.
  assert.ok(changed > 1000 && changed < 7000, `changed ${changed}`);
});

test('already-canonical links come back as the very same string; www and fragments are cut', () => {
  const plain = 'https://site1a.example.org/docs/api/item-1234.html?id=1234&ref=nav';
  assert.equal(canon(plain), plain);
  assert.equal(canon('http://a.example:8080/x?p=2'), 'http://a.example:8080/x?p=2');
  assert.equal(canon('https://www.site1.example.org/news/item-3.html?id=3&ref=nav#top'), 'https://site1.example.org/news/item-3.html?id=3&ref=nav');
  assert.equal(canon('https://www.site1.example.org/#top'), 'https://www.site1.example.org/');
  assert.equal(canon('https://www.site1.example.org/?a=1'), 'https://site1.example.org/?a=1');
  assert.equal(canon('http://www.:8080/a'), 'http://www.:8080/a');
  assert.equal(canon('http://example.org/a?ref=1&sid=9682993c8daa2c5497996114facdc805'), 'http://example.org/a?ref=1');
});
