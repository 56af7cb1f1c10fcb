/**
 * The host graph of `archiver analyze --hosts`, built from the page graph as
 * a graphology graph: a node per host (`host[:port]` as the page URLs write
 * it), an edge A→B whose `weight` is the number of page-graph edges from a
 * page on A to a page on B. Links within a host are left out: they say how a
 * site is organised, not which sites point at which.
 *
 * The page graph stays in typed arrays; only the much smaller host graph is
 * handed to graphology, whose metrics (host-metrics.ts) and GEXF writer
 * (gexf-export.ts) work on it.
 */
import { DirectedGraph } from 'graphology';
import type { Csr } from './csr.js';
import { hostOfHref } from '../url/hosts.js';

export interface HostNodeAttributes {
  /** Pages (page-graph nodes) on this host. */
  pages: number;
}

export interface HostEdgeAttributes {
  /** Page-graph edges from a page on the source host to a page on the target host. */
  weight: number;
}

export type HostGraph = DirectedGraph<HostNodeAttributes, HostEdgeAttributes>;

/** Build the host graph of a page graph: page u is `urls[u]`, its links the CSR row u. */
export function buildHostGraph(pages: Csr & { readonly urls: readonly string[] }): HostGraph {
  const { urls } = pages;
  const graph: HostGraph = new DirectedGraph<HostNodeAttributes, HostEdgeAttributes>();
  const hostIds = new Map<string, number>();
  const hostNames: string[] = [];
  const pageCounts: number[] = [];
  const hostOfPage = new Int32Array(pages.nodeCount);
  for (let u = 0; u < pages.nodeCount; u++) {
    const host = hostOfHref(urls[u]!);
    let id = hostIds.get(host);
    if (id === undefined) {
      id = hostNames.length;
      hostIds.set(host, id);
      hostNames.push(host);
      pageCounts.push(0);
    }
    hostOfPage[u] = id;
    pageCounts[id]!++;
  }

  // Host pairs keyed a·H + b: exact in a double up to H ≈ 9.4e7 hosts.
  const hostCount = hostNames.length;
  const weights = new Map<number, number>();
  const { offsets, targets } = pages;
  for (let u = 0; u < pages.nodeCount; u++) {
    const a = hostOfPage[u]!;
    const end = offsets[u + 1]!;
    for (let j = offsets[u]!; j < end; j++) {
      const b = hostOfPage[targets[j]!]!;
      if (a === b) continue;
      const key = a * hostCount + b;
      weights.set(key, (weights.get(key) ?? 0) + 1);
    }
  }

  for (let h = 0; h < hostCount; h++) graph.addNode(hostNames[h]!, { pages: pageCounts[h]! });
  let e = 0;
  for (const [key, weight] of weights) {
    const a = Math.floor(key / hostCount);
    const b = key - a * hostCount;
    // Edge keys 0, 1, 2 …: they become the GEXF edge ids.
    graph.addDirectedEdgeWithKey(String(e++), hostNames[a]!, hostNames[b]!, { weight });
  }
  return graph;
}
