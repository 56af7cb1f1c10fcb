/**
 * bin.ts starts a link-following crawl's page thread before it sets any V8
 * flag, and sets them once that thread's modules are loaded
 * (page-thread-first.ts, core/linked-signal.ts), so that the thread takes
 * node's modules compiled. Read off the process itself: a preload wraps
 * node's Worker and v8.setFlagsFromString on the main thread and writes, as
 * the process exits, the workers made before the first flag and whether
 * bin.ts waited for each one's signal before it, and got it. A crawl of one
 * page starts no worker ahead.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { LINKED_KEY } from '../../src/core/linked-signal.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { testProfileJson } from '../helpers/test-profile.js';

const BIN = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-page-first-'));
  web = await FixtureWeb.start({ hosts: 1, pagesPerHost: 8, port: 0 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Seen {
  /**
   * Workers made before the first flag: their module's file name, and
   * whether bin.ts waited on that worker's cell before the first flag and
   * the worker signalled in that wait.
   */
  ahead: { file: string; signalled: boolean }[];
  firstFlag: string | null;
}

/** Run bin.ts on a profile with the preload; what it saw, and the exit code. */
async function runSeen(name: string, overrides: Record<string, unknown>): Promise<{ seen: Seen; code: number | null; stderr: string }> {
  const out = path.join(tmp, `${name}.seen.json`);
  const preload = path.join(tmp, `${name}.preload.cjs`);
  await writeFile(
    preload,
    // The preload's wait gives the worker 10 s whatever bin.ts asks: the test holds bin.ts to waiting for the
    // signal before its flags, and the worker to giving it, not a busy machine to its 150 ms (linked-signal.test.ts does).
    `const wt = require('node:worker_threads');
if (wt.isMainThread) {
  const fs = require('node:fs'), v8 = require('node:v8');
  const made = [], waits = []; let firstFlag = null, ahead = null;
  const Base = wt.Worker;
  wt.Worker = class extends Base {
    constructor(url, opts) { super(url, opts); if (firstFlag === null) made.push({ file: String(url).split('/').pop(), cell: opts && opts.workerData ? opts.workerData[${JSON.stringify(LINKED_KEY)}] : undefined }); }
  };
  const wait = Atomics.wait;
  Atomics.wait = (array, index, value) => { const result = wait.call(Atomics, array, index, value, 10000); waits.push({ cell: array.buffer, result }); return result; };
  const set = v8.setFlagsFromString;
  v8.setFlagsFromString = (flag) => {
    if (firstFlag === null) { firstFlag = flag; ahead = made.map((w) => ({ file: w.file, signalled: waits.some((x) => x.cell === w.cell && x.result !== 'timed-out') })); }
    return set(flag);
  };
  process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ ahead: ahead ?? made.map((w) => ({ file: w.file, signalled: false })), firstFlag })));
}
`,
  );
  const profile = path.join(tmp, `${name}.json`);
  await writeFile(profile, JSON.stringify(testProfileJson(name, web.seeds, path.join(tmp, name), overrides)));
  const child = spawn(process.execPath, ['--require', preload, BIN, 'run', profile, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { seen: JSON.parse(await readFile(out, 'utf8')) as Seen, code, stderr };
}

test('a crawl that follows links has its page thread up, its modules loaded, before the first flag', async () => {
  const { seen, code, stderr } = await runSeen('links', {});
  assert.equal(code, 0, stderr);
  assert.notEqual(seen.firstFlag, null, 'bin.ts sets its flags');
  assert.deepEqual(seen.ahead, [{ file: 'page-worker.js', signalled: true }]);
});

test('a crawl of one page starts no thread ahead of the flags', async () => {
  const { seen, code, stderr } = await runSeen('one', { scope: { maxHops: 0 } });
  assert.equal(code, 0, stderr);
  assert.notEqual(seen.firstFlag, null);
  assert.deepEqual(seen.ahead, []);
});
