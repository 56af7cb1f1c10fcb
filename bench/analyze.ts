/**
 * Benchmark of `archiver analyze`'s two heavy parts.
 *
 * 1. PageRank on a synthetic power-law graph (default 1M nodes / 10M edges):
 *    our typed-array CSR power iteration vs graphology + graphology-metrics
 *    on the same edges, each in its own child process so peak RSS is its own.
 *    graphology needs ~4.5 GB and minutes at 1M/10M, so it runs on a smaller
 *    graph by default (--graphology-nodes/--graphology-edges); both sizes are
 *    also run with ours so the figures compare like for like.
 * 2. WARC read throughput (MB/s of .warc.gz on disk) of our reader (inflate,
 *    split records, decode, scan, resolve, intern) vs plain warcio iteration
 *    that reads every record's payload, over the same generated files; in
 *    one thread, and as `analyze` reads, pages on worker threads.
 *
 *   node --import tsx bench/analyze.ts
 *   node --import tsx bench/analyze.ts --nodes 100000 --edges 1000000 --warc-pages 5000
 *   options: --graphology-nodes N --graphology-edges M (0 to skip graphology)
 *            --repeat R: our PageRank runs R times in its child (default 3) and
 *            the median is printed, with each run's seconds (the 2 cores are
 *            shared, so single runs vary by ±30%). Our PageRank time includes
 *            laying out the edges for the iteration (edge-layout.ts).
 *
 * Figures only: nothing here asserts a speed.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './bench-args.js';
import graphology from 'graphology';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { WARCParser } from 'warcio';
import { buildCsr, type Csr } from '../src/analysis/csr.js';
import { LinkGraphBuilder } from '../src/analysis/graph-builder.js';
import { pagerank, topNodes } from '../src/analysis/pagerank.js';
import { PageLinksPool } from '../src/analysis/page-links.js';
import { WarcReader } from '../src/analysis/warc-reader.js';
import { powerLawGraph, prng, warcBytes, type PageSpec } from '../test/analysis/synthetic.js';

const USAGE = 'usage: node dist/bench/analyze.js [--nodes N] [--edges N] [--graphology-nodes N] [--graphology-edges N] [--warc-pages N] [--repeat N]';

export interface AnalyzeBenchOpts {
  nodes: number;
  edges: number;
  graphologyNodes: number;
  graphologyEdges: number;
  warcPages: number;
  /** Runs of our PageRank per size; the median is printed. */
  repeat: number;
}

interface ChildResult {
  impl: string;
  nodes: number;
  edges: number;
  buildSecs: number;
  pagerankSecs: number;
  iterations: number;
  peakRssMB: number;
  top10: number[];
  /** Every run's PageRank seconds when repeated; pagerankSecs is their median. */
  runsSecs?: number[];
}

/** The package is CommonJS: under NodeNext its default import is module.exports, the function itself. */
const graphologyPagerank = pagerankModule as unknown as (
  graph: unknown,
  options: { alpha: number; tolerance: number; maxIterations: number; getEdgeWeight: null },
) => Record<string, number>;

const TOLERANCE = 1e-6;
const ALPHA = 0.85;

/**
 * The generated edge list goes into the CSR and is dropped, as the graph
 * builder's lists are in `analyze`: the peak RSS is the build's and the
 * ranking's, not the generator's.
 */
function generatedCsr(nodes: number, edges: number): { csr: Csr; buildSecs: number } {
  const g = powerLawGraph(nodes, edges, 42);
  const t0 = performance.now();
  const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
  return { csr, buildSecs: (performance.now() - t0) / 1000 };
}

/**
 * Runs in a child: build the graph from the seeded generator, time PageRank,
 * report peak RSS. The child runs with --expose-gc: the generated edge list
 * and an earlier run's arrays are collected before a run, so the peak is
 * one build and one ranking's, not garbage V8 had not got round to.
 */
