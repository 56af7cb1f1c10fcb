/**
 * The host metrics of `analyze --hosts` (graphology-metrics underneath):
 * weighted PageRank to a true L1 change below 1e-9 — held against networkx
 * (values computed separately and pasted), a hand-solved graph and a plain
 * power iteration on random weighted graphs —, HITS against networkx and a
 * plain iteration, weighted degrees, the order of the rows, and the edgeless
 * graph.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DirectedGraph } from 'graphology';
import type { HostEdgeAttributes, HostGraph, HostNodeAttributes } from '../../src/analysis/host-graph.js';
import { hostMetrics, pagerankIterationBound, type HostRow } from '../../src/analysis/host-metrics.js';
import { prng } from './synthetic.js';
import { referenceHits, referencePagerank, type WeightedEdge } from './reference-metrics.js';

function hostGraph(nodes: string[], edges: WeightedEdge[]): HostGraph {
  const g: HostGraph = new DirectedGraph<HostNodeAttributes, HostEdgeAttributes>();
  for (const n of nodes) g.addNode(n, { pages: n.length });
  edges.forEach((e, i) => g.addDirectedEdgeWithKey(String(i), e.source, e.target, { weight: e.weight }));
  return g;
}

function byHost(rows: HostRow[]): Map<string, HostRow> {
  return new Map(rows.map((r) => [r.host, r]));
}

const SMALL_NODES = ['h0', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const SMALL_EDGES: WeightedEdge[] = (
  [['h0', 'h1', 5], ['h0', 'h2', 1], ['h1', 'h2', 2], ['h2', 'h0', 7], ['h3', 'h0', 1], ['h3', 'h2', 4], ['h4', 'h3', 2], ['h1', 'h4', 1], ['h2', 'h5', 3]] as const
).map(([source, target, weight]) => ({ source, target, weight }));

/** A random weighted host graph: some hosts dangling, some isolated. */
function randomHosts(count: number, edgeCount: number, seed: number): { nodes: string[]; edges: WeightedEdge[] } {
  const rand = prng(seed);
  const nodes = Array.from({ length: count }, (_, i) => `host${i}.test`);
  const seen = new Set<string>();
  const edges: WeightedEdge[] = [];
  while (edges.length < edgeCount) {
    const s = Math.floor(rand() * count * 0.8); // the last fifth never links out
    const t = Math.floor(count * rand() ** 2);
    if (s === t || seen.has(`${s} ${t}`)) continue;
    seen.add(`${s} ${t}`);
    edges.push({ source: nodes[s]!, target: nodes[t]!, weight: 1 + Math.floor(rand() * 50) });
  }
  return { nodes, edges };
}

