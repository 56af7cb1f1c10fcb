/**
 * The external sort behind the crawl's live CDXJ index
 * (src/index/line-sorter.ts), fed as a crawl feeds it: CDXJ-shaped lines
 * added one by one, a sorted run spilled whenever the buffer fills (2 MiB,
 * as src/wacz/live-index.ts holds), runs merged as they pile up (fanIn),
 * and everything read back at the end as the end of a crawl reads it.
 * Prints, for the spills, the spills that merged, and the final read, the
 * time each took and how far V8's heap and the process's RSS rose above
 * where they were when it began: what a long crawl's memory does around
 * them.
 *
 *   node --max-semi-space-size=1 dist/bench/line-sorter.js        # 250,000 lines, the crawl's young generation
 *   node dist/bench/line-sorter.js --lines 1000000 --buffer-mib 8 --fan-in 16
 *
 * A crawl's main thread runs with 1 MB semi-spaces (src/core/crawl-heap.ts):
 * the flag above gives figures like a crawl's. Figures only: nothing here
 * asserts a speed or a size.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './bench-args.js';
import { LineSorter } from '../src/index/line-sorter.js';

const USAGE = 'usage: node dist/bench/line-sorter.js [--lines N] [--buffer-mib N] [--fan-in N]';

export interface SortBenchOpts {
  lines: number;
  bufferBytes: number;
  fanIn: number;
  /** Where the runs go; a temporary folder of the OS's by default. */
  dir?: string;
  /** How often memory is read while an operation runs, in ms. Default 5. */
  sampleMs?: number;
}

/** One operation: how long it took and how far heap and RSS rose above their level when it began, in bytes. */
export interface OpFigures {
  ms: number;
  heapRise: number;
  rssRise: number;
}

export interface SortBenchFigures {
  spills: OpFigures[];
  /** Spills that also merged runs (the files on disk went down). */
  merging: OpFigures[];
  read: OpFigures;
  linesOut: number;
  runs: number;
  /** Run files left for the final read. */
  runFiles: number;
}

/** Line `i`: a CDXJ line as the live index makes them, URLs in no particular order, ~270 characters. */
export function cdxjLine(i: number): string {
  const p = (i * 7919) % 1_000_003;
  return `com,example)/docs/p${p}.html 20261205222511 {"url":"http://example.com/docs/p${p}.html","mime":"text/html","status":"200","digest":"sha1:3QW6FGEDPKDNHPEG5CRSQQISFHM6ZTNW","length":"812","offset":"${i * 812}","filename":"WEB-20261205220603254-00000-4721~vm.warc.gz"}`;
}

/** Runs `op`, reading memory every `sampleMs` while it runs. */
async function measured<T>(op: () => Promise<T>, sampleMs: number): Promise<{ value: T; figures: OpFigures }> {
  const start = process.memoryUsage();
  let heap = start.heapTotal;
  let rss = start.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapTotal);
    rss = Math.max(rss, m.rss);
  }, sampleMs);
  const t0 = process.hrtime.bigint();
  try {
    const value = await op();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const end = process.memoryUsage();
    return { value, figures: { ms, heapRise: Math.max(heap, end.heapTotal) - start.heapTotal, rssRise: Math.max(rss, end.rss) - start.rss } };
  } finally {
    clearInterval(timer);
  }
}

export async function sortBench(opts: SortBenchOpts): Promise<SortBenchFigures> {
  const dir = opts.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'archiver-sort-bench-')));
  const sampleMs = opts.sampleMs ?? 5;
  const sorter = new LineSorter({ maxBufferedBytes: opts.bufferBytes, fanIn: opts.fanIn, tmpDir: dir });
  const spills: OpFigures[] = [];
  const merging: OpFigures[] = [];
  try {
    for (let i = 0; i < opts.lines; i++) {
      if (sorter.add(cdxjLine(i))) continue;
      const filesBefore = sorter.runFiles;
      const { figures } = await measured(() => sorter.spill(), sampleMs);
      (sorter.runFiles <= filesBefore ? merging : spills).push(figures);
    }
    const runs = sorter.runs;
    const runFiles = sorter.runFiles;
    const { value: linesOut, figures: read } = await measured(async () => {
      let n = 0;
      for await (const batch of sorter.batches()) n += batch.length;
      return n;
    }, sampleMs);
    return { spills, merging, read, linesOut, runs, runFiles };
  } finally {
    await sorter.close();
    if (opts.dir === undefined) await rm(dir, { recursive: true, force: true });
  }
}

const MB = 1024 * 1024;

/** A kind of operation in a line: how many, their median and longest time, and the most heap and RSS any rose. */
export function formatOps(label: string, ops: readonly OpFigures[]): string {
  if (ops.length === 0) return `${label}: none`;
  const ms = ops.map((o) => o.ms).sort((a, b) => a - b);
  const most = (pick: (o: OpFigures) => number): string => (Math.max(...ops.map(pick)) / MB).toFixed(1);
  return `${label}: ${ops.length}, ${ms[ms.length >> 1]!.toFixed(0)} ms median, ${ms[ms.length - 1]!.toFixed(0)} ms longest; heap rose up to ${most((o) => o.heapRise)} MB, RSS up to ${most((o) => o.rssRise)} MB`;
}

async function main(): Promise<void> {
  const { values } = benchArgs(
    { options: { lines: { type: 'string', default: '250000' }, 'buffer-mib': { type: 'string', default: '2' }, 'fan-in': { type: 'string', default: '16' } } },
    { usage: USAGE },
  );
  const opts: SortBenchOpts = { lines: Number(values.lines), bufferBytes: Number(values['buffer-mib']) * MB, fanIn: Number(values['fan-in']) };
  const f = await sortBench(opts);
  console.log(`${opts.lines.toLocaleString('en-US')} lines, a ${values['buffer-mib']} MiB buffer, fanIn ${opts.fanIn}: ${f.runs} runs spilled, ${f.runFiles} files left for the final read, ${f.linesOut.toLocaleString('en-US')} distinct lines out`);
  console.log(formatOps('spills', f.spills));
  console.log(formatOps('spills that merged', f.merging));
  console.log(formatOps('final read', [f.read]));
  console.log(`young generation: ${process.execArgv.find((a) => a.startsWith('--max-semi-space-size')) ?? "node's default (a crawl runs with --max-semi-space-size=1)"}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
