/**
 * The bench scripts' command line (bench/bench-args.ts): `--help` prints
 * the usage, a bad option is one line and the usage with exit 2, and a
 * good one parses as node's parseArgs does. Also each script run with
 * `--help` for real: it prints its usage and starts no bench.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { benchArgs, USAGE_EXIT } from '../../bench/bench-args.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function run(args: string[]): { out: string[]; err: string[]; code: number | null; values?: Record<string, unknown> } {
  const out: string[] = [];
  const err: string[] = [];
  try {
    const { values } = benchArgs(
      { args, options: { runs: { type: 'string', default: '2' }, lean: { type: 'boolean', default: false } } },
      { usage: 'usage: bench [--runs N] [--lean]', out: (l) => out.push(l), err: (l) => err.push(l), exit: (c) => { throw new Exit(c); } },
    );
    return { out, err, code: null, values };
  } catch (e) {
    if (e instanceof Exit) return { out, err, code: e.code };
    throw e;
  }
}

test('--help and -h print the usage and exit 0', () => {
  for (const flag of ['--help', '-h']) {
    const r = run(['--runs', '3', flag]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.out, ['usage: bench [--runs N] [--lean]']);
    assert.deepEqual(r.err, []);
  }
});

test('an unknown option: one line naming it, then the usage, exit 2', () => {
  const r = run(['--runz', '3']);
  assert.equal(r.code, USAGE_EXIT);
  assert.equal(r.err.length, 2);
  assert.match(r.err[0]!, /--runz/);
  assert.equal(r.err[1], 'usage: bench [--runs N] [--lean]');
  assert.deepEqual(r.out, []);
});

test('a string option without its value is reported the same way', () => {
  const r = run(['--runs']);
  assert.equal(r.code, USAGE_EXIT);
  assert.match(r.err[0]!, /--runs/);
});

test('good options parse as parseArgs would, defaults included', () => {
  assert.deepEqual({ ...run(['--runs', '5']).values }, { runs: '5', lean: false });
  assert.deepEqual({ ...run(['--lean']).values }, { runs: '2', lean: true });
});

test('every bench script that reads options answers --help with its usage', () => {
  const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
  const scripts = readdirSync(dir).filter((f) => f.endsWith('.js') && readFileSync(dir + f, 'utf8').includes('benchArgs(') && f !== 'bench-args.js');
  assert.ok(scripts.length >= 10, `found ${scripts.length}`);
  for (const f of scripts) {
    const r = spawnSync(process.execPath, [dir + f, '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `${f}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^usage: node dist/bench/${f.replace('.', '\\.')}`), f);
  }
});

test('a part or a site the bench does not know: one line naming it, then the usage, exit 2, before any part runs', () => {
  const script = fileURLToPath(new URL('../../bench/run.js', import.meta.url));
  const site = spawnSync(process.execPath, [script, '--only', 'sites', '--site', 'pg'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(site.status, USAGE_EXIT, site.stderr);
  const siteLines = site.stderr.trim().split('\n');
  assert.equal(siteLines.length, 2, site.stderr);
  assert.match(siteLines[0]!, /^--site pg: not a site the bench knows \(.*postgresql-doc-15.*\); give its document root as pg=ROOT$/);
  assert.match(siteLines[1]!, /^usage: node dist\/bench\/run\.js/);
  assert.equal(site.stdout, '', 'nothing ran');
  const part = spawnSync(process.execPath, [script, '--only', 'crawl,nope'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(part.status, USAGE_EXIT, part.stderr);
  assert.match(part.stderr, /^--only: unknown part nope \(parts: sites, crawl, /);
  assert.equal(part.stdout, '', 'nothing ran');
});
