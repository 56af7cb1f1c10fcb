/**
 * PageRank against hand-computed values, networkx's values (computed
 * independently and pasted below), and graphology-metrics on random
 * graphs of a few thousand nodes, run to the same true-L1 stopping rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import graphology from 'graphology';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { buildCsr, type Csr } from '../../src/analysis/csr.js';
import { pagerank, topNodes } from '../../src/analysis/pagerank.js';
import { PageRankConvergenceError } from '../../src/analysis/errors.js';
import { powerLawGraph, prng } from './synthetic.js';

const graphologyPagerank = pagerankModule as unknown as (
  graph: unknown,
  options: { alpha: number; tolerance: number; maxIterations: number; getEdgeWeight: null },
) => Record<string, number>;

function csrOf(nodeCount: number, edges: [number, number][], keepSelfLoops = false): Csr {
  return buildCsr(
    nodeCount,
    Int32Array.from(edges.map((e) => e[0])),
    Int32Array.from(edges.map((e) => e[1])),
    edges.length,
    keepSelfLoops,
  );
}

function sum(x: Float64Array): number {
  return x.reduce((a, b) => a + b, 0);
}

/** Reference: x' = alpha·(Mᵀx + d/N) + (1−alpha)/N pushed along CSR rows, stopped at true L1 < tol. */
function plainPowerIteration(g: Csr, alpha: number, tol: number): { scores: Float64Array; iterations: number } {
  const n = g.nodeCount;
  let x = new Float64Array(n).fill(1 / n);
  for (let iter = 1; ; iter++) {
    let dangling = 0;
    for (let u = 0; u < n; u++) if (g.offsets[u + 1] === g.offsets[u]) dangling += x[u]!;
    const next = new Float64Array(n).fill((alpha * dangling + 1 - alpha) / n);
    for (let u = 0; u < n; u++) {
      const deg = g.offsets[u + 1]! - g.offsets[u]!;
      for (let j = g.offsets[u]!; j < g.offsets[u + 1]!; j++) next[g.targets[j]!]! += (alpha / deg) * x[u]!;
    }
    let change = 0;
    for (let u = 0; u < n; u++) change += Math.abs(next[u]! - x[u]!);
    x = next;
    if (change < tol) {
      const total = sum(x);
      return { scores: x.map((v) => v / total), iterations: iter };
    }
  }
}

