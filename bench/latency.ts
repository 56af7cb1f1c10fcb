/**
 * Hosts kept busy at realistic latency: archiver against GNU wget on a web
 * grown by preferential attachment (pa-web.ts: N hosts × ~210 pages, one
 * seed, ~70% same-host links, ~8 levels, one host whose robots.txt answers
 * 500), served on loopback with each answer sent after `latency` ms.
 *
 * With delays 0 and one connection per host, a host can take at most one
 * request per answer time, so no crawl beats hosts ÷ answer time requests/s
 * (the politeness bound). The server logs when each request started and
 * ended; the gap between the end of one answer and the start of the next
 * request to the same host is time that host sat idle. Printed per run:
 * wall time, pages/s, the mean, p50 and p95 per-host gap, each host's busy
 * share (answering ÷ its first-to-last request span, averaged over hosts),
 * and the share of the politeness bound reached over the crawl's span of
 * requests; then archiver ÷ wget per latency.
 *
 *   node dist/bench/latency.js [--latency-ms 0,20,50] [--runs 3] [--wget-runs 1] [--hosts 20]
 *     [--pages 210] [--robots-500 1] [--workers 40] [--seed 1] [--tools archiver,wget]
 *     [--max-retries 1] [--retry-delay-ms 10]   (archiver's retry limits: what the robots-500 host's URIs go through)
 *     [--cpu-prof-dir DIR]   (archiver under node --cpu-prof)
 *
 * ARCHIVER_* variables in this process's environment reach archiver's. Figures only.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './bench-args.js';
import { FixtureWeb, type RequestLogEntry } from '../src/demo/fixture-web.js';
import { computeExpectedUrls } from '../src/demo/reachability.js';
import type { GeneratedWeb, HostSite } from '../src/demo/site-generator.js';
import { checkWarcs, maxInFlight, median, runArchiver, runWget, type WarcCheck } from './crawl.js';
import { formatThreadCpu, type ThreadCpu } from './thread-cpu.js';
import { DEFAULT_PA_SHAPE, generatePaWeb, type PaWebFigures, type PaWebShape } from './pa-web.js';

const USAGE = 'usage: node dist/bench/latency.js [--latency-ms 0,20,50] [--runs 3] [--wget-runs 1] [--hosts 20] [--pages N] [--robots-500 N] [--workers N] [--seed N] [--tools archiver,wget] [--max-retries N] [--retry-delay-ms MS] [--cpu-prof-dir DIR]';

export interface LatencyBenchOpts {
  hosts: number;
  pagesPerHost: number;
  robots500Hosts: number;
  latencyMs: number;
  /** archiver runs; wget runs come in between, `wgetRuns` of them. */
  runs: number;
  wgetRuns: number;
  workers: number;
  seed: number;
  tools: readonly ('archiver' | 'wget')[];
  /** archiver's `limits.maxRetries` and `limits.retryDelayMs` (the crawl bench's 1 and 10 ms by default). */
  maxRetries?: number;
  retryDelayMs?: number;
  /** When set, archiver runs under `node --cpu-prof` and writes its .cpuprofile here. */
  cpuProfDir?: string;
  log: (line: string) => void;
}

/** Idle time between requests to one host, and how busy hosts were, as the server saw it. */
export interface HostGaps {
  requests: number;
  /** End of one answer → start of the next request to the same host, ms. */
  meanGapMs: number;
  p50GapMs: number;
  p95GapMs: number;
  /** Mean time the server took per answer (the latency plus its own work), ms. */
  meanAnswerMs: number;
  /** Per host, time answering ÷ (last end − first start); mean over hosts with 2+ requests. */
  busyShare: number;
  /** First request start → last answer end, s. */
  spanSecs: number;
}

export interface LatencyRun {
  tool: 'archiver' | 'wget';
  run: number;
  exitCode: number;
  wallSecs: number;
  cpuSecs: number;
  warc: WarcCheck;
  gaps: HostGaps;
  maxPerHostInFlight: number;
  /** Requests/s over the span ÷ the politeness bound (null at latency 0: no bound but the CPU). */
  boundShare: number | null;
  /** CPU seconds by thread (archiver, Linux). */
  threads?: ThreadCpu;
}

