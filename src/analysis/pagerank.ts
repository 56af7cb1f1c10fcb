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
 * cache-friendly copy of the edges (edge-layout.ts). Every iterate is the
 * plain power-iteration iterate; only the order of the additions into one
 * score differs from a push along CSR rows, which moves results by rounding
 * (~1e-18), not by method. Gauss–Seidel or extrapolation would take fewer
 * iterations but stop at another point: L1 change < 1e-6 only bounds the
 * distance to the fixed point by ~alpha/(1−alpha) · 1e-6 ≈ 6e-6, so two
 * methods may legitimately differ far more than the 1e-9 our results are
 * held to; they are not used.
 */
import type { Csr } from './csr.js';
import { layoutEdges, type EdgeLayout, type EdgeLayoutOptions } from './edge-layout.js';
import { PageRankConvergenceError } from './errors.js';

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
}

/** `layout` tunes the edge order for speed only (tests use small blocks); results do not depend on it. */
export function pagerank(
  graph: Csr,
  options: Partial<PageRankOptions> = {},
  layout: Partial<EdgeLayoutOptions> = {},
): PageRankResult {
  const { alpha, tolerance, maxIterations } = { ...PAGERANK_DEFAULTS, ...options };
  const n = graph.nodeCount;
  if (n === 0) return { scores: new Float64Array(0), iterations: 0, lastChange: 0 };
  const { offsets } = graph;
  const edges = layoutEdges(graph, layout);

  // Per-node share factor alpha/outDegree, 0 for dangling nodes (their mass is spread separately).
  const share = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    const d = offsets[u + 1]! - offsets[u]!;
    if (d > 0) share[u] = alpha / d;
  }

  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  // What node u sends along each out-edge: share[u] · x[u]. Two arrays, because
  // an iteration still reads its own (near sources a window ahead) while it writes the next's.
  let contribution = new Float64Array(n);
  let nextContribution = new Float64Array(n);
  // share is 0 exactly for dangling pages (or for all when alpha = 0, where the dangling sum is multiplied by 0).
  const pass: IterationTotals = { change: Infinity, danglingSum: 0 };
  for (let u = 0; u < n; u++) {
    contribution[u] = share[u]! * x[u]!;
    if (share[u] === 0) pass.danglingSum += x[u]!;
  }
  for (let iter = 1; iter <= maxIterations; iter++) {
    const base = (alpha * pass.danglingSum + (1 - alpha)) / n;
    iterate(edges, base, contribution, x, next, share, nextContribution, pass);
    [x, next] = [next, x];
    [contribution, nextContribution] = [nextContribution, contribution];
    if (pass.change < tolerance) {
      normalize(x);
      return { scores: x, iterations: iter, lastChange: pass.change };
    }
  }
  throw new PageRankConvergenceError(maxIterations, pass.change, tolerance);
}

interface IterationTotals {
  /** ‖next − x‖₁ of the iteration. */
  change: number;
  /** Rank held by dangling pages in `next`, for the following iteration. */
  danglingSum: number;
}

/**
 * One power iteration, a target block at a time: the block's scores start at
 * `base`, take the far edges into the block, then each score adds its near
 * in-edges and is settled (L1 change, next contribution, dangling mass)
 * while it is at hand. The block stays in L2 from first write to last read.
 * A separate function so V8 optimizes it whole rather than re-entering one
 * long function's loops through on-stack replacement.
 */
function iterate(
  edges: EdgeLayout,
  base: number,
  contribution: Float64Array,
  x: Float64Array,
  next: Float64Array,
  share: Float64Array,
  nextContribution: Float64Array,
  out: IterationTotals,
): void {
  const { nodeCount, blockNodes, farBlockStart, farSources, farTargets, nearOffsets, nearSources } = edges;
  let change = 0;
  let danglingSum = 0;
  let j = 0;
  for (let b = 0; b + 1 < farBlockStart.length; b++) {
    const lo = b * blockNodes;
    const hi = Math.min(nodeCount, lo + blockNodes);
    next.fill(base, lo, hi);
    const farEnd = farBlockStart[b + 1]!;
    for (let k = farBlockStart[b]!; k < farEnd; k++) next[farTargets[k]!]! += contribution[farSources[k]!]!;
    for (let v = lo; v < hi; v++) {
      let s = next[v]!;
      const end = nearOffsets[v + 1]!;
      for (; j < end; j++) s += contribution[nearSources[j]!]!;
      next[v] = s;
      const d = s - x[v]!;
      change += d < 0 ? -d : d;
      const f = share[v]!;
      nextContribution[v] = f * s;
      // Adding 0 leaves the sum unchanged: this equals summing over dangling pages only.
      danglingSum += f === 0 ? s : 0;
    }
  }
  out.change = change;
  out.danglingSum = danglingSum;
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
