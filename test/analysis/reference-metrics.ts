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

/** x' = alpha·(Wᵀx + d/N) + (1−alpha)/N, W row-normalized by out-weight; dangling mass d spread evenly. */
export function referencePagerank(nodes: readonly string[], edges: readonly WeightedEdge[], alpha: number, iterations = 2000): Map<string, number> {
  const n = nodes.length;
  const index = new Map(nodes.map((v, i) => [v, i]));
  const outWeight = new Float64Array(n);
  for (const e of edges) outWeight[index.get(e.source)!]! += e.weight;
  let x = new Float64Array(n).fill(1 / n);
  for (let it = 0; it < iterations; it++) {
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += x[i]!;
    const next = new Float64Array(n).fill((alpha * dangling + 1 - alpha) / n);
    for (const e of edges) {
      const s = index.get(e.source)!;
      next[index.get(e.target)!]! += (alpha * x[s]! * e.weight) / outWeight[s]!;
    }
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
  const index = new Map(nodes.map((v, i) => [v, i]));
  let h = new Float64Array(n).fill(1);
  let a = new Float64Array(n);
  for (let it = 0; it < iterations; it++) {
    a = new Float64Array(n);
    for (const e of edges) a[index.get(e.target)!]! += h[index.get(e.source)!]! * e.weight;
    const next = new Float64Array(n);
    for (const e of edges) next[index.get(e.source)!]! += a[index.get(e.target)!]! * e.weight;
    const scale = Math.max(...next);
    h = next.map((v) => v / scale);
  }
  const sumTo1 = (v: Float64Array): Map<string, number> => {
    const total = v.reduce((s, x) => s + x, 0);
    return new Map(nodes.map((name, i) => [name, v[i]! / total]));
  };
  return { hubs: sumTo1(h), authorities: sumTo1(a) };
}
