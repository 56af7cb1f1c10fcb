/**
 * Crawl throughput, archiver against GNU wget on the same loopback web.
 *
 * One deterministic fixture web (default 20 hosts × 200 pages) is served from
 * this process; archiver (`dist/src/cli/bin.js run`) and wget run as child
 * processes under /usr/bin/time, alternately, several runs each, with no
 * politeness delay and one connection per host (wget only ever has one
 * connection). The server's own request log shows the per-host concurrency
 * each tool really used. Every run's WARCs are read back with warcio and
 * checked against what the server sent: coverage of `expectedUrls()`, and
 * errors (unparseable files, records without their mandatory headers,
 * payload digests that do not match the payload, payloads that differ from
 * the server's bytes). The server's ceiling is measured with wrk on a
 * rotation of one host's reachable paths, on the same server.
 *
 *   node --import tsx bench/crawl.ts [--hosts 20] [--pages 200] [--runs 3] [--workers 40]
 *     [--tools archiver,wget] [--wrk-secs 5] [--cpu-prof-dir DIR]   (archiver under node --cpu-prof)
 *     [--node-flags "--flag …"]   (extra node/V8 flags for archiver only, for experiments)
 *
 * Figures only: nothing here asserts a speed.
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './bench-args.js';
import { WARCParser } from 'warcio';
import { FixtureWeb, type RequestLogEntry } from '../src/demo/fixture-web.js';
import { sha1PayloadDigest } from '../src/fetch/payload-digest.js';
import { packageRoot } from '../src/core/package-root.js';
import { formatThreadCpu, watchThreadCpu, type ThreadCpu } from './thread-cpu.js';

const USAGE = 'usage: node dist/bench/crawl.js [--hosts N] [--pages N] [--runs N] [--workers N] [--wrk-secs S] [--tools archiver,wget] [--latency-ms MS] [--node-flags FLAGS] [--cpu-prof-dir DIR]';

export interface CrawlBenchOpts {
  hosts: number;
  pagesPerHost: number;
  /** Runs of each tool, alternating archiver, wget, archiver, … */
  runs: number;
  /** archiver workers (connections stay one per host). */
  workers: number;
  /** Seconds of wrk load for the server ceiling (0 = skip). */
  wrkSecs: number;
  /** Which tools to run; default both. */
  tools?: readonly ('archiver' | 'wget')[];
  /** When set, archiver runs under `node --cpu-prof` and writes its .cpuprofile here. */
  cpuProfDir?: string;
  /** Extra node/V8 flags for the archiver process only (experiments). */
  nodeFlags?: readonly string[];
  /** Artificial per-request server latency, like a real site's round trip (default 0). */
  latencyMs?: number;
  log: (line: string) => void;
}

export interface WarcCheck {
  files: number;
  records: number;
  /** response + revisit records. */
  captures: number;
  /** Distinct URLs captured: the "pages archived" of the table (wget re-fetches a few). */
  urls: number;
  /** Distinct captured URLs that the fixture web says are reachable. */
  covered: number;
  missing: number;
  /** Captured URLs outside `expectedUrls().reachable`. */
  extra: number;
  /** Parse failures, missing mandatory headers, digest or payload mismatches. */
  errors: number;
  firstErrors: string[];
}

export interface CrawlRun {
  tool: 'archiver' | 'wget';
  run: number;
  exitCode: number;
  wallSecs: number;
  cpuSecs: number;
  peakRssMB: number;
  /** CPU seconds by thread (archiver only, Linux): main, the named worker threads, node's helpers. */
  threads?: ThreadCpu;
  requests: number;
  /** Largest number of requests to one host in flight at once, as the server saw it. */
  maxPerHostInFlight: number;
  warc: WarcCheck;
}

export interface CrawlBenchResult {
  hosts: number;
  pagesPerHost: number;
  expected: number;
  serverBytes: number;
  runs: CrawlRun[];
  /** Requests/s wrk got from the same server; null when wrk is absent or skipped. */
  ceilingRps: number | null;
  ceilingNote: string;
  loadBefore: number[];
  loadAfter: number[];
}

const TIME = '/usr/bin/time';
const WGET = '/usr/bin/wget';

