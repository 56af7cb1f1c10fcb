/** Gzip members made on the worker thread: right bytes, right order, and a fallback when the worker fails. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { GzipWorker } from '../../src/writer/gzip-worker.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import { mulberry32 } from '../helpers/prng.js';

function inputsOf(seed: number): Buffer[] {
  const random = mulberry32(seed);
  const sizes = [0, 1, 300, 4095, 4096, 20_000, 1024 * 1024];
  return sizes.map((size) => {
    const b = Buffer.alloc(size);
    for (let i = 0; i < size; i++) b[i] = 97 + Math.floor(random() * (i % 3 === 0 ? 26 : 4));
    return b;
  });
}

test('members inflate to their inputs and equal the in-process bytes, also for views into larger buffers', async () => {
  const worker = new GzipWorker();
  const inputs = inputsOf(1);
  // A view into a bigger buffer: only the view's bytes may travel.
  const big = Buffer.from('HEAD' + 'x'.repeat(5000) + 'TAIL');
  inputs.push(big.subarray(4, 5004));
  const members = await worker.gzip(inputs);
  assert.equal(members.length, inputs.length);
  const reference = await inProcessGzip.gzip(inputs);
  for (let i = 0; i < inputs.length; i++) {
    assert.deepEqual(gunzipSync(members[i] as Buffer), inputs[i]);
    assert.ok((members[i] as Buffer).equals(reference[i] as Buffer), `member ${i} differs from the in-process one`);
  }
  assert.equal(big.toString('latin1', 0, 4), 'HEAD', 'the caller keeps its buffers');
  assert.equal(worker.fellBack, false);
  await worker.close();
});

test('many requests in flight each get their own members back', async () => {
  const worker = new GzipWorker();
  const batches = Array.from({ length: 40 }, (_, i) => [Buffer.from(`request ${i} `.repeat(i + 1)), Buffer.from(`metadata ${i}`)]);
  const results = await Promise.all(batches.map((b) => worker.gzip(b)));
  results.forEach((members, i) => {
    assert.equal(gunzipSync(members[0] as Buffer).toString(), `request ${i} `.repeat(i + 1));
    assert.equal(gunzipSync(members[1] as Buffer).toString(), `metadata ${i}`);
  });
  await worker.close();
});

test('a worker that dies hands its work back: everything is compressed in-process', async () => {
  const worker = new GzipWorker({ workerSource: 'process.exit(3)' });
  const inputs = inputsOf(2);
  const [a, b] = await Promise.all([worker.gzip(inputs), worker.gzip([Buffer.from('later')])]);
  inputs.forEach((input, i) => assert.deepEqual(gunzipSync(a[i] as Buffer), input));
  assert.equal(gunzipSync(b[0] as Buffer).toString(), 'later');
  assert.equal(worker.fellBack, true);
  const after = await worker.gzip([Buffer.from('after')]);
  assert.equal(gunzipSync(after[0] as Buffer).toString(), 'after');
  await worker.close();
});

test('a worker that answers with an error gets that request redone in-process', async () => {
  const source = `require('node:worker_threads').parentPort.on('message', (requests) => require('node:worker_threads').parentPort.postMessage(requests.map(({ id }) => ({ id, error: 'no' }))))`;
  const worker = new GzipWorker({ workerSource: source });
  const members = await worker.gzip([Buffer.from('redo me')]);
  assert.equal(gunzipSync(members[0] as Buffer).toString(), 'redo me');
  await worker.close();
});
