/**
 * End-of-crawl reports in reports/: crawl, seeds, hosts, mimetype,
 * response-code and frontier summaries, each as text (Heritrix's layout) and
 * JSON. Also the summary printed to the operator.
 */
import type { BrowserCounts } from '../browser/browser-capture.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FrontierStats, QueueReport } from '../frontier/frontier.js';
import type { ClosedHost } from '../politeness/host-health.js';
import { urlHostOf } from '../url/hosts.js';
import type { BudgetReport } from '../overrides/budgets.js';
import type { HostOverrides } from '../overrides/overrides.js';
import type { CrawlStats, SeedStatus } from './crawl-stats.js';
import type { CrawlStatus } from './crawl-status.js';

export interface CrawlOutcome {
  /** Every WARC file of the job (all runs), and those this run wrote. */
  warcFiles: string[];
  runWarcFiles: string[];
  warcDir: string;
  jobDir: string;
  /** The job's CDXJ index and WACZ package, when they were written. */
  cdxj: string | null;
  wacz: string | null;
  closedHosts: ClosedHost[];
  seeds: SeedStatus[];
  /** The earlier jobs (absolute directories) of `dedup.against`: where this job's revisits' originals are. */
  dedupAgainst?: string[];
}

export interface CrawlSummary {
  /** How the crawl ended: FINISHED, FINISHED_DOCUMENT_LIMIT, FINISHED_DATA_LIMIT, FINISHED_TIME_LIMIT, ABORTED… */
  status: string;
  /** Crawl time of the whole job (every run); `runDurationMs` this run's. */
  durationMs: number;
  runDurationMs: number;
  /** Captures (every response or revisit written). */
  uris: number;
  /** Of those, 2xx HTML pages. */
  pages: number;
  bytes: number;
  averageUriBytes: number;
  /** This run's rates. */
  urisPerSec: number;
  kbPerSec: number;
  queue: { waiting: number; running: number; error: number; complete: number; disregarded: number };
  hosts: number;
  /** Hosts whose URIs were disposed of: robots.txt unavailable, or the server stopped answering. */
  closedHosts: ClosedHost[];
  /** Every seed (given and added) with the status it got (null: never reached). */
  seeds: SeedStatus[];
  warcDir: string;
  warcFiles: string[];
  runWarcFiles: string[];
  cdxj: string | null;
  wacz: string | null;
  /** The earlier jobs of `dedup.against`, absolute: `archiver analyze <job>` reads their WARCs for revisits' originals. */
  dedupAgainst: string[];
  /** A node of a crawl of several processes: what its figures cover. Absent for a crawl of one process. */
  node?: NodeShare;
  /** Browser capture's figures for this run (src/browser/); absent when nothing was rendered. */
  browser?: BrowserCounts;
}

/**
 * What a node's summary covers: `share` — this node's captures only (the
 * packaging node's reports cover the whole crawl); `crawl` — the whole
 * crawl (this node packaged it); `already` — the crawl was finished before
 * this node started, and the figures are that crawl's.
 */
export interface NodeShare {
  id: string;
  covers: 'share' | 'crawl' | 'already';
  /** Why a node that fetched nothing did (null when it fetched something). */
  idleBecause: string | null;
}

export function summarize(status: CrawlStatus, hosts: number, outcome: CrawlOutcome): CrawlSummary {
  return {
    status: status.endReason ?? 'FINISHED',
    durationMs: Math.round(status.elapsedSec * 1000),
    runDurationMs: Math.round(status.runElapsedSec * 1000),
    uris: status.uris,
    pages: status.pages,
    bytes: status.bytes,
    averageUriBytes: status.uris ? Math.round(status.bytes / status.uris) : 0,
    urisPerSec: status.urisPerSec,
    kbPerSec: status.kbPerSec,
    queue: {
      waiting: status.queued - status.inProcess,
      running: status.inProcess,
      error: status.errors,
      complete: status.uris,
      disregarded: status.disregarded,
    },
    hosts,
    closedHosts: outcome.closedHosts,
    seeds: withReasons(outcome.seeds, outcome.closedHosts),
    warcDir: outcome.warcDir,
    warcFiles: outcome.warcFiles,
    runWarcFiles: outcome.runWarcFiles,
    cdxj: outcome.cdxj,
    wacz: outcome.wacz,
    dedupAgainst: outcome.dedupAgainst ?? [],
  };
}

