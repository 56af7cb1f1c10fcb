/**
 * What the node that packages a crawl of several processes writes beside
 * the usual reports: the statistics of every node summed (each node's
 * crawl.log replayed into one CrawlStats, so every report covers the whole
 * crawl), and `reports/nodes.txt|json`: each node's pages, bytes, crawl
 * time and pages per second, as its last heartbeat said.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { NodeFigures } from '../backends/crawl-coordination.js';
import { jobCrawlLogs } from '../job/job-dir.js';
import { replayCrawlLog } from './crawl-log-replay.js';
import { CrawlStats } from './crawl-stats.js';

/** Every node's crawl.log of the job, replayed into one set of statistics. */
export async function sumNodeLogs(jobRoot: string, seeds: readonly string[], now: number): Promise<CrawlStats> {
  const stats = new CrawlStats(now);
  const seedSet = new Set(seeds);
  for (const url of seeds) stats.seeds.set(url, { url, status: null, redirect: null });
  for (const log of await jobCrawlLogs(jobRoot)) await replayCrawlLog(log, stats, seedSet);
  return stats;
}

export async function writeNodesReport(reportsDir: string, nodes: readonly NodeFigures[]): Promise<void> {
  const rows = nodes.map((n) => ({
    node: n.node,
    pages: n.pages,
    bytes: n.bytes,
    timeSec: Math.round(n.elapsedMs) / 1000,
    pagesPerSec: n.pagesPerSec,
    lastHeartbeat: new Date(n.lastHeartbeat).toISOString(),
  }));
  const width = Math.max(4, ...rows.map((r) => r.node.length));
  const text = [
    `${'node'.padEnd(width)}  ${'pages'.padStart(8)}  ${'bytes'.padStart(12)}  ${'time s'.padStart(9)}  ${'pages/s'.padStart(8)}`,
    ...rows.map((r) => `${r.node.padEnd(width)}  ${String(r.pages).padStart(8)}  ${String(r.bytes).padStart(12)}  ${r.timeSec.toFixed(1).padStart(9)}  ${r.pagesPerSec.toFixed(2).padStart(8)}`),
    `${'total'.padEnd(width)}  ${String(rows.reduce((s, r) => s + r.pages, 0)).padStart(8)}  ${String(rows.reduce((s, r) => s + r.bytes, 0)).padStart(12)}`,
  ].join('\n');
  await writeFile(path.join(reportsDir, 'nodes.txt'), `${text}\n`);
  await writeFile(path.join(reportsDir, 'nodes.json'), `${JSON.stringify({ nodes: rows }, null, 2)}\n`);
}