function childPagerank(impl: string, nodes: number, edges: number, repeat: number): ChildResult {
  const collect = (globalThis as { gc?: () => void }).gc ?? ((): void => {});
  const { csr, buildSecs } = generatedCsr(nodes, edges);
  collect();
  let t0 = performance.now();
  if (impl === 'ours' || impl === 'ours-1') {
    const runsSecs: number[] = [];
    let r: ReturnType<typeof pagerank> | undefined;
    for (let i = 0; i < Math.max(1, repeat); i++) {
      r = undefined;
      collect();
      t0 = performance.now();
      // 'ours-1': the same on one thread, to show what the helper thread gives.
      r = pagerank(csr, { alpha: ALPHA, tolerance: TOLERANCE, maxIterations: 200 }, impl === 'ours-1' ? { threads: 1 } : {});
      runsSecs.push((performance.now() - t0) / 1000);
    }
    const median = runsSecs.slice().sort((a, b) => a - b)[runsSecs.length >> 1]!;
    return { ...result(impl, csr.nodeCount, csr.targets.length, buildSecs, median, r!.iterations, topNodes(r!.scores, 10)), runsSecs };
  }
  // graphology gets exactly the same collapsed edge set; build time counts only its own graph.
  t0 = performance.now();
  const graph = new graphology.DirectedGraph();
  for (let u = 0; u < csr.nodeCount; u++) graph.addNode(u);
  for (let u = 0; u < csr.nodeCount; u++) {
    for (let j = csr.offsets[u]!; j < csr.offsets[u + 1]!; j++) graph.addEdge(u, csr.targets[j]!);
  }
  const graphologyBuildSecs = (performance.now() - t0) / 1000;
  t0 = performance.now();
  // graphology stops at L1 < N × tolerance; pass tolerance/N for the same true-L1 rule.
  const ranks = graphologyPagerank(graph, {
    alpha: ALPHA,
    tolerance: TOLERANCE / csr.nodeCount,
    maxIterations: 200,
    getEdgeWeight: null,
  });
  const pagerankSecs = (performance.now() - t0) / 1000;
  const scores = new Float64Array(csr.nodeCount);
  for (const [k, v] of Object.entries(ranks)) scores[Number(k)] = v;
  return result(impl, csr.nodeCount, csr.targets.length, graphologyBuildSecs, pagerankSecs, -1, topNodes(scores, 10));
}

function result(impl: string, nodes: number, edges: number, buildSecs: number, pagerankSecs: number, iterations: number, top10: number[]): ChildResult {
  return { impl, nodes, edges, buildSecs, pagerankSecs, iterations, peakRssMB: process.resourceUsage().maxRSS / 1024, top10 };
}

function runChild(impl: string, nodes: number, edges: number, repeat = 1): ChildResult | string {
  const script = process.argv[1]!;
  const args = [
    ...process.execArgv,
    '--max-old-space-size=12000',
    '--expose-gc',
    script,
    '--child',
    impl,
    '--nodes',
    String(nodes),
    '--edges',
    String(edges),
    '--repeat',
    String(repeat),
  ];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) {
    // The error line, not the stack's tail (which only names node's ESM loader).
    const lines = r.stderr.trim().split('\n');
    return `failed (exit ${r.status}): ${lines.find((l) => /Error|error:/.test(l)) ?? lines.slice(-3).join(' | ')}`;
  }
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

function printPagerank(r: ChildResult | string, label: string): void {
  if (typeof r === 'string') {
    console.log(`  ${label.padEnd(34)} ${r}`);
    return;
  }
  console.log(
    `  ${label.padEnd(34)} ${(r.nodes / 1e3).toFixed(0)}k nodes ${(r.edges / 1e6).toFixed(2)}M edges  ` +
      `build ${r.buildSecs.toFixed(2)} s  pagerank ${r.pagerankSecs.toFixed(2)} s` +
      `${r.iterations > 0 ? ` (${r.iterations} it)` : ''}  peak RSS ${r.peakRssMB.toFixed(0)} MB` +
      `${r.runsSecs && r.runsSecs.length > 1 ? `  [median of ${r.runsSecs.map((x) => x.toFixed(2)).join(', ')}]` : ''}`,
  );
}

/** Synthetic site: ~12 KB HTML pages with ~60 links, one image record per 4 pages, gzip per record. */
async function writeBenchWarcs(dir: string, pages: number): Promise<string[]> {
  const rand = prng(7);
  const files: string[] = [];
  const perFile = 2000;
  const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(4);
  for (let f = 0; f * perFile < pages; f++) {
    const specs: PageSpec[] = [];
    for (let i = f * perFile; i < Math.min(pages, (f + 1) * perFile); i++) {
      const links: string[] = [];
      for (let k = 0; k < 60; k++) links.push(`/p/${Math.floor(pages * rand() ** 2)}.html?ref=${k}`);
      const body = links.map((l, k) => `<li><a href="${l}" class="x">Item ${k}</a> <span>${filler.slice(0, 120)}</span></li>`);
      specs.push({
        url: `http://site${i % 50}.test/p/${i}.html`,
        html: `<!doctype html><html><head><title>Page ${i}</title><script>var a = "<a href='no'>";</script></head><body><ul>${body.join('\n')}</ul></body></html>`,
        encoding: i % 3 === 0 ? 'gzip' : undefined,
      });
      if (i % 4 === 0) {
        specs.push({ url: `http://site${i % 50}.test/img/${i}.png`, html: filler.repeat(40), headers: { 'Content-Type': 'image/png' } });
      }
    }
    const file = path.join(dir, `bench-${String(f).padStart(4, '0')}.warc.gz`);
    await fs.writeFile(file, await warcBytes(specs, true));
    files.push(file);
  }
  return files;
}

