/**
 * End-of-crawl reports in reports/: crawl, seeds, hosts, mimetype,
 * response-code and frontier summaries, each as text (Heritrix's layout) and
 * JSON. Also the summary printed to the operator.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FrontierStats, QueueReport } from '../frontier/frontier.js';
import type { CrawlStats } from './crawl-stats.js';

export interface CrawlOutcome {
  /** FINISHED, FINISHED_DOCUMENT_LIMIT, FINISHED_DATA_LIMIT, FINISHED_TIME_LIMIT, ABORTED… */
  status: string;
  endedAt: number;
  warcFiles: string[];
  warcDir: string;
  jobDir: string;
  /** The job's CDXJ index and WACZ package, when they were written. */
  cdxj: string | null;
  wacz: string | null;
}

export interface CrawlSummary {
  status: string;
  durationMs: number;
  pages: number;
  bytes: number;
  averagePageBytes: number;
  urisPerSec: number;
  kbPerSec: number;
  uris: { waiting: number; running: number; error: number; complete: number; disregarded: number };
  hosts: number;
  warcDir: string;
  warcFiles: string[];
  cdxj: string | null;
  wacz: string | null;
}

export function summarize(stats: CrawlStats, frontier: FrontierStats, outcome: CrawlOutcome): CrawlSummary {
  const durationMs = stats.elapsedMs(outcome.endedAt);
  const secs = Math.max(durationMs / 1000, 0.001);
  return {
    status: outcome.status,
    durationMs,
    pages: stats.succeeded,
    bytes: stats.bytes,
    averagePageBytes: stats.succeeded ? Math.round(stats.bytes / stats.succeeded) : 0,
    urisPerSec: round2(stats.succeeded / secs),
    kbPerSec: round2(stats.bytes / 1024 / secs),
    uris: {
      waiting: frontier.queued - frontier.inProcess,
      running: frontier.inProcess,
      error: stats.failed,
      complete: stats.succeeded,
      disregarded: stats.disregarded,
    },
    hosts: stats.byHost.size,
    warcDir: outcome.warcDir,
    warcFiles: outcome.warcFiles,
    cdxj: outcome.cdxj,
    wacz: outcome.wacz,
  };
}

export function formatSummary(s: CrawlSummary): string {
  return [
    `crawl ${s.status} in ${(s.durationMs / 1000).toFixed(1)} s`,
    `  pages     ${s.pages}  (${s.hosts} hosts)`,
    `  bytes     ${s.bytes}  (average page ${s.averagePageBytes} B)`,
    `  rate      ${s.urisPerSec} URLs/s, ${s.kbPerSec} KB/s`,
    `  URIs      waiting ${s.uris.waiting}, running ${s.uris.running}, error ${s.uris.error}, complete ${s.uris.complete}, out of scope ${s.uris.disregarded}`,
    `  WARCs     ${s.warcDir} (${s.warcFiles.length} file${s.warcFiles.length === 1 ? '' : 's'} this run)`,
    ...(s.cdxj ? [`  index     ${s.cdxj}`] : []),
    ...(s.wacz ? [`  WACZ      ${s.wacz}`] : []),
  ].join('\n');
}

