#!/usr/bin/env node
/**
 * `npm test`'s first step (the `pretest` script): the test suite runs real
 * programs — GNU wget (a peer crawler), Debian's Chromium (the replay and
 * console pages in a browser), nginx and Python's http.server (real web
 * servers to crawl). On a Debian machine, as root, the missing ones are
 * installed with apt-get, as CI does. Anywhere else nothing is installed:
 * one line per missing program says which tests will be skipped and what to
 * install; the tests skip themselves (test/helpers/programs.ts), so a
 * missing program never looks like a bug. Under CI=true nothing may be
 * missing: the run fails here, naming what is (and the tests would fail,
 * not skip, if started without this step).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** program → Debian package, and the tests that need it. */
const PROGRAMS = [
  { program: 'wget', pkg: 'wget', tests: "the comparisons with GNU wget's WARCs" },
  { program: 'chromium', pkg: 'chromium', tests: 'the browser tests (replay, console)' },
  { program: 'nginx', pkg: 'nginx', tests: 'the crawl of a site served by nginx' },
  { program: 'python3', pkg: 'python3', tests: "the crawl of a site served by Python's http.server" },
  { program: 'redis-server', pkg: 'redis-server', tests: 'the Redis backend (seen filter, frontier, several nodes)' },
];

function has(program) {
  return spawnSync('sh', ['-c', `command -v ${program} || command -v /usr/sbin/${program} || command -v /usr/bin/${program}`], { stdio: 'ignore' }).status === 0;
}

const missing = PROGRAMS.filter((p) => !has(p.program));
if (missing.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const debian = existsSync('/etc/debian_version') && has('apt-get');
if (isRoot && debian && process.env['ARCHIVER_TEST_NO_INSTALL'] !== '1') {
  const pkgs = [...new Set(missing.map((p) => p.pkg))];
  process.stderr.write(`archiver tests: installing ${pkgs.join(', ')} with apt-get (set ARCHIVER_TEST_NO_INSTALL=1 to skip those tests instead)\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: 'inherit', env }) : update;
  if (install.status !== 0) process.stderr.write('archiver tests: apt-get failed; the tests that need those programs will be skipped\n');
}
const ci = ['true', '1'].includes((process.env['CI'] ?? '').toLowerCase());
const still = PROGRAMS.filter((p) => !has(p.program));
for (const p of still) {
  process.stderr.write(ci
    ? `archiver tests: ${p.program} is not installed, and under CI=true ${p.tests} may not be skipped (apt-get install ${p.pkg})\n`
    : `archiver tests: ${p.program} is not installed — SKIPPING ${p.tests} (install it: apt-get install ${p.pkg})\n`);
}
if (ci && still.length > 0) {
  process.stderr.write(`archiver tests: FAIL: missing under CI: ${still.map((p) => p.program).join(', ')}\n`);
  process.exit(1);
}