export interface LatencyBenchResult {
  opts: Omit<LatencyBenchOpts, 'log'>;
  figures: PaWebFigures;
  expected: number;
  /** Hosts whose pages may be fetched (not the robots-500 ones). */
  openHosts: number;
  /** Requests/s no polite crawl can beat: open hosts ÷ answer time. */
  boundRps: number | null;
  runs: LatencyRun[];
}

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

export function hostGaps(requests: readonly RequestLogEntry[]): HostGaps {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const r of requests) {
    let list = byHost.get(r.host);
    if (list === undefined) byHost.set(r.host, (list = []));
    list.push(r);
  }
  const gaps: number[] = [];
  const busy: number[] = [];
  let answering = 0;
  let first = Infinity;
  let last = -Infinity;
  for (const list of byHost.values()) {
    list.sort((a, b) => a.startMs - b.startMs);
    let busyMs = 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      busyMs += r.endMs - r.startMs;
      if (i > 0) gaps.push(r.startMs - list[i - 1]!.endMs);
      first = Math.min(first, r.startMs);
      last = Math.max(last, r.endMs);
    }
    answering += busyMs;
    const span = list.at(-1)!.endMs - list[0]!.startMs;
    if (list.length > 1 && span > 0) busy.push(busyMs / span);
  }
  gaps.sort((a, b) => a - b);
  return {
    requests: requests.length,
    meanGapMs: gaps.reduce((a, g) => a + g, 0) / Math.max(1, gaps.length),
    p50GapMs: quantile(gaps, 0.5),
    p95GapMs: quantile(gaps, 0.95),
    meanAnswerMs: answering / Math.max(1, requests.length),
    busyShare: busy.reduce((a, b) => a + b, 0) / Math.max(1, busy.length),
    spanSecs: Math.max(0, last - first) / 1000,
  };
}

/** What a correct polite crawler captures: robots-500 hosts give their robots.txt only. */
function expectedUrls(hosts: readonly HostSite[], seeds: readonly string[]): string[] {
  const byHostPort = new Map(hosts.map((h) => [h.hostPort, h]));
  const resolve = (url: string) => {
    const u = new URL(url);
    const host = byHostPort.get(u.host);
    return host === undefined ? undefined : { host, resource: host.resources.get(u.pathname + u.search) ?? host.notFound };
  };
  const reached = computeExpectedUrls(hosts, seeds, resolve);
  const closed = hosts.filter((h) => h.disallowedPrefixes.includes('/')).map((h) => `${h.origin}/robots.txt`);
  return [...reached.reachable, ...closed];
}

