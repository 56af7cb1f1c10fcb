/**
 * The two stdout forms of an analysis: a readable text report and the
 * `--json` document, which holds everything the text does:
 * { pages, edges, dangling, inDegree: {histogram, min, mean, median, max},
 *   outDegree: {…}, pagerank: [{url, score, inDegree, outDegree, title}],
 *   links: {uncaptured, uncapturedUrls, nonPage},
 *   revisits: {fromOriginal, unresolved},
 *   convergence: {alpha, tolerance, iterations, l1Change},
 *   read: {files, records, bytes, skippedRecords, skippedFiles, damaged} }
 * (the first six keys are issue 3's), with `--hosts` also hostEdges and
 * hosts: [{host, pages, inDegree, outDegree, pagerank, hub, authority}]
 * (every host, highest PageRank first), and with `--gexf` the file's
 * {file, graph, nodes, edges}.
 */
import type { AnalysisResult } from './analysis.js';
import type { DegreeSummary } from './degrees.js';
import type { GexfSummary } from './gexf-export.js';
import { HOST_HITS_L1, HOST_PAGERANK_L1, type HostAnalysis, type HostRow } from './host-metrics.js';
import { topNodes } from './pagerank.js';

export interface JsonDegree {
  histogram: Record<string, number>;
  min: number;
  mean: number;
  median: number;
  max: number;
}

export interface JsonReport {
  pages: number;
  edges: number;
  dangling: number;
  inDegree: JsonDegree;
  outDegree: JsonDegree;
  pagerank: { url: string; score: number; inDegree: number; outDegree: number; title: string }[];
  /** Links left out of the graph: to URLs never captured (counted per page capture; `uncapturedUrls` distinct), to captures that are no pages. */
  links: { uncaptured: number; uncapturedUrls: number; nonPage: number };
  /** Revisits given their original's links and title, and those whose original is not among the inputs. */
  revisits: { fromOriginal: number; unresolved: number };
  /** How PageRank was computed and how far it got. */
  convergence: { alpha: number; tolerance: number; iterations: number; l1Change: number };
  /** What was read: WARC files, records, bytes; records, non-WARC files and cut or corrupt stretches skipped. */
  read: { files: number; records: number; bytes: number; skippedRecords: number; skippedFiles: number; damaged: number };
  /** Edges of the host graph (linked host pairs); with --hosts. */
  hostEdges?: number;
  /** Every host, highest PageRank first; with --hosts. */
  hosts?: HostRow[];
  gexf?: GexfSummary;
}

function jsonDegree(s: DegreeSummary): JsonDegree {
  return { histogram: s.histogram, min: s.min, mean: s.mean, median: s.median, max: s.max };
}

export function jsonReport(r: AnalysisResult, top: number, gexf: GexfSummary | null = null): JsonReport {
  const report: JsonReport = {
    pages: r.graph.nodeCount,
    edges: r.graph.targets.length,
    dangling: r.dangling,
    inDegree: jsonDegree(r.inSummary),
    outDegree: jsonDegree(r.outSummary),
    pagerank: topNodes(r.rank.scores, top).map((u) => ({
      url: r.graph.urls[u]!,
      score: r.rank.scores[u]!,
      inDegree: r.inDegree[u]!,
      outDegree: r.outDegree[u]!,
      title: r.graph.titles[u]!,
    })),
    links: { uncaptured: r.graph.uncapturedLinks, uncapturedUrls: r.graph.uncapturedUrls, nonPage: r.graph.nonPageLinks },
    revisits: { ...r.graph.revisits },
    convergence: { alpha: r.options.alpha, tolerance: r.options.tolerance, iterations: r.rank.iterations, l1Change: r.rank.lastChange },
    read: {
      files: r.read.files,
      records: r.read.records,
      bytes: r.read.bytesRead,
      skippedRecords: r.read.skippedRecords,
      skippedFiles: r.read.skippedFiles,
      damaged: r.read.damaged,
    },
  };
  if (r.hosts !== undefined) {
    report.hostEdges = r.hosts.edges;
    report.hosts = r.hosts.rows;
  }
  if (gexf !== null) report.gexf = gexf;
  return report;
}

const num = (n: number): string => n.toLocaleString('en-US');

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function revisitsText(r: { fromOriginal: number; unresolved: number }): string {
  const parts = [];
  if (r.fromOriginal > 0) parts.push(`${num(r.fromOriginal)} read from their original record`);
  if (r.unresolved > 0) parts.push(`${num(r.unresolved)} unresolved (original not among the inputs: no links, no title)`);
  return parts.join(', ');
}

function histogramLines(label: string, s: DegreeSummary): string[] {
  const entries = Object.entries(s.histogram);
  const most = Math.max(1, ...entries.map(([, c]) => c));
  const lines = [`${label} histogram (log bins)`];
  for (const [bin, count] of entries) {
    const bar = '#'.repeat(count === 0 ? 0 : Math.max(1, Math.round((count / most) * 40)));
    lines.push(`  ${bin.padEnd(15)} ${num(count).padStart(12)}  ${bar}`);
  }
  return lines;
}

