/**
 * The whole analysis as one function of the input files: read → graph →
 * degrees → PageRank, and with `hosts` the host graph and its metrics. The
 * CLI formats its result; tests and the bench call it directly.
 */
import { inDegrees, outDegrees } from './csr.js';
import { summarizeDegrees, type DegreeSummary } from './degrees.js';
import { LinkGraphBuilder, type LinkGraph } from './graph-builder.js';
import { buildHostGraph } from './host-graph.js';
import { hostMetrics, type HostAnalysis } from './host-metrics.js';
import { pagerank, type PageRankOptions, type PageRankResult } from './pagerank.js';
import { PageLinksPool } from './page-links.js';
import { resolveRevisits, ResponseIndex } from './revisit-originals.js';
import { WarcReader, type ReaderHooks, type ReadStats } from './warc-reader.js';
import type { WarcSource } from '../warc/warc-records.js';

export interface AnalysisOptions extends PageRankOptions {
  keepSelfLoops: boolean;
  /** Also build the host graph and its metrics (host-graph.ts, host-metrics.ts); default false. */
  hosts?: boolean;
}

export interface AnalysisResult {
  read: ReadStats;
  graph: LinkGraph;
  inDegree: Int32Array;
  outDegree: Int32Array;
  inSummary: DegreeSummary;
  outSummary: DegreeSummary;
  /** Pages with no out-edges in the graph. */
  dangling: number;
  rank: PageRankResult;
  /** The host graph and its metrics, when asked for. */
  hosts?: HostAnalysis;
  options: AnalysisOptions;
}

/**
 * `files`: the WARCs whose captures make the graph. `references`: WARCs
 * searched only for the originals of revisits (a job's `dedup.against`
 * crawls), never added to the graph.
 */
export async function analyzeWarcs(
  files: readonly (string | WarcSource)[],
  options: AnalysisOptions,
  hooks: ReaderHooks,
  references: readonly (string | WarcSource)[] = [],
): Promise<AnalysisResult> {
  const { graph, read } = await readGraph(files, references, options, hooks);
  return analyzeGraph(graph, read, options);
}

/**
 * The page graph of the files. The builder, with its URL table and edge
 * lists (tens of MB at a million pages), is unreachable once this returns,
 * so it is not held while PageRank allocates.
 */
async function readGraph(
  files: readonly (string | WarcSource)[],
  references: readonly (string | WarcSource)[],
  options: AnalysisOptions,
  hooks: ReaderHooks,
): Promise<{ graph: LinkGraph; read: ReadStats }> {
  const builder = new LinkGraphBuilder();
  const responses = new ResponseIndex(builder);
  // Pages are decoded and scanned on worker threads; the graph still sees them in record order.
  const pool = new PageLinksPool();
  let read: ReadStats;
  try {
    read = await new WarcReader(builder, hooks, (page) => pool.extract(page), responses).readFiles(files);
  } finally {
    await pool.close();
  }
  const revisits = await resolveRevisits(builder, responses, files, references, hooks);
  return { graph: { ...builder.build({ keepSelfLoops: options.keepSelfLoops, maxRedirectHops: 20 }), revisits }, read };
}

/** Degrees and PageRank of a built graph. */
export function analyzeGraph(graph: LinkGraph, read: ReadStats, options: AnalysisOptions): AnalysisResult {
  const inDegree = inDegrees(graph);
  const outDegree = outDegrees(graph);
  let dangling = 0;
  for (let u = 0; u < graph.nodeCount; u++) if (outDegree[u] === 0) dangling++;
  const rank = pagerank(graph, options);
  const hosts = options.hosts === true ? hostMetrics(buildHostGraph(graph), { alpha: options.alpha }) : undefined;
  return {
    read,
    graph,
    inDegree,
    outDegree,
    inSummary: summarizeDegrees(inDegree),
    outSummary: summarizeDegrees(outDegree),
    dangling,
    rank,
    ...(hosts === undefined ? {} : { hosts }),
    options,
  };
}