describe('pagerank', () => {
  it('gives a directed cycle equal scores', () => {
    const r = pagerank(csrOf(3, [[0, 1], [1, 2], [2, 0]]));
    for (const s of r.scores) assert.ok(Math.abs(s - 1 / 3) < 1e-12);
  });

  it('matches the hand-computed solution of a graph with a dangling page', () => {
    // 0 → 1, 1 dangling. With alpha a and N = 2, the fixed point is
    //   x0 = (1-a)/2 + a·x1/2,  x1 = (1-a)/2 + a·x0 + a·x1/2,  x0 + x1 = 1
    // → x0 = 1/(2+a), x1 = (1+a)/(2+a).
    const a = 0.85;
    const r = pagerank(csrOf(2, [[0, 1]]), { alpha: a, tolerance: 1e-12 });
    assert.ok(Math.abs(r.scores[0]! - 1 / (2 + a)) < 1e-10);
    assert.ok(Math.abs(r.scores[1]! - (1 + a) / (2 + a)) < 1e-10);
  });

  it('matches the hand-computed star: the hub of n−1 leaves', () => {
    // Leaves 1..3 → hub 0, hub dangling. By symmetry leaves share l, hub h = 1 − 3l, and
    //   l = (1-a)/4 + a·h/4  →  l = (1-a+a)/(4+3a) = 1/(4+3a).
    const a = 0.85;
    const r = pagerank(csrOf(4, [[1, 0], [2, 0], [3, 0]]), { alpha: a, tolerance: 1e-12 });
    const l = 1 / (4 + 3 * a);
    assert.ok(Math.abs(r.scores[1]! - l) < 1e-10);
    assert.ok(Math.abs(r.scores[0]! - (1 - 3 * l)) < 1e-10);
    assert.deepEqual(topNodes(r.scores, 2), [0, 1]);
  });

  it('agrees with networkx 3.6 pagerank (alpha 0.85) within 1e-6', () => {
    // powerLawGraph(24, 70, seed 5) collapsed; networkx.pagerank(G, tol=1e-14) computed separately.
    const edges: [number, number][] = [[0,23],[1,6],[2,0],[2,3],[2,6],[2,7],[2,8],[2,13],[2,14],[2,15],[2,18],[3,0],[3,12],[3,19],[3,20],[4,17],[5,0],[5,2],[5,6],[8,2],[8,4],[8,6],[8,14],[8,21],[9,0],[9,3],[9,20],[10,0],[10,6],[10,15],[11,1],[11,8],[11,9],[11,13],[12,2],[13,0],[13,22],[13,23],[14,19],[16,1],[16,4],[16,6],[16,10],[16,14],[17,0],[17,7],[17,10],[18,5],[18,8],[19,1],[19,6],[20,14],[22,0],[22,1],[22,3],[22,6],[23,9],[23,14]];
    const networkx = [0.0710258744418, 0.063820289363, 0.0422259067398, 0.0358902431083, 0.0205839227813, 0.0209961224465, 0.1368447709975, 0.0263276836246, 0.0278623770739, 0.0502953920789, 0.0246422831807, 0.0135447168194, 0.0211713934799, 0.0204109714467, 0.0885528394035, 0.0245146993572, 0.0135447168194, 0.0310410511835, 0.0175327191226, 0.0964413069729, 0.035421754569, 0.018281320922, 0.019327825396, 0.0796998186715];
    const g = powerLawGraph(24, 70, 5);
    const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
    assert.deepEqual(csrOf(24, edges).targets, csr.targets, 'generator changed: recompute the networkx values');
    const r = pagerank(csr, { tolerance: 1e-10 });
    networkx.forEach((want, i) => assert.ok(Math.abs(r.scores[i]! - want) < 1e-6, `node ${i}: ${r.scores[i]} vs ${want}`));
  });

  for (const [nodes, edges, seed] of [[3000, 15000, 1], [5000, 40000, 2]] as const) {
    it(`agrees with graphology-metrics within 1e-6 on a random graph of ${nodes} nodes / ${edges} edges`, () => {
      const g = powerLawGraph(nodes, edges, seed);
      const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
      const tolerance = 1e-9;
      const ours = pagerank(csr, { tolerance });
      const graph = new graphology.DirectedGraph();
      for (let u = 0; u < nodes; u++) graph.addNode(u);
      for (let u = 0; u < nodes; u++) {
        for (let j = csr.offsets[u]!; j < csr.offsets[u + 1]!; j++) graph.addEdge(u, csr.targets[j]!);
      }
      // graphology stops at L1 < N × tolerance: pass tolerance / N for the same rule.
      const theirs = graphologyPagerank(graph, { alpha: 0.85, tolerance: tolerance / nodes, maxIterations: 200, getEdgeWeight: null });
      const ref = new Float64Array(nodes);
      for (let u = 0; u < nodes; u++) {
        ref[u] = theirs[String(u)]!;
        assert.ok(Math.abs(ours.scores[u]! - ref[u]!) < 1e-6, `node ${u}`);
      }
      assert.deepEqual(topNodes(ours.scores, 10), topNodes(ref, 10));
      assert.ok(Math.abs(sum(ours.scores) - 1) < 1e-12);
    });
  }

  it('gives the same iterates whatever the edge layout (near/far split, block size)', () => {
    // The iteration runs over a reordered copy of the edges: an edge lost or
    // counted twice there would still converge, to wrong scores. Compare with
    // the textbook push along CSR rows, written out here.
    const g = powerLawGraph(4000, 30000, 6);
    const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
    const want = plainPowerIteration(csr, 0.85, 1e-10);
    for (const layout of [{}, { nearWindowNodes: 1, blockNodes: 97 }, { nearWindowNodes: 4000 }, { nearWindowNodes: 40, blockNodes: 256 }]) {
      const r = pagerank(csr, { tolerance: 1e-10 }, layout);
      assert.equal(r.iterations, want.iterations, JSON.stringify(layout));
      for (let u = 0; u < csr.nodeCount; u++) {
        assert.ok(Math.abs(r.scores[u]! - want.scores[u]!) < 1e-15, `${JSON.stringify(layout)} node ${u}`);
      }
    }
  });

  it('gives the same scores bit for bit on two threads (compiled: a helper thread really runs)', () => {
    const g = powerLawGraph(20000, 150000, 8);
    const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
    const tuning = { blockNodes: 1024, minEdgesForThreads: 0 };
    const one = pagerank(csr, { tolerance: 1e-10 }, { ...tuning, threads: 1 });
    const two = pagerank(csr, { tolerance: 1e-10 }, { ...tuning, threads: 2 });
    assert.equal(two.threads, import.meta.url.endsWith('.js') ? 2 : 1, 'from TypeScript sources there is no worker to start');
    assert.equal(one.threads, 1);
    assert.equal(two.iterations, one.iterations);
    assert.deepEqual(two.scores, one.scores);
  });

  it('uses a true L1 tolerance, not N × tolerance', () => {
    const g = powerLawGraph(5000, 40000, 3);
    const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
    const r = pagerank(csr, { tolerance: 1e-6 });
    assert.ok(r.lastChange < 1e-6);
    // Stopping at N × 1e-6 = 5e-3 would take only a handful of iterations.
    assert.ok(r.iterations > 8, `iterations ${r.iterations}`);
  });

  it('throws a coded error instead of returning an unconverged result', () => {
    const g = powerLawGraph(2000, 10000, 4);
    const csr = buildCsr(g.nodeCount, g.src, g.dst, g.length, false);
    assert.throws(
      () => pagerank(csr, { maxIterations: 2 }),
      (err: unknown) => err instanceof PageRankConvergenceError && err.code === 'ARCHIVER_PAGERANK_NOT_CONVERGED',
    );
  });

  it('handles the empty graph and all-dangling graphs', () => {
    assert.equal(pagerank(csrOf(0, [])).scores.length, 0);
    const r = pagerank(csrOf(4, []));
    for (const s of r.scores) assert.ok(Math.abs(s - 0.25) < 1e-15);
  });

  it('orders the top N by score, ties by lower id', () => {
    assert.deepEqual(topNodes(Float64Array.from([0.1, 0.4, 0.1, 0.4]), 3), [1, 3, 0]);
    assert.deepEqual(topNodes(Float64Array.from([0.1, 0.4]), 0), []);
    assert.deepEqual(topNodes(Float64Array.from([0.1, 0.4]), 5), [1, 0]);
  });

  it('gives the same top N for many (threshold path) as a full sort, ties included', () => {
    const rand = prng(9);
    // Scores from 50 distinct values: plenty of ties at any threshold.
    const scores = Float64Array.from({ length: 5000 }, () => Math.floor(rand() * 50) / 50);
    const full = topNodes(scores, scores.length);
    for (const k of [1, 64, 65, 100, 999, 4999]) assert.deepEqual(topNodes(scores, k), full.slice(0, k), `k = ${k}`);
  });
});
