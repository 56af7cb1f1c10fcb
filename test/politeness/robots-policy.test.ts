// Each robots policy's decisions on one robots.txt with several agent groups.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RobotsOptions, RobotsPolicyName } from '../../src/config/profile.js';
import { ROBOTS_POLICY_NAMES, createRobotsPolicy } from '../../src/politeness/robots-policy.js';
import { ALLOW_ALL, DISALLOW_ALL, parseRobotsTxt } from '../../src/politeness/robots-rules.js';

const UA = 'archiver/0.1 (+https://example.org/about-our-crawler)';
const BING = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';

const SITE = parseRobotsTxt(
  [
    'User-agent: *',
    'Disallow: /',
    '',
    'User-agent: archiver',
    'Disallow: /private/',
    'Allow: /private/open$',
    'Crawl-delay: 4',
    '',
    'User-agent: Googlebot',
    'Disallow: /private/secret',
    '',
    'User-agent: bingbot',
    'Disallow: /private/bing/',
    'Disallow: /private/secret',
  ].join('\n'),
);

function options(policy: RobotsPolicyName, extra: Partial<RobotsOptions> = {}): RobotsOptions {
  return { policy, candidateUserAgents: [], masquerade: false, custom: '', unavailable: { policy: 'disallow', retries: 2, retryDelayMs: 60_000 }, ...extra };
}

function allowed(policy: RobotsPolicyName, path: string, extra: Partial<RobotsOptions> = {}): boolean {
  return createRobotsPolicy(options(policy, extra), UA).allows(`http://site.test${path}`, SITE).allowed;
}

describe('the policy table', () => {
  it('has all seven names, each producing a policy of that name', () => {
    assert.deepEqual(
      [...ROBOTS_POLICY_NAMES].sort(),
      ['classic', 'custom', 'ignore', 'mostFavored', 'mostFavoredSet', 'obey', 'robotsTxtOnly'],
    );
    for (const name of ROBOTS_POLICY_NAMES) assert.equal(createRobotsPolicy(options(name), UA).name, name);
  });

  it('rejects an unknown name with a stable code', () => {
    assert.throws(
      () => createRobotsPolicy(options('sometimes' as RobotsPolicyName), UA),
      (err: unknown) => (err as { code?: string }).code === 'ARCHIVER_UNKNOWN_ROBOTS_POLICY',
    );
    assert.throws(() => createRobotsPolicy(options('toString' as RobotsPolicyName), UA));
  });

  it('declares which policies need robots.txt and honour meta robots', () => {
    const traits = Object.fromEntries(
      ROBOTS_POLICY_NAMES.map((name) => {
        const p = createRobotsPolicy(options(name), UA);
        return [name, [p.needsRobotsTxt, p.obeysMetaRobots]];
      }),
    );
    assert.deepEqual(traits, {
      obey: [true, true],
      classic: [true, true],
      robotsTxtOnly: [true, false],
      ignore: [false, false],
      custom: [false, true],
      mostFavored: [true, true],
      mostFavoredSet: [true, true],
    });
  });

  it('allows everything when no rules are known, except custom which has its own', () => {
    for (const name of ROBOTS_POLICY_NAMES) {
      const policy = createRobotsPolicy(options(name, { custom: 'User-agent: *\nDisallow: /\n' }), UA);
      assert.equal(policy.allows('http://site.test/x', null).allowed, name !== 'custom', name);
    }
  });
});

describe('obey, classic and robotsTxtOnly', () => {
  for (const name of ['obey', 'classic', 'robotsTxtOnly'] as const) {
    it(`${name} follows our own group only`, () => {
      assert.equal(allowed(name, '/public'), true, 'our group does not inherit "*: Disallow: /"');
      assert.equal(allowed(name, '/private/x'), false);
      assert.equal(allowed(name, '/private/open'), true, 'longer Allow with $');
      assert.equal(allowed(name, '/private/open/more'), false);
      assert.equal(createRobotsPolicy(options(name), UA).allows('http://s/x', DISALLOW_ALL).allowed, false);
      assert.equal(createRobotsPolicy(options(name), UA).allows('http://s/x', ALLOW_ALL).allowed, true);
    });
  }

  it('never masquerades and reports our crawl-delay', () => {
    const policy = createRobotsPolicy(options('obey', { masquerade: true, candidateUserAgents: ['Googlebot'] }), UA);
    assert.deepEqual(policy.allows('http://s/private/x', SITE), { allowed: false });
    assert.equal(policy.crawlDelaySec(SITE), 4);
    assert.equal(policy.crawlDelaySec(null), null);
  });
});

describe('ignore', () => {
  it('allows everything, even under disallow-all, and knows no crawl-delay', () => {
    const policy = createRobotsPolicy(options('ignore'), UA);
    assert.equal(policy.allows('http://s/private/secret', SITE).allowed, true);
    assert.equal(policy.allows('http://s/x', DISALLOW_ALL).allowed, true);
    assert.equal(policy.crawlDelaySec(SITE), null);
  });
});

