/**
 * PageRank by power iteration over a CSR graph.
 *
 * [Reference] Page, L., Brin, S., Motwani, R., Winograd, T. "The PageRank
 * Citation Ranking: Bringing Order to the Web." Stanford InfoLab, 1999.
 *
 * x' = alpha · (Mᵀx + d/N) + (1 − alpha)/N, where d is the rank held by
 * dangling pages (no out-edges), spread evenly over all N nodes — the same
 * model as networkx and graphology-metrics. Iteration stops when the L1
 * change ‖x' − x‖₁ < tolerance. That is a true L1 bound: networkx and
 * graphology compare against N × tolerance, which on large graphs stops
 * after a handful of iterations with a wrong top-N order.
 *
 * The pass over the edges is bound by memory latency, so it runs over a
 * cache-friendly copy of the edges (edge-layout.ts), a target block at a
 * time (pagerank-block.ts), on two threads when the graph is big enough and
 * a second core is there (pagerank-threads.ts). Every iterate is the plain
 * power-iteration iterate; only the order of the additions into one score
 * differs from a push along CSR rows, which moves results by rounding
 * (~1e-18), not by method, and the blocks' sums are added in block order, so
 * results are the same bit for bit on one thread or two. Gauss–Seidel or
 * extrapolation would take fewer iterations but stop at another point: L1
 * change < 1e-6 only bounds the distance to the fixed point by
 * ~alpha/(1−alpha) · 1e-6 ≈ 6e-6, so two methods may legitimately differ
 * far more than the 1e-9 our results are held to; they are not used.
 */
import os from 'node:os';
import type { Csr } from './csr.js';
import { layoutEdges, type EdgeLayoutOptions } from './edge-layout.js';
import { PageRankConvergenceError } from './errors.js';
import { rankBlock, written, type RankVectors } from './pagerank-block.js';
import { RankHelper } from './pagerank-threads.js';

export interface PageRankOptions {
  /** Damping factor, in [0, 1); default 0.85. */
  alpha: number;
  /** Stop when the L1 change of one iteration is below this; default 1e-6. */
  tolerance: number;
  /** Throw PageRankConvergenceError past this many iterations; default 100. */
  maxIterations: number;
}

export const PAGERANK_DEFAULTS: Readonly<PageRankOptions> = Object.freeze({
  alpha: 0.85,
  tolerance: 1e-6,
  maxIterations: 100,
});

export interface PageRankResult {
  /** Node id → score; the scores sum to 1. */
  scores: Float64Array;
  iterations: number;
  /** L1 change of the last iteration. */
  lastChange: number;
  /** Threads the iterations ran on (speed only: the scores are the same). */
  threads: number;
}

/** How the work is laid out; speed only, results do not depend on it. */
export interface PageRankTuning extends EdgeLayoutOptions {
  /** 1 or 2; default 2 when the graph has minEdgesForThreads edges and the machine a second core. */
  threads: number;
  /** Below this many edges one thread is faster (a helper takes ~50 ms to start); default 1,000,000. */
  minEdgesForThreads: number;
}

export function pagerank(graph: Csr, options: Partial<PageRankOptions> = {}, tuning: Partial<PageRankTuning> = {}): PageRankResult {
  const { alpha, tolerance, maxIterations } = { ...PAGERANK_DEFAULTS, ...options };
  const n = graph.nodeCount;
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, lastChange: 0, threads: 1 };
  const { offsets } = graph;
  const minEdges = tuning.minEdgesForThreads ?? 1_000_000;
  const threads = tuning.threads ?? (graph.targets.length >= minEdges && os.availableParallelism() > 1 ? 2 : 1);
  const shared = threads > 1;
  const edges = layoutEdges(graph, tuning, shared);
  const blockCount = edges.farBlockStart.length - 1;
  const float64 = (length: number): Float64Array => (shared ? new Float64Array(new SharedArrayBuffer(length * 8)) : new Float64Array(length));
  const v: RankVectors = {
    scores: [float64(n), float64(n)],
    contributions: [float64(n), float64(n)],
    share: float64(n),
    blockChange: float64(blockCount),
    blockDangling: float64(blockCount),
  };

  // Per-node share factor alpha/outDegree, 0 for dangling nodes (their mass is spread separately).
  const { share } = v;
  for (let u = 0; u < n; u++) {
    const d = offsets[u + 1]! - offsets[u]!;
    if (d > 0) share[u] = alpha / d;
  }
  const [x0, c0] = [v.scores[0], v.contributions[0]];
  x0.fill(1 / n);
  // share is 0 exactly for dangling pages (or for all when alpha = 0, where the dangling sum is multiplied by 0).
  let danglingSum = 0;
  for (let u = 0; u < n; u++) {
    c0[u] = share[u]! * x0[u]!;
    if (share[u] === 0) danglingSum += x0[u]!;
  }

  const helper = shared ? RankHelper.start(edges, v) : null;
  try {
    let change = Infinity;
    for (let iter = 1; iter <= maxIterations; iter++) {
      const base = (alpha * danglingSum + (1 - alpha)) / n;
      if (helper?.alive === true) helper.iterate(iter, base, (b) => rankBlock(edges, b, iter, base, v));
      else for (let b = 0; b < blockCount; b++) rankBlock(edges, b, iter, base, v);
      change = 0;
      danglingSum = 0;
      for (let b = 0; b < blockCount; b++) {
        change += v.blockChange[b]!;
        danglingSum += v.blockDangling[b]!;
      }
      if (change < tolerance) {
        const scores = written(v.scores, iter);
        normalize(scores);
        return { scores, iterations: iter, lastChange: change, threads: helper?.alive === true ? 2 : 1 };
      }
    }
    throw new PageRankConvergenceError(maxIterations, change, tolerance);
  } finally {
    helper?.stop();
  }
}

/** Remove floating-point drift so the scores sum to 1. */
function normalize(x: Float64Array): void {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i]!;
  for (let i = 0; i < x.length; i++) x[i]! /= sum;
}

/** Node ids of the `k` highest scores, best first; ties broken by lower id for a stable order. */
export function topNodes(scores: Float64Array, k: number): number[] {
  const n = scores.length;
  if (k <= 0) return [];
  const byScore = (a: number, b: number): number => scores[b]! - scores[a]! || a - b;
  if (k >= n) return Array.from({ length: n }, (_, i) => i).sort(byScore);
  if (k > 64) {
    // Many wanted (a GEXF of 10,000 pages): the k-th score from a native typed
    // sort, then only the nodes at or above it go through the comparator.
    const threshold = scores.slice().sort()[n - k]!;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) if (scores[i]! >= threshold) ids.push(i);
    return ids.sort(byScore).slice(0, k);
  }
  // Few wanted: keep a sorted window of the best k.
  const best: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (best.length === k && s <= scores[best[k - 1]!]!) continue;
    let pos = best.length;
    while (pos > 0 && scores[best[pos - 1]!]! < s) pos--;
    best.splice(pos, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}
