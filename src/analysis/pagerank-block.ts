/**
 * One target block of one PageRank power iteration (pagerank.ts): the
 * block's scores start at `base`, take the far edges into the block, then
 * each score adds its near in-edges and is settled (L1 change, next
 * contribution, dangling mass) while it is at hand. The block stays in L2
 * from first write to last read (edge-layout.ts). A block writes only its
 * own scores and reads only the previous iteration's contributions, so
 * blocks may run on different threads; each leaves its sums in its own
 * slot, added up in block order, so results do not depend on who ran what.
 */
import type { EdgeLayout } from './edge-layout.js';

/** The arrays of an iteration, by parity: iteration i reads slot (i − 1) % 2 and writes slot i % 2. */
export interface RankVectors {
  scores: [Float64Array, Float64Array];
  /** What node u sends along each out-edge: share[u] · score[u]. */
  contributions: [Float64Array, Float64Array];
  /** alpha / out-degree, 0 for dangling nodes. */
  share: Float64Array;
  /** Per block: the L1 change of its scores, and the rank its dangling nodes hold. */
  blockChange: Float64Array;
  blockDangling: Float64Array;
}

/** The array of a pair that iteration `iteration` writes (its scores are in `written(v.scores, i)` once it is done). */
export function written<T>(pair: [T, T], iteration: number): T {
  return (iteration & 1) === 1 ? pair[1] : pair[0];
}

export function rankBlock(edges: EdgeLayout, b: number, iteration: number, base: number, v: RankVectors): void {
  const [read, write] = [written(v.scores, iteration - 1), written(v.scores, iteration)];
  const [sent, toSend] = [written(v.contributions, iteration - 1), written(v.contributions, iteration)];
  blockPass(edges, b, base, sent, read, write, v.share, toSend, v.blockChange, v.blockDangling);
}

/** A separate function with plain arguments, so V8 optimizes the loops whole. */
function blockPass(
  edges: EdgeLayout,
  b: number,
  base: number,
  contribution: Float64Array,
  x: Float64Array,
  next: Float64Array,
  share: Float64Array,
  nextContribution: Float64Array,
  blockChange: Float64Array,
  blockDangling: Float64Array,
): void {
  const { nodeCount, blockNodes, farBlockStart, farSources, farTargets, nearOffsets, nearSources } = edges;
  const lo = b * blockNodes;
  const hi = Math.min(nodeCount, lo + blockNodes);
  next.fill(base, lo, hi);
  const farEnd = farBlockStart[b + 1]!;
  for (let k = farBlockStart[b]!; k < farEnd; k++) next[farTargets[k]!]! += contribution[farSources[k]!]!;
  let change = 0;
  let danglingSum = 0;
  let j = nearOffsets[lo]!;
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
  blockChange[b] = change;
  blockDangling[b] = danglingSum;
}