/** What GNU time is asked to write (`-f`): wall, user and system seconds, peak RSS in KB. */
export const GNU_TIME_FORMAT = '%e %U %S %M';

/** The figures of GNU time's last line written with GNU_TIME_FORMAT: CPU is user + system, RSS in MiB. */
export function gnuTimeFigures(text: string): { wallSecs: number; cpuSecs: number; systemSecs: number; peakRssMB: number } {
  const [wall, user, sys, rssKB] = (text.trim().split('\n').pop() ?? '').split(/\s+/).map(Number);
  return { wallSecs: wall ?? NaN, cpuSecs: (user ?? NaN) + (sys ?? NaN), systemSecs: sys ?? NaN, peakRssMB: (rssKB ?? NaN) / 1024 };
}

/** What `archiver` runs: bin/archiver, the launcher that starts node with the CLI (package.json "bin"). */
export function archiverLauncher(): string {
  return path.join(packageRoot(), 'bin', 'archiver');
}

/** Runs a command under GNU time; returns exit code, wall and CPU seconds (user + system, and the system part), and peak RSS. */
export async function timed(
  cmd: string,
  args: string[],
  cwd: string,
  watchThreads = false,
  env?: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; wallSecs: number; cpuSecs: number; systemSecs: number; peakRssMB: number; stderr: string; threads?: ThreadCpu }> {
  const timeFile = path.join(cwd, `time-${process.hrtime.bigint()}.txt`);
  const child = spawn(TIME, ['-f', GNU_TIME_FORMAT, '-o', timeFile, cmd, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], ...(env ? { env } : {}) });
  const watch = watchThreads && child.pid !== undefined ? watchThreadCpu(child.pid, true) : null;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const threads = watch?.stop();
  const t = { exitCode, ...gnuTimeFigures(await fs.readFile(timeFile, 'utf8')), stderr };
  return threads && threads.byGroup.size > 0 ? { ...t, threads } : t;
}

/** What the crawl runs need of a served web. */
export interface CrawlTarget {
  readonly seeds: readonly string[];
  readonly origins: readonly string[];
}

/**
 * archiver on `web` with delays 0 and one connection per host; `limits`
 * overrides the profile's (one retry after 10 ms by default), `env` adds to
 * the child's environment.
 */
