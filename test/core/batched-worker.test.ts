/** BatchedWorker: one message per turn, answers routed by id, and every failure mode falls back to the caller's own work. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { BatchedWorker } from '../../src/core/batched-worker.js';

/** Doubles numbers; counts the messages it got and reports the count with each answer. */
const DOUBLER = `
const { parentPort } = require('node:worker_threads');
let messages = 0;
parentPort.on('message', (requests) => {
  messages++;
  parentPort.postMessage(requests.map(({ id, input }) => ({ id, output: { value: input * 2, messages } })));
});
`;

type Out = { value: number; messages: number; here?: true };
const here = (n: number) => async (): Promise<Out> => ({ value: n * 2, messages: 0, here: true });

test('requests of one turn travel in one message, and each caller gets its own answer', async () => {
  const pool = new BatchedWorker<number, Out>(() => new Worker(DOUBLER, { eval: true }));
  const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => pool.run(n, [], here(n))));
  answers.forEach((a, n) => assert.equal(a.value, n * 2));
  assert.ok(answers.every((a) => a.here === undefined && a.messages === 1), 'one message for the whole turn');
  const later = await pool.run(7, [], here(7));
  assert.equal(later.messages, 2);
  assert.equal(pool.fellBack, false);
  await pool.close();
});

test('a worker that exits hands its requests, and all later ones, to their fallbacks', async () => {
  const pool = new BatchedWorker<number, Out>(() => new Worker('process.exit(3)', { eval: true }));
  const answers = await Promise.all([pool.run(1, [], here(1)), pool.run(2, [], here(2))]);
  assert.deepEqual(answers.map((a) => [a.value, a.here]), [[2, true], [4, true]]);
  assert.equal(pool.fellBack, true);
  assert.equal((await pool.run(3, [], here(3))).here, true);
  await pool.close();
});

test("an error answer redoes that request with its fallback; the others keep the worker's answers", async () => {
  const source = `require('node:worker_threads').parentPort.on('message', (rs) => require('node:worker_threads').parentPort.postMessage(rs.map(({ id, input }) => input === 2 ? { id, error: 'no' } : { id, output: { value: input * 2, messages: 1 } })))`;
  const pool = new BatchedWorker<number, Out>(() => new Worker(source, { eval: true }));
  const [one, two] = await Promise.all([pool.run(1, [], here(1)), pool.run(2, [], here(2))]);
  assert.equal(one.here, undefined);
  assert.equal(two.here, true);
  assert.equal(two.value, 4);
  await pool.close();
});

test('no worker (start returns null), or a closed pool, runs the fallbacks', async () => {
  const none = new BatchedWorker<number, Out>(() => null);
  assert.equal((await none.run(5, [], here(5))).here, true);
  assert.equal(none.fellBack, true);
  const pool = new BatchedWorker<number, Out>(() => new Worker(DOUBLER, { eval: true }));
  await pool.close();
  assert.equal((await pool.run(6, [], here(6))).here, true);
});

test('start() makes the worker with no work for it; ready and whenReady() follow its WORKER_READY, and work sent before it waits for it', async () => {
  // Says it is ready only when told to (a message 'go'), so the test sees both sides of the moment.
  const source = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m === 'go') return parentPort.postMessage('ready');
  parentPort.postMessage(m.map(({ id, input }) => ({ id, output: { value: input * 2, messages: 1 } })));
});
parentPort.postMessage('started');
`;
  let made = 0;
  let worker: Worker | null = null;
  const pool = new BatchedWorker<number, Out>(() => {
    made++;
    worker = new Worker(source, { eval: true });
    return worker;
  });
  assert.equal(pool.started, false);
  assert.equal(pool.ready, false);
  pool.start();
  pool.start();
  assert.equal(made, 1, 'one worker, however often start() is called');
  assert.equal(pool.started, true);
  let readyAt: boolean | null = null;
  const readiness = pool.whenReady().then((up) => (readyAt = up));
  const early = pool.run(4, [], here(4));
  await new Promise<void>((resolve) => worker!.once('message', () => resolve()));
  assert.equal(pool.ready, false, 'not ready before the worker says so');
  assert.equal(readyAt, null);
  worker!.postMessage('go');
  assert.equal(await readiness, true);
  assert.equal(pool.ready, true);
  assert.equal((await early).here, undefined, 'work sent before it was ready was done by the worker');
  await pool.close();
  assert.equal(pool.ready, false);
});

test('whenReady() is false when the worker cannot start, exits before it is ready, or the pool closes first', async () => {
  assert.equal(await new BatchedWorker<number, Out>(() => null).whenReady(), false);
  assert.equal(await new BatchedWorker<number, Out>(() => new Worker('process.exit(3)', { eval: true })).whenReady(), false);
  const silent = new BatchedWorker<number, Out>(() => new Worker('setInterval(() => {}, 1000)', { eval: true }));
  const waiting = silent.whenReady();
  await silent.close();
  assert.equal(await waiting, false);
});

test('a worker started ahead of its work and never given any does not keep the process alive', async (t) => {
  if (!import.meta.url.endsWith('.js')) return t.skip('runs the compiled module in a child process');
  const moduleUrl = new URL('../../src/core/batched-worker.js', import.meta.url).href;
  // The worker stays busy for a minute: the child must end on its own long before.
  const program = `
    import { Worker } from 'node:worker_threads';
    const { BatchedWorker } = await import(${JSON.stringify(moduleUrl)});
    const pool = new BatchedWorker(() => new Worker("require('node:worker_threads').parentPort.postMessage('ready'); setTimeout(() => {}, 60000)", { eval: true }));
    pool.start();
    setTimeout(() => console.log(pool.started ? 'started' : 'not started'), 300);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.once('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  assert.equal(signal, null, 'the child had to be killed: the idle worker kept it alive');
  assert.equal(code, 0);
  assert.equal(out.trim(), 'started');
});