export function textReport(r: AnalysisResult, top: number, gexf: GexfSummary | null = null): string {
  const { read, graph, rank } = r;
  const lines: string[] = [];
  lines.push(
    `read ${num(read.files)} WARC file(s), ${num(read.records)} records, ${(read.bytesRead / 1e6).toFixed(1)} MB` +
      ` — skipped: ${num(read.skippedRecords)} record(s), ${num(read.skippedFiles)} non-WARC file(s)` +
      (read.damaged > 0 ? `, ${num(read.damaged)} cut or corrupt stretch(es) of WARC files` : ''),
  );
  lines.push('');
  const rows: [string, string][] = [
    ['pages', num(graph.nodeCount)],
    ['edges', num(graph.targets.length)],
    ['links to uncaptured URLs', `${num(graph.uncapturedLinks)} (${num(graph.uncapturedUrls)} distinct URLs)`],
    ['links to captured non-pages', num(graph.nonPageLinks)],
    ['dangling pages', num(r.dangling)],
    ...(graph.revisits.fromOriginal + graph.revisits.unresolved > 0
      ? [['revisits', revisitsText(graph.revisits)] as [string, string]]
      : []),
    ['skipped records', num(read.skippedRecords)],
    [
      'PageRank',
      `alpha ${r.options.alpha}, converged in ${rank.iterations} iterations (L1 change ${rank.lastChange.toExponential(2)})`,
    ],
  ];
  if (r.hosts !== undefined) {
    rows.push(['hosts', num(r.hosts.rows.length)], ['edges between hosts', num(r.hosts.edges)]);
  }
  if (gexf !== null) {
    const what = gexf.graph === 'hosts' ? 'host graph' : gexf.nodes < graph.nodeCount ? 'pages of highest PageRank' : 'page graph';
    rows.push(['GEXF', `${gexf.file}: ${num(gexf.nodes)} nodes, ${num(gexf.edges)} edges (${what})`]);
  }
  for (const [k, v] of rows) lines.push(`${k.padEnd(30)}${v}`);
  lines.push('');
  lines.push(`${'degree'.padEnd(8)}${'min'.padStart(10)}${'median'.padStart(10)}${'mean'.padStart(10)}${'max'.padStart(10)}`);
  for (const [name, s] of [['in', r.inSummary], ['out', r.outSummary]] as const) {
    lines.push(
      `${name.padEnd(8)}${num(s.min).padStart(10)}${String(s.median).padStart(10)}${s.mean.toFixed(2).padStart(10)}${num(s.max).padStart(10)}`,
    );
  }
  lines.push('');
  lines.push(...histogramLines('in-degree', r.inSummary), '');
  lines.push(...histogramLines('out-degree', r.outSummary));
  const best = topNodes(rank.scores, top);
  if (best.length > 0) {
    lines.push('', `top ${best.length} by PageRank`);
    lines.push(`${'rank'.padStart(4)}  ${'score'.padEnd(10)}${'in'.padStart(8)}${'out'.padStart(8)}  ${'title'.padEnd(32)}  url`);
    best.forEach((u, i) => {
      const title = truncate(graph.titles[u]!.replace(/\s+/g, ' '), 32);
      lines.push(
        `${String(i + 1).padStart(4)}  ${rank.scores[u]!.toExponential(4).padEnd(10)}${num(r.inDegree[u]!).padStart(8)}` +
          `${num(r.outDegree[u]!).padStart(8)}  ${title.padEnd(32)}  ${graph.urls[u]}`,
      );
    });
  }
  if (r.hosts !== undefined) lines.push(...hostLines(r.hosts, top, r.options.alpha));
  return lines.join('\n') + '\n';
}

function hostLines(hosts: HostAnalysis, top: number, alpha: number): string[] {
  const shown = hosts.rows.slice(0, top);
  if (shown.length === 0) return [];
  const hits = hosts.hitsTolerance === HOST_HITS_L1 ? '' : `; HITS only to L1 change < ${hosts.hitsTolerance}`;
  const lines = [
    '',
    `top ${shown.length} hosts by PageRank (weighted, alpha ${alpha}, L1 change < ${HOST_PAGERANK_L1}${hits}; in/out: links with pages on other hosts)`,
    `${'rank'.padStart(4)}  ${'pagerank'.padEnd(10)}  ${'hub'.padEnd(10)}  ${'authority'.padEnd(10)}${'pages'.padStart(9)}${'in'.padStart(9)}${'out'.padStart(9)}  host`,
  ];
  shown.forEach((h, i) => {
    lines.push(
      `${String(i + 1).padStart(4)}  ${h.pagerank.toExponential(4).padEnd(10)}  ${h.hub.toExponential(4).padEnd(10)}  ` +
        `${h.authority.toExponential(4).padEnd(10)}${num(h.pages).padStart(9)}${num(h.inDegree).padStart(9)}${num(h.outDegree).padStart(9)}  ${h.host}`,
    );
  });
  return lines;
}