export async function runArchiver(
  web: CrawlTarget, dir: string, workers: number, cpuProfDir: string | undefined, nodeFlags: readonly string[],
  limits: Record<string, number> = {}, env?: NodeJS.ProcessEnv,
) {
  const profile = {
    name: 'bench',
    seeds: web.seeds,
    userAgent: 'archiver-bench/0.1 (+https://example.org/bench)',
    scope: { hosts: web.origins.map((o) => new URL(o).host) },
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 1 },
    limits: { fetchTimeoutMs: 30000, maxRetries: 1, retryDelayMs: 10, ...limits },
    // A robots.txt answering 500 (the latency web has such a host) is fetched again once, soon, then its host is shut.
    robots: { unavailable: { retries: 1, retryDelayMs: 100 } },
    workers,
    output: { dir: path.join(dir, 'job'), prefix: 'BENCH' },
  };
  const file = path.join(dir, 'profile.json');
  await fs.writeFile(file, JSON.stringify(profile, null, 2));
  // node refuses --cpu-prof in NODE_OPTIONS: the launcher passes these on the command line.
  const prof = cpuProfDir === undefined ? {} : { ARCHIVER_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${path.resolve(cpuProfDir)}` };
  // As a user runs it: the launcher (its node settings), extra node flags through NODE_OPTIONS.
  const nodeOptions = [process.env['NODE_OPTIONS'] ?? '', ...nodeFlags].filter((f) => f !== '').join(' ');
  const t = await timed(archiverLauncher(), ['run', file, '--quiet'], dir, true, { ...process.env, ...env, ...prof, NODE_OPTIONS: nodeOptions });
  return { ...t, warcDir: path.join(dir, 'job', 'warcs') };
}

/** GNU wget, recursive over `web`'s hosts, one request at a time, no wait. */
export async function runWget(web: CrawlTarget, dir: string) {
  const domains = web.origins.map((o) => new URL(o).hostname).join(',');
  const args = [
    '--recursive', '--level=inf', '--span-hosts', `--domains=${domains}`, '--page-requisites',
    '--wait=0', '--tries=2', '--timeout=30', '--no-verbose', `--directory-prefix=${path.join(dir, 'files')}`,
    `--warc-file=${path.join(dir, 'warcs', 'wget')}`, '--user-agent=wget-bench/1.21', ...web.seeds,
  ];
  await fs.mkdir(path.join(dir, 'warcs'));
  // wget exits 8 when some fetch answered an error status (the fixture's 404s): expected.
  const t = await timed(WGET, args, dir);
  return { ...t, warcDir: path.join(dir, 'warcs') };
}

/** Undoes HTTP/1.1 chunked transfer coding; returns the input when it is not well-formed chunks. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) return raw;
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return raw;
    if (size === 0) return Buffer.concat(parts);
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Reads every record back with warcio and checks it against the server's bytes. */
export async function checkWarcs(dir: string, web: Pick<FixtureWeb, 'bodyFor'>, reachable: ReadonlySet<string>): Promise<WarcCheck> {
  const c: WarcCheck = { files: 0, records: 0, captures: 0, urls: 0, covered: 0, missing: 0, extra: 0, errors: 0, firstErrors: [] };
  const fail = (msg: string): void => {
    c.errors++;
    if (c.firstErrors.length < 5) c.firstErrors.push(msg);
  };
  const urls = new Set<string>();
  const files = (await fs.readdir(dir)).filter((f) => /\.warc(\.gz)?$/.test(f)).sort();
  for (const name of files) {
    c.files++;
    try {
      for await (const rec of new WARCParser(createReadStream(path.join(dir, name)))) {
        c.records++;
        const h = rec.warcHeaders;
        if (!h.headers.get('WARC-Record-ID') || !h.headers.get('WARC-Date') || !rec.warcType) fail(`${name} record ${c.records}: mandatory header missing`);
        const payload = Buffer.from(await rec.readFully(false));
        if (rec.warcType !== 'response' && rec.warcType !== 'revisit') continue;
        c.captures++;
        const url = rec.warcTargetURI ?? '';
        urls.add(url);
        if (rec.warcType !== 'response') continue;
        const digest = h.headers.get('WARC-Payload-Digest');
        if (digest !== undefined && digest !== null && digest.toLowerCase() !== sha1PayloadDigest(payload).toLowerCase()) fail(`${url}: payload digest mismatch`);
        // wget stores a chunked body as received; compare its de-chunked bytes.
        const chunked = /chunked/i.test(rec.httpHeaders?.headers.get('Transfer-Encoding') ?? '');
        const body = chunked ? dechunk(payload) : payload;
        const sent = [web.bodyFor(url, true), web.bodyFor(url, false)];
        if (sent[0] !== undefined && !sent.some((b) => b !== undefined && b.equals(body))) fail(`${url}: payload differs from the server's bytes (${body.length} bytes)`);
      }
    } catch (err) {
      fail(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const u of urls) if (reachable.has(u)) c.covered++;
  c.urls = urls.size;
  c.missing = reachable.size - c.covered;
  c.extra = urls.size - c.covered;
  return c;
}

