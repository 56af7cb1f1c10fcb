/**
 * Metrics of the host graph (host-graph.ts), all from graphology-metrics:
 * weighted PageRank, HITS hubs and authorities, and weighted in/out degree
 * (sums of edge weights). The host graph has one node per host, so it is
 * small enough for graphology even when the page graph is not.
 *
 * Stopping rules, read from graphology-metrics 2.4 itself:
 * - its `pagerank` stops when the summed change of one iteration is below
 *   N × tolerance. We pass tolerance = HOST_PAGERANK_L1 / N, so it stops at
 *   a true L1 change below 1e-9. Weighted: a host sends its rank along its
 *   out-edges in proportion to their weights; a host without out-edges
 *   spreads its rank over all hosts evenly (networkx does the same).
 * - its `hits` compares the L1 change of the max-normalized hub vector with
 *   tolerance as is (no N ×), so HOST_HITS_L1 is passed unchanged. Scores
 *   are then normalized to sum to 1. HITS converges at the ratio of the two
 *   largest eigenvalues of AAᵀ, which two near-identical parts of a graph
 *   can bring close to 1: if 1e-9 is not reached in HITS_MAX_ITERATIONS,
 *   looser tolerances are tried (the one reached is reported) rather than
 *   losing the whole analysis. A graph without edges has no hubs or
 *   authorities: all scores are 0 (HITS itself would divide 0 by 0).
 */
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import hitsModule from 'graphology-metrics/centrality/hits.js';
import { weightedInDegree, weightedOutDegree } from 'graphology-metrics/node/weighted-degree.js';
import { HostMetricConvergenceError } from './errors.js';
import type { HostGraph } from './host-graph.js';

/** The true L1 change below which host PageRank has converged. */
export const HOST_PAGERANK_L1 = 1e-9;
/** The L1 change of the max-normalized hub vector below which HITS has converged; then the fallbacks. */
export const HOST_HITS_L1 = 1e-9;
const HITS_FALLBACK_L1 = [1e-6, 1e-3];
/** HITS converges at the rate of the ratio of its two largest eigenvalues, unknown in advance. */
const HITS_MAX_ITERATIONS = 10_000;

export interface HostRow {
  host: string;
  pages: number;
  /** Sum of the weights of the host's in-edges: links from pages on other hosts. */
  inDegree: number;
  /** Sum of the weights of its out-edges. */
  outDegree: number;
  pagerank: number;
  hub: number;
  authority: number;
}

export interface HostAnalysis {
  graph: HostGraph;
  /** Every host, highest PageRank first (ties by host name). */
  rows: HostRow[];
  /** Edges of the host graph (host pairs linked). */
  edges: number;
  /** The L1 change HITS reached: HOST_HITS_L1 unless that took too long. */
  hitsTolerance: number;
}

/** graphology-metrics is CommonJS: under NodeNext its default import is module.exports, the function itself. */
const graphologyPagerank = pagerankModule as unknown as (
  graph: HostGraph,
  options: { alpha: number; tolerance: number; maxIterations: number; getEdgeWeight: 'weight' },
) => Record<string, number>;
const graphologyHits = hitsModule as unknown as (
  graph: HostGraph,
  options: { tolerance: number; maxIterations: number; getEdgeWeight: 'weight'; normalize: true },
) => { hubs: Record<string, number>; authorities: Record<string, number> };

/**
 * Iterations enough for any graph: the L1 change of a PageRank iteration
 * shrinks by at least alpha each time from at most 2, so it is below `l1`
 * after log(l1 / 2) / log(alpha) iterations.
 */
export function pagerankIterationBound(alpha: number, l1: number): number {
  if (alpha <= 0) return 100;
  return Math.max(100, Math.ceil(Math.log(l1 / 2) / Math.log(alpha)) + 10);
}

export function hostMetrics(graph: HostGraph, options: { alpha: number }): HostAnalysis {
  const n = graph.order;
  if (n === 0) return { graph, rows: [], edges: 0, hitsTolerance: HOST_HITS_L1 };
  const ranks = run('PageRank', () =>
    graphologyPagerank(graph, {
      alpha: options.alpha,
      tolerance: HOST_PAGERANK_L1 / n,
      maxIterations: pagerankIterationBound(options.alpha, HOST_PAGERANK_L1),
      getEdgeWeight: 'weight',
    }),
  );
  const { hits, tolerance: hitsTolerance } = hitsScores(graph);
  const rows: HostRow[] = graph.mapNodes((host, attributes) => ({
    host,
    pages: attributes.pages,
    inDegree: weightedInDegree(graph, host, 'weight'),
    outDegree: weightedOutDegree(graph, host, 'weight'),
    pagerank: ranks[host]!,
    hub: hits?.hubs[host] ?? 0,
    authority: hits?.authorities[host] ?? 0,
  }));
  rows.sort((a, b) => b.pagerank - a.pagerank || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  return { graph, rows, edges: graph.size, hitsTolerance };
}

type HitsResult = ReturnType<typeof graphologyHits>;

/** HITS to the tightest of HOST_HITS_L1 and its fallbacks it reaches; none for a graph without edges. */
function hitsScores(graph: HostGraph): { hits: HitsResult | null; tolerance: number } {
  if (graph.size === 0) return { hits: null, tolerance: HOST_HITS_L1 };
  const tolerances = [HOST_HITS_L1, ...HITS_FALLBACK_L1];
  for (let i = 0; ; i++) {
    const tolerance = tolerances[i]!;
    try {
      const hits = run('HITS', () => graphologyHits(graph, { tolerance, maxIterations: HITS_MAX_ITERATIONS, getEdgeWeight: 'weight', normalize: true }));
      return { hits, tolerance };
    } catch (err) {
      if (!(err instanceof HostMetricConvergenceError) || i === tolerances.length - 1) throw err;
    }
  }
}

/** graphology-metrics throws a plain Error when it does not converge: give it our code. */
function run<T>(metric: string, compute: () => T): T {
  try {
    return compute();
  } catch (err) {
    if (err instanceof Error && /failed to converge/.test(err.message)) throw new HostMetricConvergenceError(metric, err);
    throw err;
  }
}
