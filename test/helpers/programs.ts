/**
 * Whether a program the tests drive is installed, as a `skip` option for
 * node:test: a test that needs GNU wget, Chromium, nginx or redis-server
 * skips with the package to install (scripts/test-setup.mjs installs them
 * on Debian as root, and otherwise names them once at the start of
 * `npm test`). Under CI=true a missing program is no reason to skip: CI
 * installs them all, so one missing means a broken CI image, and the test
 * file fails naming it instead of passing by skipping.
 */
import { spawnSync } from 'node:child_process';

const cache = new Map<string, boolean>();

export function installed(program: string): boolean {
  let found = cache.get(program);
  if (found === undefined) {
    found = spawnSync('sh', ['-c', `command -v ${program} || command -v /usr/sbin/${program} || command -v /usr/bin/${program}`], { stdio: 'ignore' }).status === 0;
    cache.set(program, found);
  }
  return found;
}

/** Whether the tests run under CI (CI=true, as GitHub Actions and .ci/run set it): then nothing may skip for want of a program. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env['CI'] ?? '').toLowerCase();
  return ci === 'true' || ci === '1';
}

/** A program the tests need is missing where it must not be (under CI). */
export class MissingProgramError extends Error {
  readonly code = 'ARCHIVER_TEST_MISSING_PROGRAM';
  constructor(program: string, pkg: string) {
    super(`${program} is not installed, and under CI=true the tests that need it may not skip (apt-get install ${pkg}; .ci/run's npm test installs it as root)`);
  }
}

/** `{ skip: reason }` when `program` is missing, `{}` when it is there: spread into a test's options. Throws under CI. */
export function needs(program: string, pkg = program): { skip?: string } {
  if (installed(program)) return {};
  if (underCi()) throw new MissingProgramError(program, pkg);
  return { skip: `${program} is not installed (apt-get install ${pkg})` };
}