export function formatSummary(s: CrawlSummary): string {
  const already = s.node?.covers === 'already';
  const run = s.runDurationMs !== s.durationMs && !already ? ` (this run ${(s.runDurationMs / 1000).toFixed(1)} s)` : '';
  const head = already
    ? `crawl was already ${s.status} (crawl time ${(s.durationMs / 1000).toFixed(1)} s); node ${s.node!.id} packaged it again — the crawl's figures:`
    : `crawl ${s.status} in ${(s.durationMs / 1000).toFixed(1)} s${run}${s.node === undefined ? '' : s.node.covers === 'share' ? ` — node ${s.node.id}'s share (the packaging node's reports/ cover the whole crawl)` : ` — the whole crawl, packaged by node ${s.node.id}`}`;
  return [
    head,
    ...(s.node?.idleBecause ? [`  idle      node ${s.node.id} fetched nothing: ${s.node.idleBecause}`] : []),
    `  URIs      ${s.uris}  (${s.pages} HTML pages, ${s.hosts} hosts)`,
    `  bytes     ${s.bytes}  (average ${s.averageUriBytes} B)`,
    `  rate      ${s.urisPerSec} URIs/s, ${s.kbPerSec} KB/s${run ? ' this run' : ''}`,
    `  queue     waiting ${s.queue.waiting}, running ${s.queue.running}, error ${s.queue.error}, complete ${s.queue.complete}, out of scope ${s.queue.disregarded}`,
    ...(s.browser ? [`  browser   ${s.browser.pagesRendered} pages rendered (${s.browser.renderFailures} failed), ${s.browser.subrequests} subrequests (${s.browser.subrequestsRefused} refused), ${s.browser.browserRestarts} Chromium restarts`] : []),
    ...s.closedHosts.map((h) => `  closed    ${h.host}: ${h.cause} (its URIs logged ${h.status} ${h.annotation})`),
    `  WARCs     ${s.warcDir} (${s.warcFiles.length} file${s.warcFiles.length === 1 ? '' : 's'}, ${s.runWarcFiles.length} this run)`,
    ...(s.cdxj ? [`  index     ${s.cdxj}`] : []),
    ...(s.wacz ? [`  WACZ      ${s.wacz}`] : s.cdxj ? ['  WACZ      none (output.wacz is false; `archiver wacz` packages the job)'] : []),
    ...(s.status === 'ABORTED' || s.status === 'ABORTED_FATAL' || s.status.endsWith('_LIMIT') ? [`  run the same command to resume${s.status.endsWith('_LIMIT') ? ' (with a higher limit, e.g. --max-pages)' : ''}`] : []),
  ].join('\n');
}

/** What the reports show of the profile's overrides. */
export interface OverridesShown {
  /** The overrides that apply to a host (as URLs write it); null when none. */
  describeHost(host: string): HostOverrides | null;
  budgets: BudgetReport[];
}

const NO_OVERRIDES: OverridesShown = { describeHost: () => null, budgets: [] };

