/**
 * archiver against GNU wget on real documentation sites served by nginx
 * (keep-alive, gzip), one connection, delays 0: wall time, CPU seconds and
 * peak RSS of each whole process (GNU time), the URIs each fetched (nginx's
 * access log), and archiver's fixed costs — from its start to its first
 * request and from the end of its last response to its exit, both read
 * off nginx's log (`$msec`, the moment the response was sent). The tools
 * run alternately, `--runs` times each; the best run of each is kept. A
 * one-page crawl (the site's front page alone) gives the floor of memory.
 *
 *   node dist/bench/real-sites.js                          # the Debian docs installed here
 *   node dist/bench/real-sites.js --site pg=/usr/share/doc/postgresql-doc-15/html --runs 3
 *
 * The sites are Debian packages (python3.11-doc, postgresql-doc-15, cmake-doc, git-doc);
 * one that is not installed is skipped with the package to install.
 * Figures only: nothing here passes or fails.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatThreadCpu, watchThreadCpu } from './thread-cpu.js';
import { archiverLauncher } from './crawl.js';

/** The Debian documentation sites tried by default: name, document root, the package that installs it. */
export const DEFAULT_SITES: readonly { name: string; root: string; pkg: string }[] = [
  { name: 'python3.11-doc', root: '/usr/share/doc/python3.11/html', pkg: 'python3.11-doc' },
  { name: 'postgresql-doc-15', root: '/usr/share/doc/postgresql-doc-15/html', pkg: 'postgresql-doc-15' },
  // Sphinx pages with their images, scripts and source texts: 3,893 URIs, the largest of the three.
  { name: 'cmake-doc', root: '/usr/share/doc/cmake-data/html', pkg: 'cmake-doc' },
  // A small site (221 URIs, pages of 38 KB on average): the fixed costs of a crawl weigh most here.
  { name: 'git-doc', root: '/usr/share/doc/git-doc', pkg: 'git-doc' },
];

export interface ToolRun {
  tool: 'archiver' | 'wget';
  wallSecs: number;
  cpuSecs: number;
  peakRssMB: number;
  /** Requests nginx logged for this run. */
  requests: number;
  /** Distinct request paths. */
  urls: Set<string>;
  /** archiver only: start of the process to its first request, and end of its last response to its exit. */
  startMs?: number;
  /** archiver only: its CPU seconds by thread (thread-cpu.ts), e.g. "main 1.6 s, arch-page 2.0 s, node helpers 0.7 s". */
  threads?: string;
  exitMs?: number;
  exitCode: number | null;
}

export interface SiteResult {
  name: string;
  archiver: ToolRun;
  wget: ToolRun;
  onePage: ToolRun;
}


async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function nginxPath(): string | null {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  return null;
}

/** nginx serving `root` on 127.0.0.1, keep-alive and gzip as Debian ships them, logging `$msec` per request. */
async function startNginx(root: string, work: string): Promise<{ origin: string; log: string; stop: () => void }> {
  const port = await freePort();
  const log = path.join(work, 'access.log');
  await writeFile(
    path.join(work, 'nginx.conf'),
    [
      `daemon off; master_process off; worker_processes 1; pid ${work}/nginx.pid; error_log ${work}/error.log;`,
      'events { worker_connections 256; }',
      'http {',
      '  include /etc/nginx/mime.types; default_type application/octet-stream; sendfile on; keepalive_requests 100000;',
      `  client_body_temp_path ${work}/b; proxy_temp_path ${work}/p; fastcgi_temp_path ${work}/f; uwsgi_temp_path ${work}/u; scgi_temp_path ${work}/s;`,
      "  log_format bench '$msec $status $request_uri';",
      `  access_log ${log} bench;`,
      '  gzip on; gzip_types text/css application/javascript text/plain application/json image/svg+xml;',
      `  server { listen 127.0.0.1:${port}; root ${root}; index index.html; }`,
      '}',
    ].join('\n'),
  );
  const child = spawn(nginxPath()!, ['-c', path.join(work, 'nginx.conf'), '-p', work], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { origin: `http://127.0.0.1:${port}`, log, stop: () => child.kill('SIGTERM') };
}

/** Runs `argv` under GNU time; returns wall, CPU, peak RSS, and when it started and ended (ms since the epoch). */
async function timed(argv: string[], cwd: string): Promise<{ wallSecs: number; cpuSecs: number; peakRssMB: number; startedAt: number; endedAt: number; exitCode: number | null; threads: string }> {
  const out = path.join(cwd, 'time.txt');
  const startedAt = Date.now();
  const child = spawn('/usr/bin/time', ['-f', '%e %U %S %M', '-o', out, ...argv], { cwd, stdio: 'ignore' });
  // The command under GNU time, read by thread from /proc (nothing off Linux).
  const watch = watchThreadCpu(child.pid!, true);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const threads = formatThreadCpu(watch.stop());
  const endedAt = Date.now();
  const [e, u, s, m] = (await readFile(out, 'utf8')).trim().split('\n').pop()!.split(/\s+/).map(Number) as [number, number, number, number];
  return { wallSecs: e, cpuSecs: u + s, peakRssMB: m / 1024, startedAt, endedAt, exitCode, threads };
}

async function logLines(log: string): Promise<{ msec: number; uri: string }[]> {
  const text = existsSync(log) ? await readFile(log, 'utf8') : '';
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const [msec, , uri] = l.split(' ');
      return { msec: Number(msec) * 1000, uri: uri ?? '' };
    });
}

