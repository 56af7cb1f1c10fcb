/**
 * Compressed sparse rows: the out-edges of node u are
 * `targets[offsets[u] .. offsets[u+1])`, sorted, without duplicates. Built by
 * a counting sort over an edge list held in typed arrays, so a graph of tens
 * of millions of edges costs ~4 bytes per edge plus 4 per node, not a JS
 * object per edge.
 */
export interface Csr {
  nodeCount: number;
  /** Length nodeCount + 1. */
  offsets: Uint32Array;
  targets: Int32Array;
}

/** A growable list of (source, target) integer pairs. */
export class EdgeList {
  src: Int32Array;
  dst: Int32Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.src = new Int32Array(initialCapacity);
    this.dst = new Int32Array(initialCapacity);
  }

  push(s: number, d: number): void {
    if (this.length === this.src.length) {
      const cap = this.src.length * 2;
      const ns = new Int32Array(cap);
      ns.set(this.src);
      const nd = new Int32Array(cap);
      nd.set(this.dst);
      this.src = ns;
      this.dst = nd;
    }
    this.src[this.length] = s;
    this.dst[this.length] = d;
    this.length++;
  }
}

/**
 * Build the CSR of `nodeCount` nodes from the first `edgeCount` pairs,
 * collapsing duplicate edges and, unless `keepSelfLoops`, dropping u→u.
 */
export function buildCsr(
  nodeCount: number,
  src: Int32Array,
  dst: Int32Array,
  edgeCount: number,
  keepSelfLoops: boolean,
): Csr {
  const counts = new Uint32Array(nodeCount + 1);
  for (let i = 0; i < edgeCount; i++) counts[src[i]! + 1]!++;
  for (let u = 0; u < nodeCount; u++) counts[u + 1]! += counts[u]!;
  const cursor = counts.slice(0, nodeCount);
  const raw = new Int32Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) raw[cursor[src[i]!]!++] = dst[i]!;

  // Sort each row, then compact in place, skipping repeats and self-loops.
  const offsets = new Uint32Array(nodeCount + 1);
  let out = 0;
  for (let u = 0; u < nodeCount; u++) {
    const start = counts[u]!;
    const end = counts[u + 1]!;
    offsets[u] = out;
    if (end - start > 1) raw.subarray(start, end).sort();
    let prev = -1;
    for (let j = start; j < end; j++) {
      const v = raw[j]!;
      if (v === prev || (v === u && !keepSelfLoops)) continue;
      raw[out++] = v;
      prev = v;
    }
  }
  offsets[nodeCount] = out;
  return { nodeCount, offsets, targets: raw.slice(0, out) };
}

/** In-degree of every node. */
export function inDegrees(csr: Csr): Int32Array {
  const deg = new Int32Array(csr.nodeCount);
  const t = csr.targets;
  for (let i = 0; i < t.length; i++) deg[t[i]!]!++;
  return deg;
}

/** Out-degree of every node. */
export function outDegrees(csr: Csr): Int32Array {
  const deg = new Int32Array(csr.nodeCount);
  for (let u = 0; u < csr.nodeCount; u++) deg[u] = csr.offsets[u + 1]! - csr.offsets[u]!;
  return deg;
}