/** wrk on a rotation of one host's reachable paths (all hosts share this process's event loop). */
async function serverCeiling(web: FixtureWeb, reachable: readonly string[], secs: number, dir: string): Promise<{ rps: number | null; note: string }> {
  if (secs <= 0) return { rps: null, note: 'skipped' };
  if (!existsSync('/usr/bin/wrk')) return { rps: null, note: 'wrk not installed (apt-get install wrk)' };
  const origin = web.origins[0]!;
  const paths = reachable.filter((u) => u.startsWith(origin + '/')).map((u) => u.slice(origin.length));
  const lua = path.join(dir, 'paths.lua');
  await fs.writeFile(
    lua,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}\nlocal i = 0\n` +
      `request = function() i = i % #paths + 1; return wrk.format("GET", paths[i], {["Accept-Encoding"] = "gzip, deflate, br"}) end\n`,
  );
  const conns = web.origins.length;
  const out = await new Promise<string>((resolve) => {
    const child = spawn('/usr/bin/wrk', ['-t1', `-c${conns}`, `-d${secs}s`, '-s', lua, origin + '/'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('close', () => resolve(text));
  });
  web.takeRequests();
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  return { rps: m ? Number(m[1]) : null, note: `wrk -t1 -c${conns} -d${secs}s over ${paths.length} paths of one host` };
}

export function maxInFlight(requests: RequestLogEntry[]): number {
  let max = 0;
  for (const r of requests) if (r.inFlightAtStart > max) max = r.inFlightAtStart;
  return max;
}

export async function runCrawlBench(opts: CrawlBenchOpts): Promise<CrawlBenchResult> {
  const loadBefore = os.loadavg();
  const web = await FixtureWeb.start({ hosts: opts.hosts, pagesPerHost: opts.pagesPerHost, port: 0, latencyMs: opts.latencyMs ?? 0 });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-bench-crawl-'));
  try {
    const expected = web.expectedUrls().reachable;
    const reachable = new Set(expected);
    let serverBytes = 0;
    for (const u of expected) serverBytes += web.bodyFor(u)?.length ?? 0;
    opts.log(`crawl bench: ${opts.hosts} hosts × ${opts.pagesPerHost} pages, ${expected.length} reachable URLs (${(serverBytes / 1e6).toFixed(1)} MB as served gzip), ${opts.runs} runs each, server latency ${opts.latencyMs ?? 0} ms`);
    const ceiling = await serverCeiling(web, expected, opts.wrkSecs, tmp);
    opts.log(`  server ceiling: ${ceiling.rps === null ? ceiling.note : `${ceiling.rps.toFixed(0)} req/s (${ceiling.note})`}`);
    const runs: CrawlRun[] = [];
    for (let i = 1; i <= opts.runs; i++) {
      for (const tool of opts.tools ?? (['archiver', 'wget'] as const)) {
        const dir = await fs.mkdtemp(path.join(tmp, `${tool}-${i}-`));
        web.takeRequests();
        const t = tool === 'archiver' ? await runArchiver(web, dir, opts.workers, opts.cpuProfDir, opts.nodeFlags ?? []) : await runWget(web, dir);
        const requests = web.takeRequests();
        const warc = await checkWarcs(t.warcDir, web, reachable);
        const run: CrawlRun = { tool, run: i, exitCode: t.exitCode, wallSecs: t.wallSecs, cpuSecs: t.cpuSecs, peakRssMB: t.peakRssMB, requests: requests.length, maxPerHostInFlight: maxInFlight(requests), warc };
        if (t.threads) run.threads = t.threads;
        runs.push(run);
        opts.log(
          `  ${tool.padEnd(8)} run ${i}: exit ${t.exitCode}, ${warc.urls} URLs in ${warc.captures} captures (${warc.covered}/${expected.length} covered, ${warc.extra} extra), ` +
            `${t.wallSecs.toFixed(2)} s wall, ${t.cpuSecs.toFixed(2)} s CPU (${t.systemSecs.toFixed(2)} s system), ${t.peakRssMB.toFixed(0)} MB peak RSS, ` +
            `${warc.errors} WARC errors, ≤${run.maxPerHostInFlight} conn/host, load ${os.loadavg()[0]!.toFixed(1)}`,
        );
        if (run.threads) opts.log(`      CPU by thread: ${formatThreadCpu(run.threads)}`);
        for (const e of warc.firstErrors) opts.log(`      ${e}`);
        if (t.exitCode !== 0 && tool === 'archiver') opts.log(`      stderr: ${t.stderr.trim().split('\n').slice(-3).join(' | ')}`);
        // Kept until the end (the finally below): files deleted shortly before make the next run's slow to create (real-sites.ts, runSites).
      }
    }
    return { hosts: opts.hosts, pagesPerHost: opts.pagesPerHost, expected: expected.length, serverBytes, runs, ceilingRps: ceiling.rps, ceilingNote: ceiling.note, loadBefore, loadAfter: os.loadavg() };
  } finally {
    await web.close();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The markdown table: per tool medians over its runs, then the ratios. */
export function crawlTable(r: CrawlBenchResult): string[] {
  const rows: string[] = [
    '| tool | runs | pages archived (covered/expected) | WARC errors | wall s (median) | pages/s (median) | CPU s / 1000 pages | peak RSS MB | max conn/host |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const stats = new Map<string, { pps: number; cpuPer1k: number; rss: number }>();
  for (const tool of ['archiver', 'wget'] as const) {
    const runs = r.runs.filter((x) => x.tool === tool);
    if (runs.length === 0) continue;
    const pps = median(runs.map((x) => x.warc.urls / x.wallSecs));
    const cpuPer1k = median(runs.map((x) => (x.cpuSecs / x.warc.urls) * 1000));
    const rss = Math.max(...runs.map((x) => x.peakRssMB));
    stats.set(tool, { pps, cpuPer1k, rss });
    const pages = median(runs.map((x) => x.warc.urls));
    const covered = Math.min(...runs.map((x) => x.warc.covered));
    const errors = runs.reduce((a, x) => a + x.warc.errors, 0);
    rows.push(
      `| ${tool} | ${runs.length} | ${pages} (${covered}/${r.expected}) | ${errors} | ${median(runs.map((x) => x.wallSecs)).toFixed(2)} | ` +
        `${pps.toFixed(0)} | ${cpuPer1k.toFixed(2)} | ${rss.toFixed(0)} | ${Math.max(...runs.map((x) => x.maxPerHostInFlight))} |`,
    );
  }
  const a = stats.get('archiver');
  const w = stats.get('wget');
  rows.push('');
  if (a && w) {
    rows.push(`- archiver/wget pages/s: **${(a.pps / w.pps).toFixed(2)}×** (issue 23: ≥ 1.5× at 0 ms); CPU per page: ${(a.cpuPer1k / w.cpuPer1k).toFixed(2)}×; peak RSS: ${(a.rss / w.rss).toFixed(1)}×`);
  }
  if (a && r.ceilingRps !== null) {
    rows.push(`- server ceiling ${r.ceilingRps.toFixed(0)} req/s (${r.ceilingNote}); archiver reaches ${((a.pps / r.ceilingRps) * 100).toFixed(0)}% of it`);
  } else {
    rows.push(`- server ceiling: ${r.ceilingNote}`);
  }
  const threadRuns = r.runs.filter((x) => x.tool === 'archiver' && x.threads !== undefined);
  if (threadRuns.length > 0) {
    const groups = new Set(threadRuns.flatMap((x) => [...x.threads!.byGroup.keys()]));
    const perK = new Map([...groups].map((g) => [g, median(threadRuns.map((x) => ((x.threads!.byGroup.get(g) ?? 0) / x.warc.urls) * 1000))]));
    rows.push(`- where archiver's CPU goes (CPU s per 1000 pages by thread, median): ${formatThreadCpu({ byGroup: perK })}; "node helpers" are V8's GC and compiler threads and libuv's pool`);
  }
  rows.push(`- load average before ${r.loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${r.loadAfter.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
  return rows;
}

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      hosts: { type: 'string', default: '20' },
      pages: { type: 'string', default: '200' },
      runs: { type: 'string', default: '3' },
      workers: { type: 'string', default: '40' },
      'wrk-secs': { type: 'string', default: '5' },
      tools: { type: 'string', default: 'archiver,wget' },
      'cpu-prof-dir': { type: 'string' },
      'latency-ms': { type: 'string', default: '0' },
      'node-flags': { type: 'string', default: '' },
    },
  }, { usage: USAGE });
  const tools = values.tools.split(',').filter((t): t is 'archiver' | 'wget' => t === 'archiver' || t === 'wget');
  const result = await runCrawlBench({
    hosts: Number(values.hosts),
    pagesPerHost: Number(values.pages),
    runs: Number(values.runs),
    workers: Number(values.workers),
    wrkSecs: Number(values['wrk-secs']),
    tools,
    cpuProfDir: values['cpu-prof-dir'],
    latencyMs: Number(values['latency-ms']),
    nodeFlags: values['node-flags'].split(/\s+/).filter((f) => f !== ''),
    log: (l) => console.log(l),
  });
  console.log(crawlTable(result).join('\n'));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