async function runTool(tool: 'archiver' | 'wget', site: { origin: string; log: string }, work: string, onePage = false): Promise<ToolRun> {
  const dir = await mkdtemp(path.join(work, `${tool}-`));
  await writeFile(site.log, '');
  let argv: string[];
  if (tool === 'wget') {
    argv = ['wget', '-q', '--recursive', '--level=inf', '--no-parent', '--page-requisites', '--warc-file=site', `${site.origin}/`];
  } else {
    const host = new URL(site.origin).host;
    const profile = {
      name: 'site',
      seeds: [`${site.origin}/`],
      userAgent: 'archiver-bench/0.1 (+https://example.org/bench)',
      from: 'bench@example.org',
      scope: { hosts: [host], maxHops: onePage ? 0 : 100 },
      politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 1 },
      workers: 4,
      output: { dir: path.join(dir, 'job') },
    };
    await writeFile(path.join(dir, 'profile.json'), JSON.stringify(profile));
    argv = [archiverLauncher(), 'run', path.join(dir, 'profile.json'), '--quiet'];
  }
  const t = await timed(argv, dir);
  // nginx writes its log line as it finishes a request; give it a moment.
  await new Promise((r) => setTimeout(r, 100));
  const lines = await logLines(site.log);
  const run: ToolRun = { tool, wallSecs: t.wallSecs, cpuSecs: t.cpuSecs, peakRssMB: t.peakRssMB, requests: lines.length, urls: new Set(lines.map((l) => l.uri)), exitCode: t.exitCode };
  if (tool === 'archiver' && t.threads !== '') run.threads = t.threads;
  if (tool === 'archiver' && lines.length > 0) {
    run.startMs = lines[0]!.msec - t.startedAt;
    run.exitMs = t.endedAt - lines[lines.length - 1]!.msec;
  }
  await rm(dir, { recursive: true, force: true });
  return run;
}

const best = (runs: ToolRun[]): ToolRun => runs.reduce((a, b) => (b.wallSecs < a.wallSecs ? b : a));

