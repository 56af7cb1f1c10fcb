/**
 * bin.ts loads node's modules a crawl needs before it sets V8's flags
 * (builtins-first.ts), so that they come compiled from node's cache. Read
 * off the order node loaded its modules in (process.moduleLoadList, written
 * by a preload as the process exits, and as bin.ts sets its first flag): for
 * `run`, each of CRAWL_BUILTINS before the first flag; for another command,
 * none of the crawl's (http2 not at all).
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

/** node's own modules, in the order the CLI run with `args` loaded them, and how many of them were loaded when its first V8 flag was set (-1: none was). */
async function loadOrder(args: string[]): Promise<{ order: string[]; atFirstFlag: number }> {
  const out = path.join(tmp, `order-${args[0]}.json`);
  const preload = path.join(tmp, 'record.cjs');
  await writeFile(
    preload,
    `const v8 = require('node:v8'), set = v8.setFlagsFromString;
let atFlag = null;
v8.setFlagsFromString = (flag) => { if (atFlag === null) atFlag = process.moduleLoadList.slice(); return set(flag); };
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ all: process.moduleLoadList, atFlag })));\n`,
  );
  const child = spawn(process.execPath, ['--require', preload, BIN, ...args], { stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
  await new Promise((resolve) => child.on('exit', resolve));
  const { all, atFlag } = JSON.parse(await readFile(out, 'utf8')) as { all: string[]; atFlag: string[] | null };
  const native = (list: string[]) => list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  return { order: native(all), atFirstFlag: atFlag === null ? -1 : native(atFlag).length };
}

test('a crawl loads node\'s modules it needs before V8\'s flags are set', async () => {
  // A profile that does not exist: the run stops with its one-line error, after bin.ts has set everything up.
  const { order, atFirstFlag } = await loadOrder(['run', path.join(tmp, 'missing.json')]);
  assert.ok(atFirstFlag > 0, 'bin.ts sets its flags');
  for (const name of CRAWL_BUILTINS) {
    const at = order.indexOf(name);
    assert.ok(at >= 0 && at < atFirstFlag, `${name} loaded before the first flag (at ${at}; ${atFirstFlag} modules loaded then)`);
  }
});

test('another command loads none of them first', async () => {
  const { order } = await loadOrder(['--version']);
  assert.equal(order.includes('http2'), false);
});
