// Matching rules of one robots.txt: groups, wildcards, longest match, ties, crawl-delay.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOW_ALL, DISALLOW_ALL, agentToken, parseRobotsTxt } from '../../src/politeness/robots-rules.js';

const UA = 'archiver/0.1 (+https://example.org/about-our-crawler)';

describe('agentToken', () => {
  it('is the lower-cased product token', () => {
    assert.equal(agentToken(UA), 'archiver');
    assert.equal(agentToken('  ArchiverBot '), 'archiverbot');
    assert.equal(agentToken('Googlebot/2.1'), 'googlebot');
    assert.equal(agentToken('*'), '*');
  });
});

describe('parseRobotsTxt', () => {
  it('honours * and $ wildcards', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /*.pdf$\nDisallow: /tmp*/cache\n');
    assert.equal(rules.isAllowed('http://h/a/b.pdf', UA), false);
    assert.equal(rules.isAllowed('http://h/a/b.pdf?x=1', UA), true, '$ anchors at the end of path+query');
    assert.equal(rules.isAllowed('http://h/a/b.pdfx', UA), true);
    assert.equal(rules.isAllowed('http://h/tmp42/cache/x', UA), false);
    assert.equal(rules.isAllowed('http://h/tmp/other', UA), true);
  });

  it('lets the longest matching rule win', () => {
    const rules = parseRobotsTxt(
      'User-agent: *\nDisallow: /shop\nAllow: /shop/\nAllow: /p\nDisallow: /p/secret\n',
    );
    assert.equal(rules.isAllowed('http://h/shop', UA), false);
    assert.equal(rules.isAllowed('http://h/shopping', UA), false);
    assert.equal(rules.isAllowed('http://h/shop/item', UA), true);
    assert.equal(rules.isAllowed('http://h/p/ok', UA), true);
    assert.equal(rules.isAllowed('http://h/p/secret/x', UA), false);
  });

  it('lets allow win a tie between rules of equal length', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /tie\nAllow: /tie\nDisallow: /t*e\nAllow: /t*e\n');
    assert.equal(rules.isAllowed('http://h/tie', UA), true);
    assert.equal(rules.isAllowed('http://h/toe', UA), true);
  });

  it('matches the query string too', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /search?q=\n');
    assert.equal(rules.isAllowed('http://h/search?q=x', UA), false);
    assert.equal(rules.isAllowed('http://h/search', UA), true);
  });

  it('compares percent-encoded paths with encoded patterns', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /caf%C3%A9\n');
    assert.equal(rules.isAllowed('http://h/café', UA), false);
    assert.equal(rules.isAllowed('http://h/cafe', UA), true);
  });

  it('uses our own group instead of *, merging groups that name us twice', () => {
    const text = [
      'User-agent: *',
      'Disallow: /',
      '',
      'User-agent: Archiver',
      'Disallow: /mine/',
      '',
      'User-agent: archiver',
      'Disallow: /also-mine/',
    ].join('\n');
    const rules = parseRobotsTxt(text);
    assert.equal(rules.isAllowed('http://h/page', UA), true, 'our group does not inherit * rules');
    assert.equal(rules.isAllowed('http://h/mine/x', UA), false);
    assert.equal(rules.isAllowed('http://h/also-mine/x', UA), false);
    assert.equal(rules.isAllowed('http://h/page', 'otherbot/1.0'), false, 'an unnamed agent falls to *');
  });

  it('allows everything to an unnamed agent when there is no * group', () => {
    const rules = parseRobotsTxt('User-agent: googlebot\nDisallow: /\n');
    assert.equal(rules.isAllowed('http://h/x', UA), true);
    assert.equal(rules.isAllowed('http://h/x', 'Googlebot/2.1'), false);
  });

  it('groups consecutive User-agent lines', () => {
    const rules = parseRobotsTxt('User-agent: a\nUser-agent: archiver\nDisallow: /shared/\n');
    assert.equal(rules.isAllowed('http://h/shared/1', UA), false);
    assert.equal(rules.isAllowed('http://h/shared/1', 'a'), false);
  });

  it('is independent of the host and port the URL names', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /private/\n');
    assert.equal(rules.isAllowed('https://other.example:8443/private/x', UA), false);
    assert.equal(rules.isAllowed('http://127.0.0.2:1234/public', UA), true);
  });

  it('tolerates a UTF-8 byte-order mark before the first line', () => {
    const rules = parseRobotsTxt('\uFEFFUser-agent: *\nDisallow: /bom\n');
    assert.equal(rules.isAllowed('http://h/bom', UA), false);
  });

  it('refuses a URL it cannot parse', () => {
    assert.equal(parseRobotsTxt('').isAllowed('not a url', UA), false);
  });

  it('reports the crawl-delay of our group, else of *', () => {
    const rules = parseRobotsTxt('User-agent: *\nCrawl-delay: 2\n\nUser-agent: archiver\nCrawl-delay: 7.5\n\nUser-agent: odd\nCrawl-delay: soon\n');
    assert.equal(rules.crawlDelay(UA), 7.5);
    assert.equal(rules.crawlDelay('someone'), 2);
    assert.equal(rules.crawlDelay('odd'), null, 'unparseable value');
    assert.equal(parseRobotsTxt('User-agent: *\nDisallow: /x\n').crawlDelay(UA), null);
  });

  it('lists the agents the file names, as written, once each', () => {
    const rules = parseRobotsTxt(
      '# comment\nUser-agent: *\nDisallow: /a\nUser-agent: Googlebot/2.1 # google\nUser-Agent: googlebot\nuser-agent:bingbot\nDisallow:\n',
    );
    assert.deepEqual(rules.agents(), ['*', 'Googlebot', 'bingbot']);
  });
});

describe('ALLOW_ALL and DISALLOW_ALL', () => {
  it('answer the same for every URL and agent', () => {
    assert.equal(ALLOW_ALL.isAllowed('http://h/x', UA), true);
    assert.equal(DISALLOW_ALL.isAllowed('http://h/x', UA), false);
    assert.equal(ALLOW_ALL.crawlDelay(UA), null);
    assert.deepEqual(DISALLOW_ALL.agents(), []);
  });
});
