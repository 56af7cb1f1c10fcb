/**
 * The external merge sort behind the CDXJ index: with a buffer bound small
 * enough to spill dozens of runs, the output is exactly the distinct lines
 * in bytewise order (duplicates within and across runs dropped, lines past
 * U+FFFF and lone '\r' kept intact; with and without surrogates, which
 * decide the comparator), and the sorter's temp directory is
 * gone after a full read, an early break, an error in the consumer, or a
 * close() without reading. With nothing spilled it creates no directory.
 * Runs that pile up are merged a generation at a time (fanIn), and what
 * the sorter counts on disk is what is there.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { compareCdxjLines } from '../../src/index/cdxj.js';
import { LineSorter, type LineSorterOptions } from '../../src/index/line-sorter.js';
import { mulberry32 } from '../helpers/prng.js';

let tmp: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-sort-test-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A fresh parent directory per test, so "nothing left" is checked on that test's files only. */
async function parent(): Promise<string> {
  return mkdtemp(path.join(tmp, 'p-'));
}

const ALPHABET = ['a', 'b', 'c', 'z', ' ', '{', '"', ',', ')', '\r', 'é', '\u00ff', '中', '\u{1F600}', '\uff21'];

function randomLines(seed: number, count: number): string[] {
  const rnd = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    // Few distinct short prefixes, so many lines share a prefix and some repeat exactly.
    let line = `com,example${Math.floor(rnd() * 5)})/`;
    const len = Math.floor(rnd() * 6);
    for (let j = 0; j < len; j++) line += ALPHABET[Math.floor(rnd() * ALPHABET.length)]!;
    out.push(line);
  }
  return out;
}

async function feed(sorter: LineSorter, lines: readonly string[]): Promise<void> {
  for (const line of lines) if (!sorter.add(line)) await sorter.spill();
}

async function collect(sorter: LineSorter): Promise<string[]> {
  const out: string[] = [];
  for await (const line of sorter.sorted()) out.push(line);
  return out;
}

const expected = (lines: readonly string[]): string[] => [...new Set(lines)].sort(compareCdxjLines);

async function sortAll(lines: readonly string[], opts: LineSorterOptions): Promise<{ out: string[]; runs: number }> {
  const sorter = new LineSorter(opts);
  await feed(sorter, lines);
  const runs = sorter.runs;
  return { out: await collect(sorter), runs };
}

