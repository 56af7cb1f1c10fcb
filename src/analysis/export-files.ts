/**
 * `--out DIR`: the graph as CSV files other tools can load (nodes.csv,
 * edges.csv, pagerank.csv, with `--hosts` hosts.csv) and the degree plot
 * (degrees.svg). Files are
 * streamed with back-pressure so a graph of millions of edges is not
 * rendered into one string first.
 */
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { once } from 'node:events';
import type { AnalysisResult } from './analysis.js';
import { degreesSvg } from './degrees-svg.js';
import { topNodes } from './pagerank.js';

/** RFC 4180 field: quoted when it holds a comma, quote or line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

async function writeLines(file: string, header: string, count: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(file);
  const closed = once(out, 'close');
  try {
    let batch = header + '\n';
    for (let i = 0; i < count; i++) {
      batch += line(i) + '\n';
      if (batch.length > 1 << 16) {
        if (!out.write(batch)) await once(out, 'drain');
        batch = '';
      }
    }
    out.end(batch);
    await closed;
  } catch (err) {
    out.destroy();
    throw err;
  }
}

export async function exportFiles(r: AnalysisResult, dir: string): Promise<string[]> {
  await fs.mkdir(dir, { recursive: true });
  const { graph, rank } = r;
  const written: string[] = [];
  const file = (name: string): string => {
    const p = path.join(dir, name);
    written.push(p);
    return p;
  };

  await writeLines(file('nodes.csv'), 'id,url,title,in_degree,out_degree,pagerank', graph.nodeCount, (u) =>
    [u, csvField(graph.urls[u]!), csvField(graph.titles[u]!), r.inDegree[u], r.outDegree[u], rank.scores[u]].join(','),
  );

  // Edge i belongs to the row whose offsets range holds it; walk rows alongside.
  let row = 0;
  await writeLines(file('edges.csv'), 'source,target', graph.targets.length, (i) => {
    while (graph.offsets[row + 1]! <= i) row++;
    return `${row},${graph.targets[i]}`;
  });

  const order = topNodes(rank.scores, graph.nodeCount);
  await writeLines(file('pagerank.csv'), 'rank,id,score,url', order.length, (i) => {
    const u = order[i]!;
    return `${i + 1},${u},${rank.scores[u]},${csvField(graph.urls[u]!)}`;
  });

  const hosts = r.hosts?.rows;
  if (hosts !== undefined) {
    await writeLines(file('hosts.csv'), 'rank,host,pages,in_degree,out_degree,pagerank,hub,authority', hosts.length, (i) => {
      const h = hosts[i]!;
      return [i + 1, csvField(h.host), h.pages, h.inDegree, h.outDegree, h.pagerank, h.hub, h.authority].join(',');
    });
  }

  await fs.writeFile(file('degrees.svg'), degreesSvg(r.inSummary, r.outSummary));
  return written;
}
