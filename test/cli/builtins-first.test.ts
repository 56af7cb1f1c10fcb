/**
 * bin.ts loads node's modules a crawl needs before it sets V8's flags
 * (builtins-first.ts), so that they come compiled from node's cache. Read
 * off the order node loaded its modules in (process.moduleLoadList, written
 * by a preload as the process exits): for `run`, each of CRAWL_BUILTINS
 * before node's `v8` module, which bin.ts loads to set the flags; for
 * another command, none of the crawl's (http2 not at all).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CRAWL_BUILTINS } from '../../src/cli/builtins-first.js';
import { packageRoot } from '../../src/core/package-root.js';

const BIN = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-builtins-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** node's own modules, in the order the CLI run with `args` loaded them. */
async function loadOrder(args: string[]): Promise<string[]> {
  const out = path.join(tmp, `order-${args[0]}.json`);
  const preload = path.join(tmp, 'record.cjs');
  await writeFile(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));\n`);
  const child = spawn(process.execPath, ['--require', preload, BIN, ...args], { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
  await new Promise((resolve) => child.on('exit', resolve));
  const list = JSON.parse(await readFile(out, 'utf8')) as string[];
  return list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
}

test('a crawl loads node\'s modules it needs before V8\'s flags are set', async () => {
  // A profile that does not exist: the run stops with its one-line error, after bin.ts has set everything up.
  const order = await loadOrder(['run', path.join(tmp, 'missing.json')]);
  const v8 = order.indexOf('v8');
  assert.ok(v8 > 0, 'bin.ts loads node:v8 to set the flags');
  for (const name of CRAWL_BUILTINS) {
    const at = order.indexOf(name);
    assert.ok(at >= 0 && at < v8, `${name} loaded before v8 (at ${at}, v8 at ${v8})`);
  }
});

test('another command loads none of them first', async () => {
  const order = await loadOrder(['--version']);
  assert.equal(order.includes('http2'), false);
});
