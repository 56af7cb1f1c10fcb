/**
 * Worker threads name themselves (Linux /proc/thread-self/comm) so `top -H`
 * and the crawl bench can tell them from node's helper threads; the name is
 * cut to the 15 bytes Linux keeps, and other threads keep theirs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const compiled = new URL('../../src/core/thread-name.js', import.meta.url);
const linux = existsSync('/proc/thread-self/comm');

test('a worker thread takes the name it gives itself, cut to 15 bytes', { skip: !linux || !existsSync(fileURLToPath(compiled)) ? 'needs Linux and the compiled module' : false }, async () => {
  const mainBefore = readFileSync('/proc/thread-self/comm', 'utf8');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    const before = readFileSync('/proc/thread-self/comm', 'utf8').trim();
    import(workerData).then(({ nameThisThread }) => {
      nameThisThread('arch-test-name-too-long');
      parentPort.postMessage({ before, after: readFileSync('/proc/thread-self/comm', 'utf8').trim() });
    });`;
  const worker = new Worker(code, { eval: true, workerData: compiled.href });
  const names = await new Promise<{ before: string; after: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.notEqual(names.before, 'arch-test-name-');
  assert.equal(names.after, 'arch-test-name-');
  assert.equal(readFileSync('/proc/thread-self/comm', 'utf8'), mainBefore, 'the main thread keeps its name');
});
