/**
 * The sort bench (bench/line-sorter.ts) on a small scale: spills, the
 * spills that merged runs, and the final read each counted and measured,
 * every line read back once, and its lines printed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cdxjLine, formatOps, sortBench } from '../../bench/line-sorter.js';

test('the sort bench counts spills and merging spills apart, reads every line back, and leaves nothing behind', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sort-bench-test-'));
  try {
    // ~290 characters a line, a 32 KiB buffer: ~100 lines a run, 60 runs, fanIn 4.
    const f = await sortBench({ lines: 6000, bufferBytes: 32 * 1024, fanIn: 4, dir, sampleMs: 1 });
    assert.equal(f.linesOut, 6000, 'distinct lines, every one out');
    assert.equal(f.spills.length + f.merging.length, f.runs);
    assert.ok(f.merging.length >= f.runs / 4 - 1, `${f.merging.length} merging spills of ${f.runs}`);
    assert.ok(f.runFiles < 12, `${f.runFiles} files left for the final read`);
    for (const o of [...f.spills, ...f.merging, f.read]) assert.ok(o.ms > 0 && o.heapRise >= 0 && o.rssRise >= 0);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('lines are CDXJ-shaped and distinct; figures print as one line a kind', () => {
  assert.match(cdxjLine(3), /^com,example\)\/docs\/p\d+\.html 20261205222511 \{"url":"http:\/\/example\.com\/docs\/p\d+\.html",/);
  assert.equal(new Set(Array.from({ length: 5000 }, (_, i) => cdxjLine(i))).size, 5000);
  assert.equal(formatOps('spills', []), 'spills: none');
  assert.equal(
    formatOps('spills', [{ ms: 4, heapRise: 2 * 1024 * 1024, rssRise: 1024 * 1024 }, { ms: 9, heapRise: 0, rssRise: 3 * 1024 * 1024 }]),
    'spills: 2, 9 ms median, 9 ms longest; heap rose up to 2.0 MB, RSS up to 3.0 MB',
  );
});
