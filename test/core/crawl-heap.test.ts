/**
 * crawl-heap: a crawl's young generations stay at their size. The bug this
 * guards against: holding the main thread's semi-spaces with the growth
 * factor alone worked until the page thread started, whose heap set the
 * factor back to 2 (V8 does so for every new heap), and the main thread's
 * new space grew to 33 MB again. Each case runs in a child process: V8's
 * flags are the process's, and this test runner's own heap must not be
 * resized.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const heapModule = new URL('../../src/core/crawl-heap.js', import.meta.url).href;
const workerModule = new URL('../../src/core/batched-worker.js', import.meta.url).href;

/** A worker that reports its new space's size as it starts, and again after making garbage. */
const WORKER = `
import { parentPort } from 'node:worker_threads';
import { getHeapSpaceStatistics } from 'node:v8';
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const atStart = newSpace();
const keep = [];
for (let i = 0; i < 2e6; i++) { const o = { i, s: 'x' + i }; if (i % 64 === 0) keep.push(o); }
parentPort.postMessage({ atStart, after: newSpace(), kept: keep.length });
`;

/** Main: sized for a crawl or not, starts the worker through compiledWorker, then makes garbage that survives a while. */
const MAIN = (sized: boolean, workerFile: string, busy = false): string => `
import { getHeapSpaceStatistics } from 'node:v8';
const { sizeHeapForCrawl, growYoungGenerationWhenBusy, checkYoungGeneration } = await import(${JSON.stringify(heapModule)});
const { compiledWorker } = await import(${JSON.stringify(workerModule)});
if (${sized}) sizeHeapForCrawl();
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
const worker = compiledWorker(new URL(${JSON.stringify('file://' + workerFile)}), { maxYoungGenerationSizeMb: 8 })();
const fromWorker = await new Promise((resolve) => worker.once('message', resolve));
await worker.terminate();
if (${busy}) growYoungGenerationWhenBusy();
const keep = [];
// As a crawl goes: objects that live a while, made claim by claim, the young generation looked at between claims.
for (let round = 0; round < 400; round++) {
  const batch = [];
  for (let i = 0; i < 5e3; i++) batch.push({ i, s: 'y' + i });
  keep.push(batch);
  if (keep.length > 20) keep.shift();
  if (${busy}) checkYoungGeneration();
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ main: newSpace(), worker: fromWorker }));
`;

async function measure(sized: boolean, busy = false): Promise<{ main: number; worker: { atStart: number; after: number } }> {
  const dir = await mkdtemp(join(tmpdir(), 'crawl-heap-'));
  try {
    const workerFile = join(dir, 'worker.mjs');
    const mainFile = join(dir, 'main.mjs');
    await writeFile(workerFile, WORKER);
    await writeFile(mainFile, MAIN(sized, workerFile, busy));
    const { stdout } = await run(process.execPath, [mainFile]);
    return JSON.parse(stdout.trim()) as { main: number; worker: { atStart: number; after: number } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const MB = 2 ** 20;

test("left to V8, the main thread's new space grows past 8 MB (so the next case can fail)", async () => {
  const { main } = await measure(false);
  assert.ok(main > 8 * MB, `new space ${main} bytes`);
});

test("sized for a crawl, the main thread's new space stays at 1 MB a semi-space after a worker started, and the worker's has its whole young generation from the start", async () => {
  const { main, worker } = await measure(true);
  assert.ok(main <= 2 * MB + 256 * 1024, `main new space ${main} bytes`);
  // maxYoungGenerationSizeMb 8: two semi-spaces of 4 MB, the first made with the heap (V8 would start at 1 MB).
  assert.ok(worker.atStart >= 4 * MB, `worker new space at start ${worker.atStart} bytes`);
  assert.ok(worker.after <= 8 * MB + 512 * 1024, `worker new space after ${worker.after} bytes`);
});

test("a busy crawl's main thread grows its new space to 8 MB and holds it there", async () => {
  const { main } = await measure(true, true);
  assert.ok(main >= 8 * MB && main <= 8 * MB + 512 * 1024, `main new space ${main} bytes`);
});