describe('hostMetrics', () => {
  it('agrees with networkx 3.6 weighted pagerank and hits (computed separately) within 1e-8', () => {
    // networkx.pagerank(G, alpha=0.85, weight='weight', tol=1e-15) and networkx.hits(G, tol=1e-15).
    const networkx = {
      pagerank: { h0: 0.2093339586498, h1: 0.186948370955, h2: 0.2535261651524, h3: 0.116563177291, h4: 0.0916388553486, h5: 0.1033193223585, h6: 0.0386701502447 },
      hub: { h0: 0.0183494344975, h1: 0.021568089466, h2: 0.8185172546282, h3: 0.1415652214083, h4: 0, h5: 0, h6: 0 },
      authority: { h0: 0.6474763789405, h1: 0.0101179092234, h2: 0.0692280963067, h3: 0, h4: 0.0023785362036, h5: 0.2707990793258, h6: 0 },
    };
    const rows = byHost(hostMetrics(hostGraph(SMALL_NODES, SMALL_EDGES), { alpha: 0.85 }).rows);
    for (const h of SMALL_NODES) {
      const row = rows.get(h)!;
      for (const metric of ['pagerank', 'hub', 'authority'] as const) {
        const want = networkx[metric][h as keyof typeof networkx.pagerank];
        assert.ok(Math.abs(row[metric] - want) < 1e-8, `${h} ${metric}: ${row[metric]} vs ${want}`);
      }
    }
  });

  it('matches the hand-solved two-host graph whatever the weight', () => {
    // a → b, b dangling: x_a = 1/(2+α), x_b = (1+α)/(2+α).
    for (const [alpha, weight] of [[0.85, 1], [0.85, 40], [0.5, 3]] as const) {
      const rows = byHost(hostMetrics(hostGraph(['a', 'b'], [{ source: 'a', target: 'b', weight }]), { alpha }).rows);
      assert.ok(Math.abs(rows.get('a')!.pagerank - 1 / (2 + alpha)) < 1e-9);
      assert.ok(Math.abs(rows.get('b')!.pagerank - (1 + alpha) / (2 + alpha)) < 1e-9);
      // HITS: a is all hub, b all authority.
      assert.deepEqual([rows.get('a')!.hub, rows.get('b')!.authority, rows.get('a')!.authority, rows.get('b')!.hub], [1, 1, 0, 0]);
      assert.deepEqual([rows.get('a')!.outDegree, rows.get('b')!.inDegree], [weight, weight]);
    }
  });

  for (const [count, edgeCount, seed] of [[300, 2000, 1], [800, 4000, 2]] as const) {
    it(`stops at a true L1 change below 1e-9, not N × that: ${count} hosts, ${edgeCount} weighted edges`, () => {
      const { nodes, edges } = randomHosts(count, edgeCount, seed);
      const result = hostMetrics(hostGraph(nodes, edges), { alpha: 0.85 });
      const want = referencePagerank(nodes, edges, 0.85, 400);
      // L1 change < 1e-9 puts the iterate within 1e-9 · α/(1−α) ≈ 5.7e-9 of the fixed point, in L1;
      // stopping at N × 1e-9 instead would leave it ~N times farther.
      let l1 = 0;
      for (const row of result.rows) l1 += Math.abs(row.pagerank - want.get(row.host)!);
      assert.ok(l1 < 6e-9, `L1 distance ${l1}`);
      const hits = referenceHits(nodes, edges, 2000);
      for (const row of result.rows) {
        assert.ok(Math.abs(row.hub - hits.hubs.get(row.host)!) < 1e-8, `${row.host} hub`);
        assert.ok(Math.abs(row.authority - hits.authorities.get(row.host)!) < 1e-8, `${row.host} authority`);
      }
    });
  }

  it('gives weighted degrees and pages, rows by PageRank descending, ties by host name', () => {
    const nodes = ['c', 'b', 'a', 'hub'];
    // a, b, c are symmetric (each links to hub with weight 2), hub links back to each with 3, 1, 1.
    const edges = ['a', 'b', 'c'].flatMap((x, i) => [
      { source: x, target: 'hub', weight: 2 },
      { source: 'hub', target: x, weight: i === 0 ? 3 : 1 },
    ]);
    const result = hostMetrics(hostGraph(nodes, edges), { alpha: 0.85 });
    assert.deepEqual(result.rows.map((r) => r.host), ['hub', 'a', 'b', 'c']);
    assert.equal(result.rows[2]!.pagerank, result.rows[3]!.pagerank);
    const rows = byHost(result.rows);
    assert.deepEqual([rows.get('hub')!.inDegree, rows.get('hub')!.outDegree, rows.get('a')!.inDegree, rows.get('b')!.outDegree], [6, 5, 3, 2]);
    assert.equal(rows.get('hub')!.pages, 3);
    assert.equal(result.edges, 6);
    const total = (k: 'pagerank' | 'hub' | 'authority'): number => result.rows.reduce((s, r) => s + r[k], 0);
    for (const k of ['pagerank', 'hub', 'authority'] as const) assert.ok(Math.abs(total(k) - 1) < 1e-9, k);
  });

  it('handles the empty graph and a graph without edges (uniform PageRank, no hubs or authorities)', () => {
    assert.deepEqual(hostMetrics(hostGraph([], []), { alpha: 0.85 }).rows, []);
    const rows = hostMetrics(hostGraph(['x', 'y', 'z'], []), { alpha: 0.85 }).rows;
    assert.deepEqual(rows.map((r) => r.host), ['x', 'y', 'z']);
    for (const r of rows) {
      assert.ok(Math.abs(r.pagerank - 1 / 3) < 1e-12);
      assert.deepEqual([r.hub, r.authority, r.inDegree, r.outDegree], [0, 0, 0, 0]);
    }
  });

  it('falls back to a looser HITS tolerance when two parts of the graph are nearly alike, and says so', () => {
    // Top eigenvalues of AAᵀ 2000² and 1999²: c's hub shrinks by (1999/2000)² a round, so the change
    // falls below 1e-6 after ~7,000 rounds but below 1e-9 only after ~14,000, past the cap.
    const edges = [{ source: 'a', target: 'b', weight: 2000 }, { source: 'c', target: 'd', weight: 1999 }];
    const slow = hostMetrics(hostGraph(['a', 'b', 'c', 'd'], edges), { alpha: 0.85 });
    assert.equal(slow.hitsTolerance, 1e-6);
    const rows = byHost(slow.rows);
    assert.ok(rows.get('a')!.hub > 0.99 && rows.get('b')!.authority > 0.99, `${rows.get('a')!.hub}`);
    assert.equal(hostMetrics(hostGraph(SMALL_NODES, SMALL_EDGES), { alpha: 0.85 }).hitsTolerance, 1e-9);
  });

  it('allows PageRank enough iterations for any graph', () => {
    // The L1 change shrinks by alpha per iteration from at most 2.
    for (const alpha of [0.5, 0.85, 0.99]) {
      const bound = pagerankIterationBound(alpha, 1e-9);
      assert.ok(2 * alpha ** (bound - 10) < 1e-9 && bound >= 100, `alpha ${alpha}: ${bound}`);
    }
    assert.equal(pagerankIterationBound(0, 1e-9), 100);
  });
});
