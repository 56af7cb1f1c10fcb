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

/** Rows up to this long are sorted by insertion (no call, no subarray); longer ones by the typed-array sort. */
const INSERTION_SORT_MAX = 16;

/**
 * Build the CSR of `nodeCount` nodes from the first `edgeCount` pairs,
 * collapsing duplicate edges and, unless `keepSelfLoops`, dropping u→u.
 * Besides the result it allocates nothing: the row cursors of the counting
 * sort live in `offsets` itself, and `targets` is a view of the scatter
 * array (duplicates leave a few unused slots at its end rather than costing
 * a second copy of every edge).
 */
export function buildCsr(
  nodeCount: number,
  src: Int32Array,
  dst: Int32Array,
  edgeCount: number,
  keepSelfLoops: boolean,
): Csr {
  const offsets = new Uint32Array(nodeCount + 1);
  for (let i = 0; i < edgeCount; i++) offsets[src[i]! + 1]!++;
  for (let u = 0; u < nodeCount; u++) offsets[u + 1]! += offsets[u]!;
  // Scatter: offsets[u] walks row u from its start to its end, which is where row u + 1 starts.
  const raw = new Int32Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) raw[offsets[src[i]!]!++] = dst[i]!;

  // Sort each row, then compact in place, skipping repeats and self-loops;
  // offsets[u] (now the end of row u) becomes the start of the compacted row.
  let out = 0;
  let start = 0;
  for (let u = 0; u < nodeCount; u++) {
    const end = offsets[u]!;
    offsets[u] = out;
    if (end - start > INSERTION_SORT_MAX) raw.subarray(start, end).sort();
    else insertionSort(raw, start, end);
    let prev = -1;
    for (let j = start; j < end; j++) {
      const v = raw[j]!;
      if (v === prev || (v === u && !keepSelfLoops)) continue;
      raw[out++] = v;
      prev = v;
    }
    start = end;
  }
  offsets[nodeCount] = out;
  return { nodeCount, offsets, targets: raw.subarray(0, out) };
}

function insertionSort(a: Int32Array, start: number, end: number): void {
  for (let j = start + 1; j < end; j++) {
    const v = a[j]!;
    let k = j - 1;
    while (k >= start && a[k]! > v) {
      a[k + 1] = a[k]!;
      k--;
    }
    a[k + 1] = v;
  }
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