export async function runSiteBench(site: { name: string; root: string }, runs: number, log: (line: string) => void): Promise<SiteResult> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'archiver-sites-'));
  await mkdir(work, { recursive: true });
  const server = await startNginx(site.root, work);
  try {
    const all: ToolRun[] = [];
    for (let i = 0; i < runs; i++) {
      for (const tool of ['archiver', 'wget'] as const) {
        const r = await runTool(tool, server, work);
        log(`${site.name} ${tool} run ${i + 1}: ${r.wallSecs.toFixed(2)} s wall, ${r.cpuSecs.toFixed(2)} s CPU, ${r.peakRssMB.toFixed(0)} MB, ${r.requests} requests, exit ${r.exitCode}`);
        if (r.threads !== undefined) log(`    CPU by thread: ${r.threads}`);
        all.push(r);
      }
    }
    const onePage = await runTool('archiver', server, work, true);
    return { name: site.name, archiver: best(all.filter((r) => r.tool === 'archiver')), wget: best(all.filter((r) => r.tool === 'wget')), onePage };
  } finally {
    server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

export function siteTable(results: readonly SiteResult[]): string[] {
  const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');
  const lines = [
    '| site | URIs archiver / wget (same set) | wall archiver / wget | CPU archiver / wget | peak RSS archiver / wget | start → 1st request | last response → exit | one-page crawl |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const a = r.archiver;
    const w = r.wget;
    const same = a.urls.size === w.urls.size && [...a.urls].every((u) => w.urls.has(u));
    lines.push(
      `| ${r.name} | ${a.requests} / ${w.requests} (${same ? 'yes' : 'no'}) | ${a.wallSecs.toFixed(2)} s / ${w.wallSecs.toFixed(2)} s (${ratio(a.wallSecs, w.wallSecs)}) | ` +
        `${a.cpuSecs.toFixed(2)} s / ${w.cpuSecs.toFixed(2)} s (${ratio(a.cpuSecs, w.cpuSecs)}) | ${a.peakRssMB.toFixed(0)} MB / ${w.peakRssMB.toFixed(0)} MB | ` +
        `${(a.startMs ?? NaN).toFixed(0)} ms | ${(a.exitMs ?? NaN).toFixed(0)} ms | ${r.onePage.wallSecs.toFixed(2)} s, ${r.onePage.peakRssMB.toFixed(0)} MB |`,
    );
  }
  return lines;
}

/** The sites given (`name=root`), or the default ones installed here. */
export function pickSites(specs: readonly string[], log: (line: string) => void): { name: string; root: string }[] {
  if (specs.length > 0) return specs.map((s) => ({ name: s.split('=')[0]!, root: s.split('=').slice(1).join('=') }));
  return DEFAULT_SITES.filter((s) => {
    if (existsSync(s.root)) return true;
    log(`skipping ${s.name}: not installed (apt-get install ${s.pkg})`);
    return false;
  });
}

export function canRun(log: (line: string) => void): boolean {
  const missing = [nginxPath() === null ? 'nginx' : null, existsSync('/usr/bin/time') ? null : 'time', spawnSync('wget', ['--version']).status === 0 ? null : 'wget'].filter((x) => x !== null);
  if (missing.length > 0) log(`real-site bench skipped: needs ${missing.join(', ')} (apt-get install ${missing.join(' ')})`);
  return missing.length === 0;
}

/** CPU seconds of `node -e 0` under GNU time with `env`: the best of three. */
function nodeStartCpu(env: NodeJS.ProcessEnv): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, '-e', '0'], { env, encoding: 'utf8' });
    const [u, s] = r.stderr.trim().split('\n').pop()!.split(/\s+/).map(Number) as [number, number];
    best = Math.min(best, u + s);
  }
  return best;
}

/**
 * What node itself costs to start here, before any of archiver's code: part
 * of every archiver figure below and of none of wget's. A machine that sets
 * NODE_EXTRA_CA_CERTS (this sandbox does) makes node parse that bundle of
 * certificates at every start.
 */
export function nodeStartLine(): string {
  const withEnv = nodeStartCpu(process.env);
  const extra = process.env['NODE_EXTRA_CA_CERTS'];
  if (extra === undefined || extra === '') return `node's own start here: ${withEnv.toFixed(2)} s CPU`;
  const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
  return `node's own start here: ${withEnv.toFixed(2)} s CPU with NODE_EXTRA_CA_CERTS=${extra} set in the environment, ${nodeStartCpu(without).toFixed(2)} s without it`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { site: { type: 'string', multiple: true, default: [] }, runs: { type: 'string', default: '2' } } });
  const log = (l: string): void => console.log(l);
  if (!canRun(log)) return;
  log(nodeStartLine());
  const results: SiteResult[] = [];
  for (const site of pickSites(values.site, log)) results.push(await runSiteBench(site, Number(values.runs), log));
  console.log(siteTable(results).join('\n'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
