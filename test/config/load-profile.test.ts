/**
 * The profile contract: every error path names the JSON path (one line for one
 * problem, a line per problem for several) and
 * carries the stable code; defaults are Heritrix's; the result is frozen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadProfile, MAX_LISTED_PROBLEMS, validateProfile } from '../../src/config/load-profile.js';
import { ProfileError } from '../../src/core/errors.js';
import { BASE_PROFILE, pathErrorOf, profileErrorOf } from '../helpers/profile-errors.js';

const base = BASE_PROFILE;

const errorOf = profileErrorOf;

test('defaults are Heritrix\'s and the profile is frozen', () => {
  const p = validateProfile(base, 'p.json', '/tmp');
  assert.equal(p.politeness.delayFactor, 5);
  assert.equal(p.politeness.minDelayMs, 3000);
  assert.equal(p.politeness.maxDelayMs, 30000);
  assert.equal(p.politeness.respectCrawlDelayUpToSeconds, 300);
  assert.equal(p.politeness.maxConnectionsPerHost, 1);
  assert.equal(p.frontier.balanceReplenishAmount, 3000);
  assert.equal(p.frontier.queueTotalBudget, -1);
  assert.equal(p.uniq.memoryKeys, 12_000_000);
  assert.equal(p.frontier.queueAssignment, 'hostname');
  assert.equal(p.frontier.precedence, 'fifo');
  assert.equal(p.robots.policy, 'obey');
  assert.equal(p.limits.maxBodyBytes, 104857600);
  assert.equal(p.output.warcVersion, '1.1');
  assert.equal(p.output.dir, path.resolve('/tmp', 'jobs/site'));
  assert.deepEqual(p.scope.hosts, ['example.org']);
  assert.ok(Object.isFrozen(p.politeness));
  assert.throws(() => {
    (p.politeness as { minDelayMs: number }).minDelayMs = 1;
  });
});

test('seed hosts keep a non-default port', () => {
  const p = validateProfile({ ...base, seeds: ['http://127.0.0.2:8421/', 'http://Example.org:80/'] });
  assert.deepEqual(p.scope.hosts, ['127.0.0.2:8421', 'example.org']);
});

const cases: Array<[string, unknown, string]> = [
  ['unknown top-level key', { ...base, seed: [] }, '/'],
  ['unknown nested key', { ...base, politeness: { delayFactr: 3 } }, '/politeness'],
  ['missing userAgent', { name: 'x', seeds: ['http://a/'] }, '/'],
  ['userAgent without contact URL', { ...base, userAgent: 'archiver/0.1' }, '/userAgent'],
  ['negative delay', { ...base, politeness: { minDelayMs: -1 } }, '/politeness/minDelayMs'],
  ['min above max delay', { ...base, politeness: { minDelayMs: 5000, maxDelayMs: 100 } }, '/politeness/minDelayMs'],
  ['bad policy name', { ...base, robots: { policy: 'nope' } }, '/robots/policy'],
  ['custom policy without rules', { ...base, robots: { policy: 'custom' } }, '/robots/custom'],
  ['mostFavoredSet without candidates', { ...base, robots: { policy: 'mostFavoredSet' } }, '/robots/candidateUserAgents'],
  ['non-URL seed', { ...base, seeds: ['example.org'] }, '/seeds/0'],
  ['ftp seed', { ...base, seeds: ['https://ok/', 'ftp://example.org/'] }, '/seeds/1'],
  ['empty seeds', { ...base, seeds: [] }, '/seeds'],
  ['bad regex', { ...base, scope: { exclude: ['('] } }, '/scope/exclude/0'],
  ['bad host entry', { ...base, scope: { hosts: ['http://example.org/'] } }, '/scope/hosts/0'],
  ['bad queue assignment', { ...base, frontier: { queueAssignment: 'ip' } }, '/frontier/queueAssignment'],
  ['bad queue precedence', { ...base, frontier: { precedence: 'random' } }, '/frontier/precedence'],
  ['zero workers', { ...base, workers: 0 }, '/workers'],
  ['fractional maxPages', { ...base, limits: { maxPages: 1.5 } }, '/limits/maxPages'],
  ['bad warc version', { ...base, output: { warcVersion: '2.0' } }, '/output/warcVersion'],
  ['string number', { ...base, politeness: { delayFactor: '5' } }, '/politeness/delayFactor'],
  ['bad name', { ...base, name: 'a b' }, '/name'],
  ['not an object', [1, 2], '/'],
];
for (const [what, json, at] of cases) {
  test(`rejects ${what} naming ${at}`, () => {
    const err = errorOf(json);
    assert.equal(err.path, at);
    assert.ok(err.message.startsWith(`p.json: ${at}: `), err.message);
  });
}

test('file errors name the file', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-profile-'));
  try {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, '{ "name": ');
    await assert.rejects(loadProfile(bad), (err: ProfileError) => err.code === 'ARCHIVER_INVALID_PROFILE' && err.message.startsWith(bad));
    // A profile that is not there is no input (exit 4), not an invalid one.
    await assert.rejects(loadProfile(path.join(dir, 'missing.json')), (err: ProfileError) => err.code === 'ARCHIVER_NO_INPUT' && err.message.includes('missing.json'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('frontier.seenMemoryKeys is still read, as uniq.memoryKeys, with one warning line', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-profile-'));
  try {
    const file = path.join(dir, 'old.json');
    await writeFile(file, JSON.stringify({ ...base, frontier: { seenMemoryKeys: 5000 } }));
    const warnings: string[] = [];
    const p = await loadProfile(file, dir, (line) => warnings.push(line));
    assert.equal(p.uniq.memoryKeys, 5000);
    assert.ok(!('seenMemoryKeys' in p.frontier), 'the old key is gone from the loaded profile');
    assert.deepEqual(warnings, [`${file}: frontier.seenMemoryKeys is deprecated; use uniq.memoryKeys`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with both keys given uniq.memoryKeys wins, and the warning says so', () => {
  const warnings: string[] = [];
  const p = validateProfile({ ...base, frontier: { seenMemoryKeys: 5000 }, uniq: { memoryKeys: 7000 } }, 'p.json', '/tmp', (line) => warnings.push(line));
  assert.equal(p.uniq.memoryKeys, 7000);
  assert.equal(warnings.length, 1);
  assert.ok(warnings[0]!.startsWith('p.json: frontier.seenMemoryKeys is deprecated; use uniq.memoryKeys'), warnings[0]);
  assert.ok(warnings[0]!.includes('uniq.memoryKeys is also given and wins'), warnings[0]);
});

test('the old key is checked where it stands, and no warning without it', () => {
  assert.equal(errorOf({ ...base, frontier: { seenMemoryKeys: -1 } }).path, '/frontier/seenMemoryKeys');
  const warnings: string[] = [];
  const p = validateProfile({ ...base, uniq: { memoryKeys: 9 } }, 'p.json', '/tmp', (line) => warnings.push(line));
  assert.equal(p.uniq.memoryKeys, 9);
  assert.deepEqual(warnings, []);
});

test('the bundled profiles are valid', async () => {
  for (const f of ['profiles/site.json', 'profiles/demo.json']) {
    const p = await loadProfile(f, process.cwd(), (line) => assert.fail(`unexpected warning: ${line}`));
    assert.ok(p.seeds.length > 0);
  }
});

test('every problem is reported at once, each with its JSON path, the list capped', () => {
  // Before, only the first problem was told: fixing a profile took one run per mistake.
  const json = { name: 'x', seeds: ['http://127.0.0.1:1/', 'not a url'], userAgent: 'no contact', workers: 0, scope: { exclude: ['ok', '[a-'] } };
  let err: ProfileError | null = null;
  try {
    validateProfile(json, 'p.json');
  } catch (e) {
    err = e as ProfileError;
  }
  assert.ok(err instanceof ProfileError);
  assert.deepEqual(err.problems.map((p) => p.path).sort(), ['/scope/exclude/1', '/seeds/1', '/userAgent', '/workers']);
  assert.ok(err.message.startsWith('p.json: 4 problems\n'), err.message);
  assert.match(err.message, /\n {2}\/scope\/exclude\/1: invalid regular expression \/\[a-\/: .+/);
  assert.doesNotMatch(err.message, /regular expression: Invalid regular expression/);

  const many: Record<string, unknown> = { name: 'x', seeds: ['http://127.0.0.1:1/'], userAgent: 'x (+https://example.org)' };
  for (let i = 0; i < MAX_LISTED_PROBLEMS + 5; i++) many[`unknown${i}`] = i;
  try {
    validateProfile(many, 'p.json');
    assert.fail('accepted');
  } catch (e) {
    const capped = e as ProfileError;
    assert.equal(capped.problems.length, MAX_LISTED_PROBLEMS + 5);
    const lines = capped.message.split('\n');
    assert.equal(lines.length, 1 + MAX_LISTED_PROBLEMS + 1);
    assert.equal(lines.at(-1), '  … and 5 more');
  }
});

// Issue 28: an unknown key was named, but not the key that was probably meant.
test('an unknown key suggests the nearest known one at its level, and only a near one', () => {
  assert.match(profileErrorOf({ ...BASE_PROFILE, workerz: 3 }).message, /^p\.json: \/: unknown key "workerz" \(did you mean "workers"\?\)$/);
  assert.match(profileErrorOf({ ...BASE_PROFILE, politeness: { minDelay: 3 } }).message, /\/politeness: unknown key "minDelay" \(did you mean "minDelayMs"\?\)$/);
  assert.match(profileErrorOf({ ...BASE_PROFILE, limits: { maxPgaes: 3 } }).message, /unknown key "maxPgaes" \(did you mean "maxPages"\?\)$/);
  assert.match(profileErrorOf({ ...BASE_PROFILE, colour: 'red' }).message, /unknown key "colour"$/);
});

test('length limits are said in plain words, not in the validator\'s', () => {
  assert.equal(pathErrorOf({ ...BASE_PROFILE, seeds: [] }).message, 'p.json: /seeds: needs at least 1 item');
  // An empty user agent or seed also fails the checks made after the schema's: the first line is the schema's.
  for (const [json, line] of [
    [{ ...BASE_PROFILE, userAgent: '' }, '  /userAgent: must not be empty'],
    [{ ...BASE_PROFILE, seeds: [''] }, '  /seeds/0: must not be empty'],
  ] as const) {
    try {
      validateProfile(json, 'p.json');
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof ProfileError);
      assert.equal(err.message.split('\n')[1], line, err.message);
    }
  }
});

test('the schema\'s patterns are said in words: a job name, an e-mail address, a store', () => {
  assert.equal(pathErrorOf({ ...BASE_PROFILE, name: 'my site' }).message, 'p.json: /name: may hold only letters, digits, ".", "_" and "-" (it names files and folders)');
  assert.equal(pathErrorOf({ ...BASE_PROFILE, from: 'nobody' }).message, 'p.json: /from: must be an e-mail address');
  assert.match(pathErrorOf({ ...BASE_PROFILE, store: 'mongo://x' }).message, /^p\.json: \/store: must be level, memory, redis:\/\/HOST:PORT\[\/DB\] or redis\+cluster:\/\//);
  assert.match(pathErrorOf({ ...BASE_PROFILE, output: { prefix: 'a b' } }).message, /\/output\/prefix: may hold only letters/);
});

test('a missing name, seed list or user agent is told with what to put there', () => {
  const { userAgent: _u, ...noAgent } = BASE_PROFILE;
  assert.equal(pathErrorOf(noAgent).message, 'p.json: /: missing required key "userAgent": who the crawler is and where its operator can be reached, e.g. "archiver/0.1 (+https://example.org/crawler)"');
  const { seeds: _s, ...noSeeds } = BASE_PROFILE;
  assert.match(pathErrorOf(noSeeds).message, /missing required key "seeds": the URLs the crawl starts from, e\.g\. \["https:\/\/example\.org\/"\]$/);
  const { name: _n, ...noName } = BASE_PROFILE;
  assert.match(pathErrorOf(noName).message, /missing required key "name": the job's name, which names its folder and files/);
  // Deeper down, a required key is named alone: the hints are the top level's.
  assert.match(pathErrorOf({ ...BASE_PROFILE, overrides: [{ politeness: { minDelayMs: 0 } }] }).message, /missing required key "match"$/);
});
