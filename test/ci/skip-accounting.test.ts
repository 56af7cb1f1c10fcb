/**
 * CI never passes by skipping. A missing program makes `needs()` skip
 * locally but throw under CI=true (naming the program and its package);
 * the skip reporter `npm test` runs (scripts/skip-report.mjs) prints every
 * skip with its reason, a skipped suite included, and under CI=true fails
 * the run on any skip not listed as expected. The reporter is driven here
 * as npm test drives it: `node --test` over a small test file of skips.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { MissingProgramError, needs, underCi } from '../helpers/programs.js';

const NOWHERE = 'archiver-test-no-such-program';

function withCi<T>(value: string | undefined, fn: () => T): T {
  const was = process.env['CI'];
  if (value === undefined) delete process.env['CI'];
  else process.env['CI'] = value;
  try {
    return fn();
  } finally {
    if (was === undefined) delete process.env['CI'];
    else process.env['CI'] = was;
  }
}

describe('needs(): a missing program', () => {
  it('skips with the package to install, outside CI', () => {
    assert.deepEqual(withCi(undefined, () => needs(NOWHERE, 'no-such-pkg')), { skip: `${NOWHERE} is not installed (apt-get install no-such-pkg)` });
    assert.deepEqual(withCi('false', () => needs(NOWHERE)).skip !== undefined, true);
  });

  it('throws naming it under CI=true (or 1)', () => {
    for (const ci of ['true', 'TRUE', '1']) {
      assert.equal(withCi(ci, () => underCi()), true);
      assert.throws(() => withCi(ci, () => needs(NOWHERE, 'no-such-pkg')), (err: unknown) => {
        assert.ok(err instanceof MissingProgramError);
        assert.equal(err.code, 'ARCHIVER_TEST_MISSING_PROGRAM');
        assert.match(err.message, new RegExp(`^${NOWHERE} is not installed.*apt-get install no-such-pkg`));
        return true;
      });
    }
  });

  it('is no skip for a program that is there, CI or not', () => {
    assert.deepEqual(withCi('true', () => needs('sh')), {});
    assert.deepEqual(withCi(undefined, () => needs('sh')), {});
  });
});

describe('the skip report of npm test', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-skips-'));
    await writeFile(path.join(dir, 'unexpected.test.mjs'), [
      "import { describe, it, test } from 'node:test';",
      "describe('a redis suite', { skip: 'redis-server is not installed (apt-get install redis-server)' }, () => { it('one', () => {}); it('two', () => {}); });",
      "test('runs', () => {});",
      "test('said skip at run time', (t) => { t.skip('no browser today'); });",
    ].join('\n'));
    await writeFile(path.join(dir, 'expected.test.mjs'), [
      "import { test } from 'node:test';",
      "test('runs', () => {});",
      "test('tmpfs', (t) => { t.skip('cannot mount a tmpfs here (needs root)'); });",
    ].join('\n'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function run(file: string, ci: string | undefined): Promise<{ code: number | null; out: string }> {
    const reporter = path.join(packageRoot(), 'scripts', 'skip-report.mjs');
    const env = { ...process.env };
    delete env['CI'];
    delete env['NODE_TEST_CONTEXT'];
    if (ci !== undefined) env['CI'] = ci;
    const child = spawn(process.execPath, ['--test', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', path.join(dir, file)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
  }

  it('names every skip and its reason, a skipped suite as such; passes outside CI', async () => {
    const { code, out } = await run('unexpected.test.mjs', undefined);
    assert.equal(code, 0, out);
    assert.match(out, /archiver tests: 2 skipped \(1 whole suite\(s\), whose tests did not run; 1 test\(s\)\)\n/);
    assert.match(out, /1 × redis-server is not installed \(apt-get install redis-server\)\n\s+suite "a redis suite" \(.*unexpected\.test\.mjs\)/);
    assert.match(out, /1 × no browser today\n\s+test "said skip at run time"/);
    assert.doesNotMatch(out, /FAIL/);
  });

  it('fails the run under CI=true on a skip not listed as expected', async () => {
    const { code, out } = await run('unexpected.test.mjs', 'true');
    assert.equal(code, 1, out);
    assert.match(out, /archiver tests: FAIL: 2 unexpected skip\(s\) under CI=true/);
  });

  it('lets an expected skip pass under CI=true, saying why it is expected', async () => {
    const { code, out } = await run('expected.test.mjs', 'true');
    assert.equal(code, 0, out);
    assert.match(out, /1 × cannot mount a tmpfs here \(needs root\) \[expected: .*ENOSPC/);
    assert.match(out, /archiver tests: no unexpected skips/);
  });
});
