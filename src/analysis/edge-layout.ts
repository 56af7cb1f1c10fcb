/**
 * The edge order PageRank's iteration runs in, chosen so that memory access
 * stays local. On a 1M-node graph a score array is 8 MB: a push along CSR
 * rows writes it at random, and on a VM with 4 KiB pages nearly every such
 * write is a TLB and cache miss (25–55 ns), so one pass over 10M edges took
 * ~280 ms although it does a handful of instructions per edge.
 *
 * The edges are split in two, and both parts are cut by target block of
 * `blockNodes` ids (1 MiB of scores by default, about one L2), so pagerank.ts
 * finishes one block of scores before it starts the next:
 * - far edges (target `nearWindowNodes` ids or more from the source) as
 *   (source, target) pairs, grouped by target block, sources ascending: the
 *   block's scores stay in L2 while the contributions are read in ascending
 *   order, which the prefetcher follows.
 * - near edges as in-edge rows (sources of each target, ascending), pulled:
 *   each score is summed in a register from contributions in a window around
 *   it, then written once. Pushing them along out-edge rows instead was 2.5×
 *   slower: reading back a score the previous row just wrote stalls. Crawl
 *   order gives pages of one host neighbouring ids, so most links of a web
 *   graph are near (69% of the synthetic bench graph).
 *
 * Relabelling nodes by in-degree (hot scores together) was measured too and
 * was slower than no relabelling (a pull pass 290 ms vs 217 ms): it scatters
 * each host's pages over the id space and loses the crawl-order locality.
 */
import type { Csr } from './csr.js';

export interface EdgeLayoutOptions {
  /** An edge u→v with |v − u| < this is near; default 2048 (a 32 KiB window of contributions). Positive. */
  nearWindowNodes: number;
  /** Target block in nodes; default 131072 (1 MiB of float64 scores, about one L2; 64Ki, 256Ki were slower). Positive. */
  blockNodes: number;
}

export const EDGE_LAYOUT_DEFAULTS: Readonly<EdgeLayoutOptions> = Object.freeze({
  nearWindowNodes: 2048,
  blockNodes: 131072,
});

export interface EdgeLayout {
  nodeCount: number;
  /** Near edges by target: the sources of v are `nearSources[nearOffsets[v] .. nearOffsets[v+1])`, ascending. */
  nearOffsets: Uint32Array;
  nearSources: Int32Array;
  blockNodes: number;
  /** Far edges into targets [b·blockNodes, (b+1)·blockNodes) are k in `farBlockStart[b] .. farBlockStart[b+1]`. */
  farBlockStart: Uint32Array;
  /** Far edge k is farSources[k] → farTargets[k]; ordered by (target block, source, target). */
  farSources: Int32Array;
  farTargets: Int32Array;
}

/** `shared`: the arrays live in SharedArrayBuffers, for iterations run on more than one thread. */
export function layoutEdges(graph: Csr, options: Partial<EdgeLayoutOptions> = {}, shared = false): EdgeLayout {
  const { nearWindowNodes, blockNodes } = { ...EDGE_LAYOUT_DEFAULTS, ...options };
  const int32 = (length: number): Int32Array => (shared ? new Int32Array(new SharedArrayBuffer(length * 4)) : new Int32Array(length));
  const uint32 = (length: number): Uint32Array => (shared ? new Uint32Array(new SharedArrayBuffer(length * 4)) : new Uint32Array(length));
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  const blockCount = Math.max(1, Math.ceil(n / blockNodes));

  // Count first so every array is allocated once at its final size.
  const nearOffsets = uint32(n + 1);
  const blockStart = uint32(blockCount + 1);
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1]!;
    for (let j = offsets[u]!; j < end; j++) {
      const v = targets[j]!;
      const d = v - u;
      if (d < nearWindowNodes && d > -nearWindowNodes) nearOffsets[v + 1]!++;
      else blockStart[Math.floor(v / blockNodes) + 1]!++;
    }
  }
  for (let v = 0; v < n; v++) nearOffsets[v + 1]! += nearOffsets[v]!;
  for (let b = 0; b < blockCount; b++) blockStart[b + 1]! += blockStart[b]!;

  // Rows are visited in ascending source order, so the sources of each
  // in-edge row and of each far block come out ascending without a sort (a
  // stable counting sort). The near cursors written are within the window.
  const nearSources = int32(nearOffsets[n]!);
  const nearCursor = nearOffsets.slice(0, n);
  const farCount = blockStart[blockCount]!;
  const farSources = int32(farCount);
  const farTargets = int32(farCount);
  const farCursor = blockStart.slice(0, blockCount);
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1]!;
    for (let j = offsets[u]!; j < end; j++) {
      const v = targets[j]!;
      const d = v - u;
      if (d < nearWindowNodes && d > -nearWindowNodes) {
        nearSources[nearCursor[v]!++] = u;
      } else {
        const at = farCursor[Math.floor(v / blockNodes)]!++;
        farSources[at] = u;
        farTargets[at] = v;
      }
    }
  }
  return { nodeCount: n, nearOffsets, nearSources, blockNodes, farBlockStart: blockStart, farSources, farTargets };
}