export async function writeReports(dir: string, stats: CrawlStats, summary: CrawlSummary, frontier: FrontierStats, queues: QueueReport[]): Promise<void> {
  const hosts = [...stats.byHost.entries()].sort((a, b) => b[1].urls - a[1].urls);
  // Queue keys name hosts only under hostname assignment (host, host#port).
  const remaining = new Map<string, number>();
  for (const q of queues) {
    const host = hostOfQueueKey(q.key);
    if (host !== null) remaining.set(host, (remaining.get(host) ?? 0) + q.queued);
  }
  const reports: Record<string, { text: string; json: unknown }> = {
    'crawl-report': {
      text: [
        `Crawl Status: ${summary.status}`,
        `Duration Time: ${(summary.durationMs / 1000).toFixed(3)} s`,
        `Total Seeds Crawled: ${[...stats.seeds.values()].filter((s) => s.status !== null && s.status > 0).length}`,
        `Total Seeds not Crawled: ${[...stats.seeds.values()].filter((s) => s.status === null || s.status <= 0).length}`,
        `Total Hosts Crawled: ${stats.byHost.size}`,
        `Total URIs Processed: ${stats.succeeded + stats.failed}`,
        `URIs Crawled successfully: ${stats.succeeded}`,
        `URIs Failed to Crawl: ${stats.failed}`,
        `URIs Disregarded: ${stats.disregarded}`,
        `Processed docs/sec: ${summary.urisPerSec}`,
        `Bandwidth in Kbytes/sec: ${summary.kbPerSec}`,
        `Total Raw Data Size in Bytes: ${stats.bytes}`,
        `Novel URIs: ${stats.novelUrls} (${stats.novelBytes} bytes)`,
        `Duplicate-by-hash URIs: ${stats.dupUrls} (${stats.dupBytes} bytes)`,
      ].join('\n'),
      json: { ...summary, novelUrls: stats.novelUrls, novelBytes: stats.novelBytes, dupUrls: stats.dupUrls, dupBytes: stats.dupBytes, retries: stats.retries },
    },
    'seeds-report': {
      text: table(['[code]', '[status]', '[seed]', '[redirect]'], [...stats.seeds.values()].map((s) => [String(s.status ?? '-'), s.status !== null && s.status > 0 ? 'CRAWLED' : 'NOTCRAWLED', s.url, s.redirect ?? ''])),
      json: [...stats.seeds.values()],
    },
    'hosts-report': {
      text: table(
        ['[#urls]', '[#bytes]', '[host]', '[#robots]', '[#remaining]', '[#novel-urls]', '[#novel-bytes]', '[#dup-by-hash-urls]', '[#dup-by-hash-bytes]'],
        hosts.map(([host, h]) => [h.urls, h.bytes, host, h.robotsBlocked, remaining.get(host) ?? 0, h.novelUrls, h.novelBytes, h.dupUrls, h.dupBytes].map(String)),
      ),
      json: hosts.map(([host, h]) => ({ host, ...h, remaining: remaining.get(host) ?? 0 })),
    },
    'mimetype-report': {
      text: table(['[#urls]', '[#bytes]', '[mime-types]'], [...stats.byMime.entries()].sort((a, b) => b[1].urls - a[1].urls).map(([m, v]) => [String(v.urls), String(v.bytes), m])),
      json: Object.fromEntries(stats.byMime),
    },
    'responsecode-report': {
      text: table(['[#urls]', '[rescode]'], [...stats.byStatus.entries()].sort((a, b) => b[1] - a[1]).map(([c, n]) => [String(n), String(c)])),
      json: Object.fromEntries(stats.byStatus),
    },
    'frontier-summary-report': {
      text: [
        `queued ${frontier.queued}, in process ${frontier.inProcess}`,
        `queues by state: ${Object.entries(frontier.queuesByState).map(([k, v]) => `${k} ${v}`).join(', ')}`,
        '',
        table(['[queue]', '[state]', '[queued]', '[finished]', '[budget-spent]'], queues.map((q) => [q.key, q.state, String(q.queued), String(q.finished), String(q.budgetSpent)])),
      ].join('\n'),
      json: { ...frontier, queues },
    },
  };
  for (const [name, r] of Object.entries(reports)) {
    await writeFile(path.join(dir, `${name}.txt`), r.text + '\n');
    await writeFile(path.join(dir, `${name}.json`), JSON.stringify(r.json, null, 2) + '\n');
  }
}

/** `host`, `host#port` (hostname assignment) → the URL host form; null for other keys. */
function hostOfQueueKey(key: string): string | null {
  const m = /^([^,#\s]+)(?:#(\d+))?$/.exec(key);
  if (!m || /^\d+$/.test(key)) return null;
  return m[2] === undefined || m[2] === '443' ? m[1]! : `${m[1]}:${m[2]}`;
}

function table(header: string[], rows: string[][]): string {
  return [header.join(' '), ...rows.map((r) => r.join(' '))].join('\n');
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