export async function runLatencyBench(opts: LatencyBenchOpts): Promise<LatencyBenchResult> {
  const shape: PaWebShape = { ...DEFAULT_PA_SHAPE, pagesPerHost: opts.pagesPerHost, robots500Hosts: opts.robots500Hosts };
  let figures: PaWebFigures | undefined;
  let generated: GeneratedWeb | undefined;
  const web = await FixtureWeb.start({
    hosts: opts.hosts,
    pagesPerHost: opts.pagesPerHost,
    port: 0,
    seed: opts.seed,
    latencyMs: opts.latencyMs,
    generate: (g) => (generated = generatePaWeb(g, shape, (f) => (figures = f))),
  });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-latency-'));
  try {
    const expected = expectedUrls(generated!.hosts, web.seeds);
    const reachable = new Set(expected);
    const openHosts = opts.hosts - Math.min(opts.hosts, opts.robots500Hosts);
    const boundRps = opts.latencyMs > 0 ? openHosts / (opts.latencyMs / 1000) : null;
    const f = figures!;
    opts.log(
      `latency bench: ${opts.hosts} hosts × ${opts.pagesPerHost} pages (${opts.robots500Hosts} with robots.txt 500), seed ${opts.seed}: ${f.links} links, ` +
        `${(f.sameHostShare * 100).toFixed(0)}% within a host, pages by depth ${f.depthHistogram.join('/')}, in-degree max ${f.maxInDegree}; ` +
        `${expected.length} URLs for a polite crawler; answer after ${opts.latencyMs} ms` +
        (boundRps === null ? '' : `; politeness bound ${boundRps.toFixed(0)} requests/s (${openHosts} hosts ÷ ${opts.latencyMs} ms)`),
    );
    // archiver, wget, archiver, … with wget's runs spread among archiver's.
    const order: ('archiver' | 'wget')[] = [];
    let wgetLeft = opts.tools.includes('wget') ? opts.wgetRuns : 0;
    const archiverRuns = opts.tools.includes('archiver') ? opts.runs : 0;
    for (let i = 0; i < Math.max(archiverRuns, wgetLeft + archiverRuns); i++) {
      if (i < archiverRuns) order.push('archiver');
      if (wgetLeft > 0) {
        order.push('wget');
        wgetLeft--;
      }
    }
    const runs: LatencyRun[] = [];
    const counts = { archiver: 0, wget: 0 };
    for (const tool of order) {
      const n = ++counts[tool];
      const dir = await fs.mkdtemp(path.join(tmp, `${tool}-${n}-`));
      web.takeRequests();
      const limits = { ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }), ...(opts.retryDelayMs === undefined ? {} : { retryDelayMs: opts.retryDelayMs }) };
      const t = tool === 'archiver' ? await runArchiver(web, dir, opts.workers, opts.cpuProfDir, [], limits) : await runWget(web, dir);
      const requests = web.takeRequests();
      const warc = await checkWarcs(t.warcDir, web, reachable);
      const gaps = hostGaps(requests);
      const boundShare = boundRps === null ? null : requests.length / gaps.spanSecs / boundRps;
      const run: LatencyRun = { tool, run: n, exitCode: t.exitCode, wallSecs: t.wallSecs, cpuSecs: t.cpuSecs, warc, gaps, maxPerHostInFlight: maxInFlight(requests), boundShare };
      if ('threads' in t && t.threads !== undefined) run.threads = t.threads;
      runs.push(run);
      opts.log(`  ${formatRun(run, expected.length)}, load ${os.loadavg()[0]!.toFixed(1)}`);
      if (run.threads) opts.log(`      CPU by thread: ${formatThreadCpu(run.threads)}`);
      for (const e of warc.firstErrors) opts.log(`      ${e}`);
      if (t.exitCode !== 0 && tool === 'archiver') opts.log(`      stderr: ${t.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      await fs.rm(dir, { recursive: true, force: true });
    }
    const { log: _log, ...rest } = opts;
    return { opts: rest, figures: f, expected: expected.length, openHosts, boundRps, runs };
  } finally {
    await web.close();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

function formatRun(r: LatencyRun, expected: number): string {
  const g = r.gaps;
  return (
    `${r.tool.padEnd(8)} run ${r.run}: exit ${r.exitCode}, ${r.warc.urls} URLs (${r.warc.covered}/${expected} covered, ${r.warc.errors} WARC errors), ` +
    `${r.wallSecs.toFixed(2)} s wall, ${(r.warc.urls / r.wallSecs).toFixed(0)} pages/s, ${r.cpuSecs.toFixed(2)} CPU s; ` +
    `gap per host mean ${g.meanGapMs.toFixed(1)} ms, p50 ${g.p50GapMs.toFixed(1)}, p95 ${g.p95GapMs.toFixed(1)} (answer ${g.meanAnswerMs.toFixed(1)} ms); ` +
    `hosts busy ${(g.busyShare * 100).toFixed(0)}%` +
    (r.boundShare === null ? '' : `, ${(r.boundShare * 100).toFixed(0)}% of the politeness bound over ${g.spanSecs.toFixed(2)} s`) +
    `, ≤${r.maxPerHostInFlight} conn/host`
  );
}

/** Markdown: per tool medians, then archiver ÷ wget. */
export function latencyTable(r: LatencyBenchResult): string[] {
  const rows = [
    '| tool | runs | URLs (covered/expected) | WARC errors | wall s | pages/s | mean gap ms | p50 / p95 gap ms | answer ms | hosts busy | share of bound |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const pps = new Map<string, number>();
  for (const tool of ['archiver', 'wget'] as const) {
    const runs = r.runs.filter((x) => x.tool === tool);
    if (runs.length === 0) continue;
    const m = (f: (x: LatencyRun) => number): number => median(runs.map(f));
    pps.set(tool, m((x) => x.warc.urls / x.wallSecs));
    const share = r.boundRps === null ? 'n/a (no bound at 0 ms)' : `${(m((x) => x.boundShare ?? NaN) * 100).toFixed(0)}%`;
    rows.push(
      `| ${tool} | ${runs.length} | ${m((x) => x.warc.urls)} (${Math.min(...runs.map((x) => x.warc.covered))}/${r.expected}) | ${runs.reduce((a, x) => a + x.warc.errors, 0)} | ` +
        `${m((x) => x.wallSecs).toFixed(2)} | ${pps.get(tool)!.toFixed(0)} | ${m((x) => x.gaps.meanGapMs).toFixed(1)} | ` +
        `${m((x) => x.gaps.p50GapMs).toFixed(1)} / ${m((x) => x.gaps.p95GapMs).toFixed(1)} | ${m((x) => x.gaps.meanAnswerMs).toFixed(1)} | ` +
        `${(m((x) => x.gaps.busyShare) * 100).toFixed(0)}% | ${share} |`,
    );
  }
  rows.push('');
  const a = pps.get('archiver');
  const w = pps.get('wget');
  if (a !== undefined && w !== undefined) rows.push(`- archiver/wget pages/s: **${(a / w).toFixed(2)}×**`);
  if (r.boundRps !== null) rows.push(`- politeness bound: ${r.openHosts} hosts ÷ ${r.opts.latencyMs} ms = ${r.boundRps.toFixed(0)} requests/s; share reached = requests ÷ span of the server's log ÷ bound`);
  rows.push(`- medians over runs; wget's pages include the robots-500 host's (it ignores a 500 robots.txt), archiver's do not`);
  return rows;
}

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      'latency-ms': { type: 'string', default: '20' },
      hosts: { type: 'string', default: '20' },
      pages: { type: 'string', default: '210' },
      'robots-500': { type: 'string', default: '1' },
      runs: { type: 'string', default: '3' },
      'wget-runs': { type: 'string', default: '1' },
      workers: { type: 'string', default: '40' },
      seed: { type: 'string', default: '1' },
      tools: { type: 'string', default: 'archiver,wget' },
      'max-retries': { type: 'string' },
      'retry-delay-ms': { type: 'string' },
      'cpu-prof-dir': { type: 'string' },
    },
  }, { usage: USAGE });
  const tools = values.tools.split(',').filter((t): t is 'archiver' | 'wget' => t === 'archiver' || t === 'wget');
  for (const latencyMs of values['latency-ms'].split(',').map(Number)) {
    const result = await runLatencyBench({
      hosts: Number(values.hosts),
      pagesPerHost: Number(values.pages),
      robots500Hosts: Number(values['robots-500']),
      latencyMs,
      runs: Number(values.runs),
      wgetRuns: Number(values['wget-runs']),
      workers: Number(values.workers),
      seed: Number(values.seed),
      tools,
      ...(values['max-retries'] === undefined ? {} : { maxRetries: Number(values['max-retries']) }),
      ...(values['retry-delay-ms'] === undefined ? {} : { retryDelayMs: Number(values['retry-delay-ms']) }),
      ...(values['cpu-prof-dir'] === undefined ? {} : { cpuProfDir: values['cpu-prof-dir'] }),
      log: (l) => console.log(l),
    });
    console.log(latencyTable(result).join('\n'));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
