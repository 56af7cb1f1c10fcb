/**
 * The command line as an operator meets it: help for every command, usage
 * errors → 2, invalid profile → 3 with a one-line message naming the path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/capture.js';

test('--help lists the commands and exit codes', async () => {
  const io = captureIo();
  assert.equal(await main(['--help'], io), 0);
  for (const word of ['run', 'analyze', 'demo', 'Exit codes']) assert.ok(io.stdout.text.includes(word), word);
});

test('run --help explains every option', async () => {
  const io = captureIo();
  assert.equal(await main(['run', '--help'], io), 0);
  for (const word of ['--fresh', '--quiet', '--workers', 'warcs/', 'crawl.log', 'state/']) assert.ok(io.stdout.text.includes(word), word);
});

test('no command and unknown commands are usage errors (2)', async () => {
  assert.equal(await main([], captureIo()), 2);
  const io = captureIo();
  assert.equal(await main(['crawl'], io), 2);
  assert.match(io.stderr.text, /unknown command "crawl".*ARCHIVER_USAGE/);
});

test('run without a profile, or with an unknown flag, is a usage error (2)', async () => {
  assert.equal(await main(['run'], captureIo()), 2);
  assert.equal(await main(['run', 'a.json', '--bogus'], captureIo()), 2);
});

test('an invalid profile exits 3 with one line naming file and path', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-cli-'));
  try {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'x', seeds: ['http://127.0.0.1:1/'], userAgent: 'x (+https://example.org)', politeness: { minDelayMs: -5 } }));
    const io = captureIo();
    assert.equal(await main(['run', file], io), 3);
    const lines = io.stderr.text.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.includes(file) && lines[0]!.includes('/politeness/minDelayMs'), lines[0]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--version prints the package version', async () => {
  const io = captureIo();
  assert.equal(await main(['--version'], io), 0);
  assert.match(io.stdout.text, /^archiver \d+\.\d+\.\d+/);
});