describe('custom', () => {
  const text = 'User-agent: *\nDisallow: /custom-no/\nCrawl-delay: 9\n';

  it("uses the operator's text for every host instead of the site's", () => {
    const policy = createRobotsPolicy(options('custom', { custom: text }), UA);
    assert.equal(policy.allows('http://a.test/custom-no/x', ALLOW_ALL).allowed, false);
    assert.equal(policy.allows('https://b.test:8443/custom-no/x', null).allowed, false);
    assert.equal(policy.allows('http://a.test/private/x', SITE).allowed, true, "the site's own rules do not count");
    assert.equal(policy.allows('http://a.test/x', DISALLOW_ALL).allowed, true);
    assert.equal(policy.crawlDelaySec(SITE), 9);
  });

  it('with empty text allows everything', () => {
    const policy = createRobotsPolicy(options('custom'), UA);
    assert.equal(policy.allows('http://a.test/anything', DISALLOW_ALL).allowed, true);
  });
});

describe('mostFavored', () => {
  it('allows what any agent named in the file may fetch', () => {
    assert.equal(allowed('mostFavored', '/public'), true);
    assert.equal(allowed('mostFavored', '/private/x'), true, 'Googlebot and bingbot may');
    assert.equal(allowed('mostFavored', '/private/bing/x'), true, 'Googlebot may');
    assert.equal(allowed('mostFavored', '/private/secret'), false, 'nobody named may');
  });

  it('masquerades as the first favoured agent, as written in the file, only when asked', () => {
    const plain = createRobotsPolicy(options('mostFavored'), UA);
    assert.deepEqual(plain.allows('http://s/private/x', SITE), { allowed: true });
    const masked = createRobotsPolicy(options('mostFavored', { masquerade: true }), UA);
    assert.deepEqual(masked.allows('http://s/private/x', SITE), { allowed: true, userAgentToSend: 'Googlebot' });
    assert.deepEqual(masked.allows('http://s/public', SITE), { allowed: true }, 'we are allowed ourselves');
    assert.deepEqual(masked.allows('http://s/private/secret', SITE), { allowed: false });
  });

  it('sends our own agent when the favour comes from *', () => {
    const rules = parseRobotsTxt('User-agent: *\nAllow: /\n\nUser-agent: archiver\nDisallow: /\n');
    const masked = createRobotsPolicy(options('mostFavored', { masquerade: true }), UA);
    assert.deepEqual(masked.allows('http://s/x', rules), { allowed: true });
    assert.equal(createRobotsPolicy(options('obey'), UA).allows('http://s/x', rules).allowed, false);
  });
});

describe('mostFavoredSet', () => {
  const candidates = [BING, 'Googlebot'];

  it('allows what our agent or a candidate may fetch, and nothing the others may', () => {
    assert.equal(allowed('mostFavoredSet', '/public', { candidateUserAgents: candidates }), true);
    assert.equal(allowed('mostFavoredSet', '/private/x', { candidateUserAgents: candidates }), true);
    assert.equal(allowed('mostFavoredSet', '/private/bing/x', { candidateUserAgents: candidates }), true);
    assert.equal(allowed('mostFavoredSet', '/private/secret', { candidateUserAgents: candidates }), false);
    // Googlebot would allow it, but it is not in the set.
    assert.equal(allowed('mostFavoredSet', '/private/bing/x', { candidateUserAgents: [BING] }), false);
    assert.equal(allowed('mostFavored', '/private/bing/x'), true);
  });

  it('with no candidates follows our own group only, as obey does', () => {
    // By hand from SITE: the `archiver` group applies (not `*`): /private/ is
    // disallowed except exactly /private/open ($ anchors the end).
    const expected: Array<[string, boolean]> = [
      ['/public', true],
      ['/private/x', false],
      ['/private/open', true],
      ['/private/open/more', false],
      ['/private/bing/x', false],
      ['/private/secret', false],
    ];
    for (const [path, want] of expected) {
      assert.equal(allowed('mostFavoredSet', path), want, `mostFavoredSet ${path}`);
      assert.equal(allowed('obey', path), want, `obey ${path}`);
    }
  });

  it("finds a robot's name inside a browser-style candidate as a whole word only", () => {
    assert.equal(allowed('mostFavoredSet', '/private/x', { candidateUserAgents: [BING] }), true);
    // Not named in the file, so it gets "*: Disallow: /".
    assert.equal(allowed('mostFavoredSet', '/private/x', { candidateUserAgents: ['superbingbotx/1.0'] }), false);
    assert.equal(allowed('mostFavoredSet', '/private/x', { candidateUserAgents: ['SomeBot/1.0'] }), false);
  });

  it('masquerades with the candidate string exactly as configured', () => {
    const masked = createRobotsPolicy(options('mostFavoredSet', { masquerade: true, candidateUserAgents: candidates }), UA);
    assert.deepEqual(masked.allows('http://s/private/x', SITE), { allowed: true, userAgentToSend: BING });
    assert.deepEqual(masked.allows('http://s/private/bing/x', SITE), { allowed: true, userAgentToSend: 'Googlebot' });
    assert.deepEqual(masked.allows('http://s/private/open', SITE), { allowed: true });
    assert.deepEqual(masked.allows('http://s/private/secret', SITE), { allowed: false });
  });
});
