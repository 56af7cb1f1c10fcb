/**
 * Textbook weighted PageRank and HITS over an edge list, written out plainly
 * for the tests to hold graphology-metrics (and our use of it) against, run
 * far past any tolerance the code under test uses.
 */
export interface WeightedEdge {
  source: string;
  target: string;
  weight: number;
}

/** Edges as index arrays, for the loops below. */
function indexed(nodes: readonly string[], edges: readonly WeightedEdge[]): { s: Int32Array; t: Int32Array; w: Float64Array } {
  const index = new Map(nodes.map((v, i) => [v, i]));
  return {
    s: Int32Array.from(edges, (e) => index.get(e.source)!),
    t: Int32Array.from(edges, (e) => index.get(e.target)!),
    w: Float64Array.from(edges, (e) => e.weight),
  };
}

/** x' = alpha·(Wᵀx + d/N) + (1−alpha)/N, W row-normalized by out-weight; dangling mass d spread evenly. */
export function referencePagerank(nodes: readonly string[], edges: readonly WeightedEdge[], alpha: number, iterations = 2000): Map<string, number> {
  const n = nodes.length;
  const { s, t, w } = indexed(nodes, edges);
  const outWeight = new Float64Array(n);
  for (let k = 0; k < s.length; k++) outWeight[s[k]!]! += w[k]!;
  let x = new Float64Array(n).fill(1 / n);
  for (let it = 0; it < iterations; it++) {
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += x[i]!;
    const next = new Float64Array(n).fill((alpha * dangling + 1 - alpha) / n);
    for (let k = 0; k < s.length; k++) next[t[k]!]! += (alpha * x[s[k]!]! * w[k]!) / outWeight[s[k]!]!;
    x = next;
  }
  return new Map(nodes.map((v, i) => [v, x[i]!]));
}

/** HITS: a = Aᵀh, h = A·a with edge weights, rescaled each round; both returned summing to 1. */
export function referenceHits(
  nodes: readonly string[],
  edges: readonly WeightedEdge[],
  iterations = 5000,
): { hubs: Map<string, number>; authorities: Map<string, number> } {
  const n = nodes.length;
  const { s, t, w } = indexed(nodes, edges);
  let h = new Float64Array(n).fill(1);
  let a = new Float64Array(n);
  for (let it = 0; it < iterations; it++) {
    a = new Float64Array(n);
    for (let k = 0; k < s.length; k++) a[t[k]!]! += h[s[k]!]! * w[k]!;
    const next = new Float64Array(n);
    for (let k = 0; k < s.length; k++) next[s[k]!]! += a[t[k]!]! * w[k]!;
    const scale = next.reduce((m, v) => Math.max(m, v), 0);
    h = next.map((v) => v / scale);
  }
  const sumTo1 = (v: Float64Array): Map<string, number> => {
    const total = v.reduce((sum, x) => sum + x, 0);
    return new Map(nodes.map((name, i) => [name, v[i]! / total]));
  };
  return { hubs: sumTo1(h), authorities: sumTo1(a) };
}
