/**
 * Whether a program the tests drive is installed, as a `skip` option for
 * node:test: a test that needs GNU wget, Chromium or nginx skips with the
 * package to install (scripts/test-setup.mjs installs them on Debian as
 * root, and otherwise names them once at the start of `npm test`).
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

/** `{ skip: reason }` when `program` is missing, `{}` when it is there: spread into a test's options. */
export function needs(program: string, pkg = program): { skip?: string } {
  return installed(program) ? {} : { skip: `${program} is not installed (apt-get install ${pkg})` };
}