export async function writeReports(dir: string, stats: CrawlStats, summary: CrawlSummary, frontier: FrontierStats, queues: QueueReport[], overrides: OverridesShown = NO_OVERRIDES): Promise<void> {
  const hosts = [...stats.byHost.entries()].sort((a, b) => b[1].urls - a[1].urls);
  const seeds = withReasons([...stats.seeds.values()], summary.closedHosts);
  // Closed hosts are keyed `host:port`; the report's hosts as URLs write them.
  const closed = new Map(summary.closedHosts.map((c) => [urlHostOf(c.host), c]));
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
        `This Run's Duration Time: ${(summary.runDurationMs / 1000).toFixed(3)} s`,
        `Total Seeds Crawled: ${[...stats.seeds.values()].filter((s) => s.status !== null && s.status > 0).length}`,
        `Total Seeds not Crawled: ${[...stats.seeds.values()].filter((s) => s.status === null || s.status <= 0).length}`,
        `Total Hosts Crawled: ${stats.byHost.size}`,
        `Total URIs Processed: ${stats.succeeded + stats.failed}`,
        `URIs Crawled successfully: ${stats.succeeded}`,
        `URIs Failed to Crawl: ${stats.failed}`,
        `URIs Disregarded: ${stats.disregarded}`,
        `Processed docs/sec: ${summary.urisPerSec}`,
        `Bandwidth in Kbytes/sec: ${summary.kbPerSec}`,
        ...summary.closedHosts.map((h) => `Closed Host: ${h.host} ${h.cause} (${h.status} ${h.annotation})`),
        `Total Raw Data Size in Bytes: ${stats.bytes}`,
        `Novel URIs: ${stats.novelUrls} (${stats.novelBytes} bytes)`,
        `Duplicate-by-hash URIs: ${stats.dupUrls} (${stats.dupBytes} bytes)`,
        `Links Not Followed (limits.maxOutlinks): ${stats.outlinksDropped} from ${stats.pagesCapped} page(s)`,
        ...overrides.budgets.map(budgetText),
        ...(summary.browser ? [`Pages Rendered in the Browser: ${summary.browser.pagesRendered} (${summary.browser.renderFailures} failed)`, `Browser Subrequests: ${summary.browser.subrequests} (${summary.browser.subrequestsRefused} refused)`] : []),
      ].join('\n'),
      json: {
        ...summary,
        elapsedSec: summary.durationMs / 1000,
        runElapsedSec: summary.runDurationMs / 1000,
        novelUrls: stats.novelUrls,
        novelBytes: stats.novelBytes,
        dupUrls: stats.dupUrls,
        dupBytes: stats.dupBytes,
        retries: stats.retries,
        outlinksDropped: stats.outlinksDropped,
        pagesCapped: stats.pagesCapped,
        budgets: overrides.budgets,
      },
    },
    'seeds-report': {
      text: table(['[code]', '[status]', '[seed]', '[redirect]', '[reason]'], seeds.map((s) => [String(s.status ?? '-'), s.status !== null && s.status > 0 ? 'CRAWLED' : 'NOTCRAWLED', s.url, s.redirect ?? '-', (s.reason ?? '-').replaceAll(' ', '_')])),
      json: seeds,
    },
    'hosts-report': {
      text: table(
        ['[#urls]', '[#bytes]', '[host]', '[#robots]', '[#remaining]', '[#novel-urls]', '[#novel-bytes]', '[#dup-by-hash-urls]', '[#dup-by-hash-bytes]', '[closed]', '[overrides]'],
        hosts.map(([host, h]) => [
          ...[h.urls, h.bytes, host, h.robotsBlocked, remaining.get(host) ?? 0, h.novelUrls, h.novelBytes, h.dupUrls, h.dupBytes].map(String),
          closedText(closed.get(host)),
          overridesText(overrides.describeHost(host)),
        ]),
      ),
      json: hosts.map(([host, h]) => ({ host, ...h, remaining: remaining.get(host) ?? 0, closed: closed.get(host) ?? null, overrides: overrides.describeHost(host) })),
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

/** Seeds not crawled, with why when their host was closed (the cause the summary's `closed` line gives). */
function withReasons(seeds: readonly SeedStatus[], closedHosts: readonly ClosedHost[]): SeedStatus[] {
  if (closedHosts.length === 0) return [...seeds];
  const causes = new Map(closedHosts.map((c) => [urlHostOf(c.host), c.cause]));
  return seeds.map((s) => {
    if (s.status !== null && s.status > 0) return s;
    let host: string;
    try {
      host = new URL(s.url).host;
    } catch {
      return s;
    }
    const cause = causes.get(host);
    return cause === undefined ? s : { ...s, reason: cause };
  });
}

/** `host`, `host#port` (hostname assignment) → the URL host form; null for other keys. */
export function hostOfQueueKey(key: string): string | null {
  const m = /^([^,#\s]+)(?:#(\d+))?$/.exec(key);
  if (!m || /^\d+$/.test(key)) return null;
  return m[2] === undefined || m[2] === '443' ? m[1]! : `${m[1]}:${m[2]}`;
}

function closedText(c: ClosedHost | undefined): string {
  return c === undefined ? '-' : `${c.status}:${c.cause.replaceAll(' ', '_')}`;
}

/** `politeness.minDelayMs=400,robots.policy=ignore`, or `-` when no override applies. */
function overridesText(o: HostOverrides | null): string {
  if (o === null) return '-';
  const fields = Object.entries(o.settings).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`.replaceAll(' ', '_'));
  return fields.length > 0 ? fields.join(',') : `matched:${o.matches.join('|')}`;
}

/** `Budget: http://(org,example,)/blog maxPages 3 maxBytes 0: 3 pages, 4521 bytes, reached` */
function budgetText(b: BudgetReport): string {
  return `Budget: ${b.match} maxPages ${b.maxPages} maxBytes ${b.maxBytes}: ${b.pages} pages, ${b.bytes} bytes${b.reached ? ', reached' : ''}`;
}

function table(header: string[], rows: string[][]): string {
  return [header.join(' '), ...rows.map((r) => r.join(' '))].join('\n');
}