async function plainWarcio(files: string[]): Promise<number> {
  let records = 0;
  for (const file of files) {
    for await (const rec of new WARCParser(createReadStream(file))) {
      await rec.readFully(false);
      records++;
    }
  }
  return records;
}

async function ourReader(files: string[]): Promise<number> {
  const builder = new LinkGraphBuilder();
  const reader = new WarcReader(builder, { warn: (m) => console.error(m) });
  const stats = await reader.readFiles(files);
  builder.build({ keepSelfLoops: false, maxRedirectHops: 20 });
  return stats.records;
}

/** As `archiver analyze` reads: pages decoded and scanned on worker threads (one per core beyond this one). */
async function ourPooledReader(files: string[]): Promise<number> {
  const builder = new LinkGraphBuilder();
  const pool = new PageLinksPool();
  try {
    const reader = new WarcReader(builder, { warn: (m) => console.error(m) }, (page) => pool.extract(page));
    const stats = await reader.readFiles(files);
    builder.build({ keepSelfLoops: false, maxRedirectHops: 20 });
    if (pool.fellBack) console.log('  (no worker threads here: run the compiled bench for the pooled figure)');
    return stats.records;
  } finally {
    await pool.close();
  }
}

export async function runAnalyzeBench(opts: AnalyzeBenchOpts): Promise<void> {
  console.log(`analyze bench — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, ${os.cpus().length} cores`);
  console.log('PageRank (alpha 0.85, true L1 tolerance 1e-6), each run in its own process:');
  const sizes: [number, number][] = [[opts.nodes, opts.edges]];
  if (opts.graphologyNodes > 0 && (opts.graphologyNodes !== opts.nodes || opts.graphologyEdges !== opts.edges)) {
    sizes.unshift([opts.graphologyNodes, opts.graphologyEdges]);
  }
  for (const [n, m] of sizes) {
    const ours = runChild('ours', n, m, opts.repeat);
    printPagerank(ours, 'typed-array CSR (ours)');
    if (m >= 1_000_000) printPagerank(runChild('ours-1', n, m, opts.repeat), 'the same on one thread');
    if (n === opts.graphologyNodes && opts.graphologyNodes > 0) {
      const g = runChild('graphology', n, m);
      printPagerank(g, 'graphology + graphology-metrics');
      if (typeof ours !== 'string' && typeof g !== 'string') {
        console.log(`  top-10 order equal: ${JSON.stringify(ours.top10) === JSON.stringify(g.top10)}`);
      }
    }
  }

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-'));
  try {
    const files = await writeBenchWarcs(dir, opts.warcPages);
    let bytes = 0;
    for (const f of files) bytes += (await fs.stat(f)).size;
    console.log(`WARC read: ${opts.warcPages} pages in ${files.length} .warc.gz files, ${(bytes / 1e6).toFixed(1)} MB on disk`);
    for (const [label, fn] of [
      ['plain warcio iteration (readFully)', plainWarcio],
      ['our reader (decode+scan+graph)', ourReader],
      ['our reader, pages on worker threads', ourPooledReader],
    ] as const) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const records = await fn(files);
      const secs = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(c0);
      const cpuSecs = (cpu.user + cpu.system) / 1e6;
      console.log(
        `  ${label.padEnd(36)} ${records} records  ${secs.toFixed(2)} s wall, ${cpuSecs.toFixed(2)} s CPU  ` +
          `${(bytes / 1e6 / secs).toFixed(1)} MB/s (${(bytes / 1e6 / cpuSecs).toFixed(1)} MB/s per CPU second)`,
      );
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      child: { type: 'string' },
      nodes: { type: 'string', default: '1000000' },
      edges: { type: 'string', default: '10000000' },
      'graphology-nodes': { type: 'string', default: '100000' },
      'graphology-edges': { type: 'string', default: '1000000' },
      'warc-pages': { type: 'string', default: '20000' },
      repeat: { type: 'string', default: '3' },
    },
  }, { usage: USAGE });
  if (values.child !== undefined) {
    console.log(JSON.stringify(childPagerank(values.child, Number(values.nodes), Number(values.edges), Number(values.repeat))));
    return;
  }
  await runAnalyzeBench({
    nodes: Number(values.nodes),
    edges: Number(values.edges),
    graphologyNodes: Number(values['graphology-nodes']),
    graphologyEdges: Number(values['graphology-edges']),
    warcPages: Number(values['warc-pages']),
    repeat: Number(values.repeat),
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
