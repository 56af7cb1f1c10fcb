/**
 * SURT keys: the CDXJ form must agree with warcio.js `getSurt` (the indexer
 * replay relies on) on ordinary URLs; the authority form must match
 * Heritrix's SurtAuthorityQueueAssignmentPolicy keys.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getSurt } from 'warcio';
import { surt, surtAuthority } from '../../src/url/surt.js';

describe('surt (CDXJ form)', () => {
  const cases: [string, string][] = [
    ['http://www.example.com/', 'com,example)/'],
    ['https://example.com', 'com,example)/'],
    ['http://www3.example.com/Path/To?b=2&a=1', 'com,example)/path/to?a=1&b=2'],
    ['http://example.com:8080/x', 'com,example:8080)/x'],
    ['https://example.com:443/x', 'com,example)/x'],
    ['http://example.com:80/x?', 'com,example)/x'],
    ['http://sub.example.co.uk/a#frag', 'uk,co,example,sub)/a'],
    ['http://127.0.0.1:8080/x?z&y=1', '1,0,0,127:8080)/x?y=1&z'],
    ['http://wwwx.example.com/', 'com,example,wwwx)/'],
  ];
  for (const [url, expected] of cases) {
    it(`${url} → ${expected}`, () => {
      assert.equal(surt(url), expected);
      assert.equal(getSurt(url), expected, 'warcio disagrees');
    });
  }

  it('strips an upper-case WWW prefix too (warcio only strips it lower-case)', () => {
    assert.equal(surt('http://WWW.Example.com/'), 'com,example)/');
  });

  it('returns non-HTTP and unparsable input unchanged', () => {
    assert.equal(surt('dns:example.com'), 'dns:example.com');
    assert.equal(surt('not a url'), 'not a url');
  });
});

describe('surtAuthority (Heritrix queue key)', () => {
  it('reverses host labels with a trailing comma, keeping www', () => {
    assert.equal(surtAuthority('http://www.example.com/a/b'), 'com,example,www,');
  });
  it('gives http and https of one host the same key', () => {
    assert.equal(surtAuthority('https://www.example.com/'), surtAuthority('http://www.example.com/'));
    assert.equal(surtAuthority('https://Example.COM:443/'), 'com,example,');
  });
  it('keeps a non-default port as #port', () => {
    assert.equal(surtAuthority('http://example.com:8080/'), 'com,example,#8080');
    assert.notEqual(surtAuthority('https://example.com:80/'), surtAuthority('https://example.com/'));
  });
  it('does not reverse dotted-quad IPs', () => {
    assert.equal(surtAuthority('http://127.0.0.2:8081/x'), '127.0.0.2#8081');
  });
  it('drops userinfo and falls back to Heritrix default key', () => {
    assert.equal(surtAuthority('http://user:pw@example.com/'), 'com,example,');
    assert.equal(surtAuthority('mailto:someone@example.com'), 'default...');
  });
});
