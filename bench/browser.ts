/**
 * Browser capture's cost on the JavaScript fixture web (test/browser/
 * js-web.ts, two hosts on loopback): `archiver run` as a child process,
 * plain and with 1, 2 and 4 tabs, no politeness delay. For each: wall time,
 * pages captured (2xx HTML lines of crawl.log) and pages/s, URIs captured,
 * CPU seconds of the crawl and its Chromium (user + system, reaped children
 * included), and the peak RSS of the whole process tree (the crawl and
 * every Chromium process), sampled from /proc every 100 ms.
 *
 *   node dist/bench/browser.js [--runs 1]
 *
 * Figures only: nothing here passes or fails on speed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './bench-args.js';
import { packageRoot } from '../src/core/package-root.js';
import { startJsWeb } from '../test/browser/js-web.js';
import { testProfileJson } from '../test/helpers/test-profile.js';

const USAGE = 'usage: node dist/bench/browser.js [--runs N]';

interface Row {
  mode: string;
  wallSec: number;
  pages: number;
  uris: number;
  cpuSec: number;
  peakRssMiB: number;
}

/** RSS (KiB) of `root` and all its descendants now. */
async function treeRssKiB(root: number): Promise<number> {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = await readFile(`/proc/${name}/status`, 'utf8');
      parent.set(Number(name), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    } catch {
      // Gone meanwhile.
    }
  }
  let total = 0;
  for (const [pid, kib] of rss) {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) {
      if (p === root) {
        total += kib;
        break;
      }
    }
  }
  return total;
}

async function runOnce(mode: string, tabs: number, dir: string, seed: string): Promise<Row> {
  const job = path.join(dir, mode);
  const profile = testProfileJson(mode.replace(/\W/g, '-'), [seed], job, {
    workers: 8,
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 1 },
    ...(tabs > 0 ? { browser: { enabled: true, executable: '/usr/bin/chromium', tabs } } : {}),
  });
  const file = path.join(dir, `${mode}.json`);
  await writeFile(file, JSON.stringify(profile));
  const bin = path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js');
  const started = performance.now();
  // GNU time: the crawl's CPU with its reaped children (Chromium) included.
  const child = spawn('/usr/bin/time', ['-f', '%U %S', process.execPath, bin, 'run', file, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let peak = 0;
  const sampler = setInterval(() => {
    if (child.pid !== undefined) void treeRssKiB(child.pid).then((k) => (peak = Math.max(peak, k)));
  }, 100);
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  clearInterval(sampler);
  const wallSec = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${mode}: exit ${code}\n${stderr}`);
  const [user, sys] = (stderr.trim().split('\n').at(-1) ?? '0 0').split(' ').map(Number);
  const log = (await readFile(path.join(job, 'logs', 'crawl.log'), 'utf8')).trim().split('\n').map((l) => l.trim().split(/\s+/));
  const captured = log.filter((f) => Number(f[1]) > 0);
  const pages = captured.filter((f) => Number(f[1]) >= 200 && Number(f[1]) < 300 && f[6] === 'text/html').length;
  return { mode, wallSec, pages, uris: captured.length, cpuSec: (user ?? 0) + (sys ?? 0), peakRssMiB: peak / 1024 };
}

export function browserTable(rows: readonly Row[]): string[] {
  const fmt = (n: number, d = 1): string => n.toFixed(d);
  return [
    '| crawl | wall s | pages | URIs | pages/s | CPU s | peak RSS MiB (crawl + Chromium) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.mode} | ${fmt(r.wallSec)} | ${r.pages} | ${r.uris} | ${fmt(r.pages / r.wallSec, 2)} | ${fmt(r.cpuSec)} | ${fmt(r.peakRssMiB, 0)} |`),
  ];
}

async function main(): Promise<void> {
  const { values } = benchArgs({ options: { runs: { type: 'string', default: '1' } } }, { usage: USAGE });
  const runs = Math.max(1, Number(values.runs) || 1);
  const rows: Row[] = [];
  for (let run = 0; run < runs; run++) {
    for (const [mode, tabs] of [['plain', 0], ['browser, 1 tab', 1], ['browser, 2 tabs', 2], ['browser, 4 tabs', 4]] as const) {
      // A fresh web each time: its request log and seen state start empty.
      const web = await startJsWeb();
      const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-bench-browser-'));
      try {
        rows.push(await runOnce(mode, tabs, dir, `${web.a}/`));
      } finally {
        await web.close();
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  console.log(browserTable(rows).join('\n'));
}

await main();
