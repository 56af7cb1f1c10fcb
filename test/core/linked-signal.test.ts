/**
 * linked-signal.ts: a worker says its modules are loaded through shared
 * memory, and the thread that made it can block on that, bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { awaitLinked, LINKED_KEY, linkedCell } from '../../src/core/linked-signal.js';

/** The compiled module, for the workers (this test runs from dist/test/core/). */
const MODULE = new URL('../../src/core/linked-signal.js', import.meta.url).href;

/** A worker that imports the module and signals after `delayMs` (never when null), then stays up until told to stop. */
function worker(delayMs: number | null, workerData?: unknown): Worker {
  const code = `
    import { signalLinked } from ${JSON.stringify(MODULE)};
    import { parentPort } from 'node:worker_threads';
    ${delayMs === null ? '' : `setTimeout(() => { signalLinked(); parentPort.postMessage('signalled'); }, ${delayMs});`}
    parentPort.on('message', () => process.exit(0));
  `;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), workerData === undefined ? {} : { workerData });
}

test('the parent blocks until the worker signals, and no longer', async () => {
  const cell = linkedCell();
  const w = worker(40, { [LINKED_KEY]: cell });
  const t0 = performance.now();
  assert.equal(awaitLinked(cell, 5000), true);
  const waited = performance.now() - t0;
  assert.ok(waited >= 30 && waited < 4000, `waited ${waited.toFixed(1)} ms for a signal sent after 40 ms`);
  // Signalled already: no wait for the bound.
  const t1 = performance.now();
  assert.equal(awaitLinked(cell, 5000), true);
  assert.ok(performance.now() - t1 < 1000);
  w.postMessage('stop');
  await new Promise((resolve) => w.once('exit', resolve));
});

test('a worker that never signals costs the parent its bound, and the answer says so', async () => {
  const cell = linkedCell();
  const w = worker(null, { [LINKED_KEY]: cell });
  const t0 = performance.now();
  assert.equal(awaitLinked(cell, 120), false);
  assert.ok(performance.now() - t0 >= 110);
  w.postMessage('stop');
  await new Promise((resolve) => w.once('exit', resolve));
});

test('a worker given no cell signals nothing and does not fail', async () => {
  const w = worker(0);
  const said = await new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  assert.equal(said, 'signalled');
  w.postMessage('stop');
  await new Promise((resolve) => w.once('exit', resolve));
});
