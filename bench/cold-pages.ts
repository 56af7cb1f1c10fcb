/**
 * What a page costs the page thread's work (src/crawl/page-work.ts: content
 * decoding, the scan for links and text, the three WARC records, the
 * reply) cold and warm, on a real documentation site's own HTML files:
 * each page gzip-encoded as nginx sends it, the whole site worked three
 * times over in one fresh process. The first pass is what a crawl pays
 * (every page is worked once, by an isolate started for the crawl); the
 * third is the same code once V8 has compiled it. Their difference is the
 * JIT's warm-up, a fixed cost of each crawl that a site of a thousand small
 * pages cannot spread thin. CPU is the process's, so V8's compiler and GC
 * threads count; the fastest of `--runs` processes is kept per pass.
 *
 *   node dist/bench/cold-pages.js                                   # the PostgreSQL docs, if installed
 *   node dist/bench/cold-pages.js --site /usr/share/doc/git-doc --runs 3
 *
 * Figures only: nothing here passes or fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { gzipSync } from 'node:zlib';
import { pageReply, type PageRequest } from '../src/crawl/page-work.js';
import { sha1PayloadDigest } from '../src/fetch/payload-digest.js';

const USAGE = 'usage: node dist/bench/cold-pages.js [--site DIR] [--runs N]';

const DEFAULT_SITE = '/usr/share/doc/postgresql-doc-15/html';
const PASSES = 3;
/** Page counts at which the first pass is cut, to show where the cost falls. */
const STAGES = [100, 300];
/** nginx's gzip_comp_level by default. */
const NGINX_GZIP_LEVEL = 1;
const ORIGIN = 'http://127.0.0.1:8080';

interface PassFigures {
  /** CPU ms of the whole process for the pass, and per stage of it (pages up to STAGES[i], then the rest). */
  cpuMs: number;
  stageCpuMs: number[];
  wallMs: number;
}

/** Every .html file under `root`, in a stable order. */
function htmlFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.html')) out.push(file);
    }
  };
  walk(root);
  return out;
}

/** A capture of one file as nginx serves it: gzip-encoded, with nginx's headers. */
function captureOf(root: string, file: string): PageRequest {
  const target = `/${path.relative(root, file).split(path.sep).join('/')}`;
  const body = gzipSync(readFileSync(file), { level: NGINX_GZIP_LEVEL });
  return {
    exchange: {
      url: ORIGIN + target,
      requestHead: Buffer.from(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: archiver-bench\r\nAccept-Encoding: gzip\r\n\r\n`, 'latin1'),
      status: 200,
      statusText: 'OK',
      httpVersion: '1.1',
      responseHeaders: [
        ['Server', 'nginx'],
        ['Content-Type', 'text/html'],
        ['Transfer-Encoding', 'chunked'],
        ['Connection', 'keep-alive'],
        ['Content-Encoding', 'gzip'],
      ],
      truncated: null,
      payloadDigest: sha1PayloadDigest(body),
      ip: '127.0.0.1',
      startedAt: new Date(),
      durationMs: 1,
    },
    body,
    hopPath: 'L',
    via: `${ORIGIN}/`,
    version: '1.1',
    extraction: { mime: 'text/html', obeyMetaRobots: true, maxOutlinks: 6000 },
  };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Child: the site's pages worked PASSES times; one JSON line of PassFigures[]. */
async function runChild(root: string): Promise<void> {
  const captures = htmlFiles(root).map((file) => captureOf(root, file));
  const passes: PassFigures[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const started = process.cpuUsage();
    const t0 = performance.now();
    const stageCpuMs: number[] = [];
    let stageStart = process.cpuUsage();
    for (let i = 0; i < captures.length; i++) {
      await pageReply(captures[i]!);
      if (STAGES.includes(i + 1) || i + 1 === captures.length) {
        stageCpuMs.push(cpuMsSince(stageStart));
        stageStart = process.cpuUsage();
      }
    }
    passes.push({ cpuMs: cpuMsSince(started), stageCpuMs, wallMs: performance.now() - t0 });
  }
  process.stdout.write(`${JSON.stringify(passes)}\n`);
}

function main(): void {
  const { values } = benchArgs({ options: { site: { type: 'string', default: DEFAULT_SITE }, runs: { type: 'string', default: '3' } } }, { usage: USAGE });
  const root = values.site;
  if (!existsSync(root)) {
    console.log(`cold-pages: ${root} is not here (apt-get install postgresql-doc-15, or --site DIR); skipped`);
    return;
  }
  const pages = htmlFiles(root).length;
  if (pages === 0) {
    console.log(`cold-pages: no .html files under ${root}; skipped`);
    return;
  }
  let best: PassFigures[] | null = null;
  for (let run = 0; run < Number(values.runs); run++) {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', root], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (child.status !== 0) throw new Error(`cold-pages child failed: ${child.stderr}`);
    const passes = JSON.parse(child.stdout.trim().split('\n').pop()!) as PassFigures[];
    // Other load on the machine only ever adds time: the fastest process of each pass is kept.
    best = best === null ? passes : best.map((b, i) => (passes[i]!.cpuMs < b.cpuMs ? passes[i]! : b));
  }
  const perPage = (ms: number, n: number): string => (ms / n).toFixed(3);
  const cold = best![0]!;
  const warm = best![PASSES - 1]!;
  const bounds = [...STAGES.filter((s) => s < pages), pages];
  const stageNames = bounds.map((b, i) => `pages ${i === 0 ? 1 : bounds[i - 1]! + 1}–${b}`);
  console.log(`Page work cold and warm: ${pages} pages of ${root}, node ${process.version}, best of ${values.runs} processes`);
  console.log(`| pass | CPU s | CPU ms per page | wall ms per page | ${stageNames.map((s) => `${s}, CPU ms per page`).join(' | ')} |`);
  console.log(`|---|---|---|---|${stageNames.map(() => '---|').join('')}`);
  best!.forEach((p, i) => {
    const stages = p.stageCpuMs.map((ms, s) => perPage(ms, bounds[s]! - (s === 0 ? 0 : bounds[s - 1]!)));
    console.log(`| ${i + 1}${i === 0 ? ' (cold)' : ''} | ${(p.cpuMs / 1000).toFixed(2)} | ${perPage(p.cpuMs, pages)} | ${perPage(p.wallMs, pages)} | ${stages.join(' | ')} |`);
  });
  console.log(`cold ÷ warm: ${(cold.cpuMs / warm.cpuMs).toFixed(2)}×; warm-up ${((cold.cpuMs - warm.cpuMs) / 1000).toFixed(2)} CPU s over the site`);
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) await runChild(process.argv[childAt + 1]!);
else main();
