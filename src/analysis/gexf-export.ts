/**
 * `--gexf FILE`: the page graph, or with `--hosts` the host graph, as GEXF
 * 1.2 written by graphology-gexf, which Gephi, networkx (`read_gexf`) and
 * Sigma.js read. Node ids are URLs (pages) or hosts; every node carries
 * `pagerank`, `inDegree` and `outDegree` as attributes, host edges their
 * `weight` (the GEXF edge attribute networkx reads as `weight`).
 *
 * graphology holds a graph as JavaScript objects, about a kilobyte per edge,
 * and the writer builds the document as one string, so the page graph is
 * capped: the `maxNodes` pages of highest PageRank and the edges among them.
 * Their attributes are their figures in the whole graph, as in the report.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DirectedGraph } from 'graphology';
import { write as writeGexfString } from 'graphology-gexf';
import type { AnalysisResult } from './analysis.js';
import type { HostAnalysis } from './host-metrics.js';
import { topNodes } from './pagerank.js';

export const GEXF_MAX_NODES_DEFAULT = 10_000;

export interface GexfSummary {
  file: string;
  graph: 'pages' | 'hosts';
  nodes: number;
  edges: number;
}

type Attributes = Record<string, string | number>;

/** Characters XML 1.0 does not allow (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/F). */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** A page title as an XML attribute value: the writer escapes markup but not characters XML forbids. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, '');
}

/** The `maxNodes` pages of highest PageRank and the edges among them. */
export function pageGexfGraph(r: AnalysisResult, maxNodes: number): DirectedGraph<Attributes> {
  const { graph, rank } = r;
  const chosen = topNodes(rank.scores, Math.min(maxNodes, graph.nodeCount));
  const kept = new Uint8Array(graph.nodeCount);
  for (const u of chosen) kept[u] = 1;
  const g = new DirectedGraph<Attributes>();
  for (const u of chosen) {
    const attributes: Attributes = {
      label: graph.urls[u]!,
      pagerank: rank.scores[u]!,
      inDegree: r.inDegree[u]!,
      outDegree: r.outDegree[u]!,
    };
    const title = xmlSafe(graph.titles[u]!);
    if (title !== '') attributes['title'] = title;
    g.addNode(graph.urls[u]!, attributes);
  }
  let e = 0;
  for (const u of chosen) {
    for (let j = graph.offsets[u]!; j < graph.offsets[u + 1]!; j++) {
      const v = graph.targets[j]!;
      if (kept[v] === 1) g.addDirectedEdgeWithKey(String(e++), graph.urls[u]!, graph.urls[v]!);
    }
  }
  return g;
}

/** Write the GEXF of the host graph when there is one, else of the (capped) page graph. */
export async function writeGexf(r: AnalysisResult, file: string, maxNodes: number): Promise<GexfSummary> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const hosts = r.hosts;
  if (hosts !== undefined) {
    await fs.writeFile(file, hostGexf(hosts));
    return { file, graph: 'hosts', nodes: hosts.graph.order, edges: hosts.graph.size };
  }
  const pages = pageGexfGraph(r, maxNodes);
  await fs.writeFile(file, writeGexfString(pages));
  return { file, graph: 'pages', nodes: pages.order, edges: pages.size };
}

/** The host graph with its metrics as node attributes, through the writer's formatters (no copy of the graph). */
function hostGexf(hosts: HostAnalysis): string {
  const rows = new Map(hosts.rows.map((h) => [h.host, h]));
  return writeGexfString(hosts.graph, {
    formatNode: (host) => {
      const h = rows.get(host)!;
      return {
        label: host,
        attributes: {
          pages: h.pages,
          pagerank: h.pagerank,
          hub: h.hub,
          authority: h.authority,
          inDegree: h.inDegree,
          outDegree: h.outDegree,
        },
      };
    },
    formatEdge: (_key, attributes) => ({ weight: attributes.weight }),
  });
}