describe('LineSorter', () => {
  test('many spilled runs merge to the distinct lines in bytewise order; nothing left on disk', async () => {
    const dir = await parent();
    const lines = randomLines(42, 20_000);
    assert.ok(new Set(lines).size < lines.length, 'the input has duplicates');
    const { out, runs } = await sortAll(lines, { maxBufferedBytes: 20_000, tmpDir: dir, batchLines: 7 });
    assert.ok(runs > 20, `spilled ${runs} runs`);
    assert.deepEqual(out, expected(lines));
    assert.deepEqual(await readdir(dir), []);
  });

  test('runs are merged as they pile up: under fanIn files a generation, the same lines out', async () => {
    const dir = await parent();
    const lines = randomLines(5, 6000);
    const sorter = new LineSorter({ maxBufferedBytes: 1000, tmpDir: dir, fanIn: 3 });
    let most = 0;
    for (const line of lines) {
      if (sorter.add(line)) continue;
      await sorter.spill();
      most = Math.max(most, sorter.runFiles);
      // What is on disk is what the sorter counts: merged runs are removed.
      const [own] = await readdir(dir);
      assert.equal((await readdir(path.join(dir, own!))).length, sorter.runFiles);
    }
    assert.ok(sorter.runs > 150, `spilled ${sorter.runs} runs`);
    // ~200 spills with fanIn 3: at most 2 runs in each of ~5 generations (without merging, one file a spill).
    assert.ok(most <= 12, `at most ${most} run files`);
    assert.deepEqual(await collect(sorter), expected(lines));
    assert.deepEqual(await readdir(dir), []);
  });

  test('fanIn below 2 is refused', () => {
    assert.throws(() => new LineSorter({ fanIn: 1 }), RangeError);
  });

  test('bytewise order: what Buffer.compare of the UTF-8 gives, across surrogates', async () => {
    const lines = randomLines(7, 3000);
    const { out } = await sortAll(lines, { maxBufferedBytes: 2000, tmpDir: await parent() });
    for (let i = 1; i < out.length; i++) {
      assert.ok(Buffer.compare(Buffer.from(out[i - 1]!, 'utf8'), Buffer.from(out[i]!, 'utf8')) < 0, `${i}`);
    }
  });

  test('lines without surrogates (sorted and merged by UTF-16 units) come out in the same bytewise order', async () => {
    const lines = randomLines(11, 5000).map((l) => l.replace(/\u{1F600}/gu, '\ue000'));
    assert.ok(lines.some((l) => l.includes('\ue000')) && lines.some((l) => l.includes('\uff21')));
    const { out, runs } = await sortAll(lines, { maxBufferedBytes: 3000, tmpDir: await parent() });
    assert.ok(runs > 10);
    assert.deepEqual(out, expected(lines));
  });

  test('a line repeated in every run comes out once', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 1000; i++) lines.push(`k ${String(i).padStart(4, '0')}`, 'k dup', '');
    const { out, runs } = await sortAll(lines, { maxBufferedBytes: 500, tmpDir: await parent() });
    assert.ok(runs > 10);
    assert.equal(out.filter((l) => l === 'k dup').length, 1);
    assert.equal(out.filter((l) => l === '').length, 1);
    assert.deepEqual(out, expected(lines));
  });

  test('long lines cross the reader chunk boundaries intact', async () => {
    const rnd = mulberry32(3);
    const lines = Array.from({ length: 60 }, (_, i) => `${i % 7} ${'é中\u{1F600}x'.repeat(Math.floor(rnd() * 40_000))}`);
    const { out, runs } = await sortAll(lines, { maxBufferedBytes: 400_000, tmpDir: await parent() });
    assert.ok(runs > 2);
    assert.deepEqual(out, expected(lines));
  });

  test('empty input: nothing out, no directory', async () => {
    const dir = await parent();
    const { out } = await sortAll([], { tmpDir: dir });
    assert.deepEqual(out, []);
    assert.deepEqual(await readdir(dir), []);
  });

  test('below the bound: sorted in memory, no directory ever made', async () => {
    const dir = await parent();
    const lines = randomLines(1, 500);
    const sorter = new LineSorter({ tmpDir: dir });
    await feed(sorter, lines);
    assert.equal(sorter.runs, 0);
    const out: string[] = [];
    for await (const line of sorter.sorted()) {
      out.push(line);
      assert.deepEqual(await readdir(dir), []);
    }
    assert.deepEqual(out, expected(lines));
  });

  test('a single run and no remainder', async () => {
    const dir = await parent();
    const lines = randomLines(2, 300);
    const sorter = new LineSorter({ tmpDir: dir });
    await feed(sorter, lines);
    await sorter.spill();
    assert.equal(sorter.runs, 1);
    assert.equal((await readdir(dir)).length, 1);
    assert.deepEqual(await collect(sorter), expected(lines));
    assert.deepEqual(await readdir(dir), []);
  });

  test('breaking out early, or throwing in the loop, removes the runs', async () => {
    for (const how of ['break', 'throw'] as const) {
      const dir = await parent();
      const sorter = new LineSorter({ maxBufferedBytes: 1000, tmpDir: dir });
      await feed(sorter, randomLines(5, 2000));
      assert.ok(sorter.runs > 5);
      assert.equal((await readdir(dir)).length, 1, 'the sorter made its directory');
      let seen = 0;
      const loop = async (): Promise<void> => {
        for await (const _ of sorter.sorted()) {
          if (++seen === 10) {
            if (how === 'break') break;
            throw new Error('consumer failed');
          }
        }
      };
      if (how === 'throw') await assert.rejects(loop(), /consumer failed/);
      else await loop();
      assert.equal(seen, 10);
      assert.deepEqual(await readdir(dir), [], how);
    }
  });

  test('close() without reading removes the runs; a closed sorter takes no lines', async () => {
    const dir = await parent();
    const sorter = new LineSorter({ maxBufferedBytes: 1000, tmpDir: dir });
    await feed(sorter, randomLines(6, 1000));
    assert.ok(sorter.runs > 0);
    await sorter.close();
    await sorter.close();
    assert.deepEqual(await readdir(dir), []);
    assert.throws(() => sorter.add('x'), { code: 'ARCHIVER_SORT_LINE' });
  });

  test('a line holding a newline is refused; a spill that cannot write fails with ARCHIVER_SORT_IO', async () => {
    const sorter = new LineSorter({ maxBufferedBytes: 1, tmpDir: path.join(tmp, 'no', 'such', 'dir') });
    assert.throws(() => sorter.add('a\nb'), { code: 'ARCHIVER_SORT_LINE' });
    assert.equal(sorter.add('a'), false);
    await assert.rejects(sorter.spill(), { code: 'ARCHIVER_SORT_IO' });
    await sorter.close();
  });

  test('reading twice is refused', async () => {
    const sorter = new LineSorter();
    sorter.add('x');
    assert.deepEqual(await collect(sorter), ['x']);
    await assert.rejects(collect(sorter), { code: 'ARCHIVER_SORT_LINE' });
  });
});
