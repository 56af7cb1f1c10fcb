/**
 * `npm run bench`: every benchmark in one run, printed and written to
 * bench/results.md. The crawl benchmark runs in this process (it serves the
 * fixture web and times archiver and wget as children); the seen-filter,
 * frontier and analyze benchmarks run as child processes of their own
 * compiled scripts, so each one's peak RSS is its own.
 *
 *   npm run bench                       # small sizes, a few minutes
 *   npm run bench -- --full             # issue sizes: uniq 1M and 10M keys, frontier 1M/10k hosts, PageRank 1M/10M
 *   npm run bench -- --only crawl,analyze --runs 5 --hosts 20 --pages 200 --out /tmp/results.md
 *   npm run bench -- --only search      # archive search: 100k pages, archiver's FTS5 index vs MiniSearch in memory
 *   npm run bench -- --only latency --latency-web-ms 0,20,50   # the preferential-attachment web (latency.ts)
 *   npm run bench -- --only focus       # focused vs breadth-first harvest on the labelled topical web (focus.ts) and on Debian's doc sites (focus-real.ts)
 *   npm run bench -- --only distributed  # 1-3 nodes on one Redis (distributed.ts); needs redis-server
 *   npm run bench -- --only sites --site pg=/usr/share/doc/postgresql-doc-15/html   # real sites behind nginx vs wget (real-sites.ts)
 *
 * Figures only: nothing here passes or fails on speed.
 */
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, refuseUsage } from './bench-args.js';
import { packageRoot } from '../src/core/package-root.js';
import { crawlTable, runCrawlBench, type CrawlBenchResult } from './crawl.js';
import { focusTable, runFocusBench } from './focus.js';
import { DOC_SITES, realFocusTable, runRealFocusBench } from './focus-real.js';
import { latencyTable, runLatencyBench } from './latency.js';
import { canRun, nodeStartLine, pickSites, runSites, siteTable, UnknownSiteError, type BenchSite, type SiteResult } from './real-sites.js';
import { formatThreadCpu } from './thread-cpu.js';

const USAGE = 'usage: node dist/bench/run.js [--full] [--only crawl,…] [--runs N] [--hosts N] [--pages N] [--workers N] [--wrk-secs S] [--latency-ms 0,20] [--latency-web-ms MS] [--site NAME[=ROOT] …] [--out FILE]';

const PARTS = ['sites', 'crawl', 'latency', 'focus', 'uniq', 'frontier', 'analyze', 'search', 'distributed'] as const;
type Part = (typeof PARTS)[number];

interface Section {
  title: string;
  lines: string[];
}

/** A sibling benchmark script (compiled .js next to this file, or .ts under tsx). */
function sibling(name: string): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const js = path.join(here, `${name}.js`);
  if (existsSync(js)) return [js];
  return ['--import', 'tsx', path.join(here, `${name}.ts`)];
}

/** Runs a child benchmark, echoing its output as it comes; returns its stdout lines. */
async function child(name: string, args: string[], extraNodeArgs: string[] = []): Promise<string[]> {
  const argv = [...extraNodeArgs, ...sibling(name), ...args];
  console.log(`$ node ${path.basename(argv.find((a) => a.includes(name)) ?? name)} ${args.join(' ')}`);
  const started = performance.now();
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    process.stdout.write(d);
  });
  const code = await new Promise<number>((resolve) => proc.on('close', (c) => resolve(c ?? -1)));
  const lines = out.trimEnd().split('\n');
  lines.push(`(exit ${code}, ${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()})`);
  return lines;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * Start-up, V8 compiling hot code and the WACZ at the end are paid once per
 * crawl and weigh on a 6,466-URL one. archiver alone on a web three times
 * larger gives what each further page costs, next to the average.
 */
async function perPageCost(small: CrawlBenchResult, workers: number): Promise<Section> {
  const big = await runCrawlBench({
    hosts: small.hosts,
    pagesPerHost: small.pagesPerHost * 3,
    runs: 1,
    workers,
    wrkSecs: 0,
    latencyMs: 0,
    tools: ['archiver'],
    log: (l) => console.log(l),
  });
  const ours = small.runs.filter((r) => r.tool === 'archiver');
  const smallCpu = median(ours.map((r) => r.cpuSecs));
  const smallPages = median(ours.map((r) => r.warc.urls));
  const run = big.runs[0]!;
  const marginalMs = ((run.cpuSecs - smallCpu) / (run.warc.urls - smallPages)) * 1000;
  return {
    title: `Crawl: fixed and per-page CPU (archiver, ${small.hosts} hosts × ${small.pagesPerHost} and × ${big.pagesPerHost} pages, server latency 0 ms)`,
    lines: [
      `- ${small.hosts}×${small.pagesPerHost}: ${smallPages} pages, ${smallCpu.toFixed(2)} CPU s (median), ${((smallCpu / smallPages) * 1000).toFixed(2)} CPU ms per page on average`,
      `- ${big.hosts}×${big.pagesPerHost}: ${run.warc.urls} pages (${run.warc.covered}/${big.expected} covered, ${run.warc.errors} WARC errors), ${run.wallSecs.toFixed(2)} s wall, ` +
        `${run.cpuSecs.toFixed(2)} CPU s, ${(run.warc.urls / run.wallSecs).toFixed(0)} pages/s, ${((run.cpuSecs / run.warc.urls) * 1000).toFixed(2)} CPU ms per page on average`,
      `- each page beyond the first ${smallPages}: **${marginalMs.toFixed(2)} CPU ms**; the rest of the smaller crawl's CPU, ${(smallCpu - (smallPages * marginalMs) / 1000).toFixed(1)} s, is paid once per crawl`,
    ],
  };
}

const loadavg = (): string => os.loadavg().map((l) => l.toFixed(1)).join(' ');
const block = (lines: string[]): string[] => ['```', ...lines, '```'];

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      full: { type: 'boolean', default: false },
      only: { type: 'string', default: PARTS.join(',') },
      runs: { type: 'string', default: '3' },
      hosts: { type: 'string', default: '20' },
      pages: { type: 'string', default: '200' },
      workers: { type: 'string', default: '40' },
      'wrk-secs': { type: 'string', default: '5' },
      'latency-ms': { type: 'string', default: '0,20' },
      'latency-web-ms': { type: 'string', default: '20' },
      out: { type: 'string' },
      site: { type: 'string', multiple: true, default: [] },
    },
  }, { usage: USAGE });
  const only = new Set(values.only.split(',').map((s) => s.trim()));
  const unknown = [...only].filter((p) => !(PARTS as readonly string[]).includes(p));
  // A command line the bench cannot use is one line and the usage, exit 2, before any part runs.
  const refuse = (line: string): void => refuseUsage(line, USAGE);
  if (unknown.length > 0) return refuse(`--only: unknown part ${unknown.join(', ')} (parts: ${PARTS.join(', ')})`);
  const want = (p: Part): boolean => only.has(p);
  let sites: BenchSite[] = [];
  try {
    if (want('sites')) sites = pickSites(values.site, (l) => console.log(l));
  } catch (e) {
    if (e instanceof UnknownSiteError) return refuse(e.message);
    throw e;
  }
  const full = values.full;
  const sections: Section[] = [];
  const started = new Date();

  if (want('sites') && canRun((l) => console.log(l))) {
    const results: SiteResult[] = await runSites(sites, Math.max(2, Number(values.runs)), (l) => console.log(l));
    const table = siteTable(results);
    const start = nodeStartLine();
    console.log(table.join('\n'));
    console.log(start);
    sections.push({
      title: 'Real sites behind nginx: archiver vs GNU wget (keep-alive, gzip, one connection, delays 0; best of alternating runs; GNU time)',
      lines: [
        'wget: `--recursive --level=inf --no-parent --page-requisites --warc-file`; archiver: 4 workers. Fixed costs are read off nginx\'s log (`$msec`); the one-page crawl is the front page alone (`node dist/bench/real-sites.js`).',
        '',
        ...table,
        '',
        `${start}. archiver's figures above include node's start without NODE_EXTRA_CA_CERTS (bin/archiver unsets it); wget's include none of it.`,
      ],
    });
    // What part of a crawl's page work is the JIT's warm-up (bench/cold-pages.ts): skipped without the PostgreSQL docs.
    sections.push({ title: 'Page work cold and warm: a fresh isolate\'s first pass over a real site against its third', lines: block(await child('cold-pages', [])) });
  }
  if (want('crawl')) {
    let instant: CrawlBenchResult | null = null;
    // Latency 0 measures raw processing; a real site answers after a round
    // trip, which is where crawling hosts in parallel pays (one run each there:
    // wget at 20 ms takes minutes).
    const latencies = values['latency-ms'].split(',').map(Number);
    for (const latencyMs of latencies) {
      const result = await runCrawlBench({
        hosts: Number(values.hosts),
        pagesPerHost: Number(values.pages),
        runs: latencyMs === 0 ? Number(values.runs) : 1,
        workers: Number(values.workers),
        wrkSecs: latencyMs === 0 ? Number(values['wrk-secs']) : 0,
        latencyMs,
        log: (l) => console.log(l),
      });
      const table = crawlTable(result);
      console.log(table.join('\n'));
      const perRun = result.runs.map(
        (r) =>
          `${r.tool.padEnd(8)} run ${r.run}: ${r.warc.urls} pages, ${r.wallSecs.toFixed(2)} s wall, ${r.cpuSecs.toFixed(2)} s CPU, ` +
          `${r.peakRssMB.toFixed(0)} MB, ${r.warc.errors} WARC errors, ${r.warc.missing} missing, exit ${r.exitCode}` +
          (r.threads ? `\n           CPU by thread: ${formatThreadCpu(r.threads)}` : ''),
      );
      sections.push({
        title: `Crawl throughput: archiver vs GNU wget (${result.hosts} hosts × ${result.pagesPerHost} pages, ${result.expected} reachable URLs, delays 0, one connection per host, server latency ${latencyMs} ms)`,
        lines: [...table, '', 'Per run (alternating):', '', ...block(perRun)],
      });
      if (latencyMs === 0) instant = result;
    }
    if (full && instant !== null) sections.push(await perPageCost(instant, Number(values.workers)));
  }
  if (want('latency')) {
    // Hosts kept busy when the server takes a realistic time to answer
    // (wget once per latency: at 20 ms it takes well over a minute).
    for (const latencyMs of values['latency-web-ms'].split(',').map(Number)) {
      const result = await runLatencyBench({
        hosts: Number(values.hosts),
        pagesPerHost: 210,
        robots500Hosts: 1,
        latencyMs,
        runs: Number(values.runs),
        wgetRuns: 1,
        workers: Number(values.workers),
        seed: 1,
        tools: ['archiver', 'wget'],
        log: (l) => console.log(l),
      });
      const table = latencyTable(result);
      console.log(table.join('\n'));
      const f = result.figures;
      sections.push({
        title: `Hosts kept busy: archiver vs GNU wget on a preferential-attachment web (${result.opts.hosts} hosts × 210 pages, one robots.txt answering 500, delays 0, one connection per host, server latency ${latencyMs} ms)`,
        lines: [
          `${f.pages} pages, ${f.links} links (${(f.sameHostShare * 100).toFixed(0)}% within a host), pages by depth from the seed ${f.depthHistogram.join('/')}; ${result.expected} URLs for a polite crawler (\`node dist/bench/latency.js\`)`,
          '',
          ...table,
        ],
      });
    }
  }
  if (want('focus')) {
    // The same page budget for both crawls; harvest judged by the pages' labels from the server's log.
    const result = await runFocusBench({ hosts: 12, pagesPerHost: 300, budgetShare: 0.2, workers: 25, topics: ['tea', 'astronomy'], runs: 1, log: (l) => console.log(l) });
    const table = focusTable(result);
    console.log(table.join('\n'));
    sections.push({
      title: `Focused crawling: harvest rate against breadth-first on the labelled topical web (12 hosts × 300 articles, 4 topics; page budget ${result.maxPages} of ${result.articles} pages, one connection per host)`,
      lines: [
        'Harvest: pages labelled with the topic ÷ labelled pages served 200, from the server\'s request log (never the crawler\'s own scores); focused crawls learn the topic from three training pages (`focus.training`), tf-idf, threshold 0.2, restrictHops 2 (`node dist/bench/focus.js`).',
        '',
        ...table,
      ],
    });
    // Real documentation sites (Debian's *-doc packages) served by nginx: labels from the files on disk.
    const real = await runRealFocusBench({ sites: DOC_SITES.map((d) => d.name), minMentions: [1, 3], focusExtra: {}, log: (l) => console.log(l) });
    const realTable = realFocusTable(real);
    console.log(realTable.join('\n'));
    sections.push({
      title: 'Focused crawling on real documentation sites, keywords alone and with three training URLs, against breadth-first (nginx on loopback, delay 0)',
      lines: [
        'Harvest: HTML pages with at least N of the topic\'s words (tags stripped from the file on disk, words counted; never archiver\'s code) ÷ HTML pages served 200, from nginx\'s access log; page budget = the number of relevant pages (`node dist/bench/focus-real.js`).',
        '',
        ...realTable,
      ],
    });
  }
  if (want('uniq')) {
    const lines: string[] = [];
    // Four batches in flight, as crawl workers keep them: writes of one overlap the checks of the next.
    for (const keys of full ? [1_000_000, 10_000_000] : [200_000]) lines.push(...(await child('uniq', ['--keys', String(keys), '--inflight', '4'], ['--expose-gc'])), '');
    sections.push({ title: 'Seen filter (LevelDB, batched check-and-insert) vs Set<string>', lines: block(lines) });
  }
  if (want('frontier')) {
    const [urls, hosts] = full ? ['1000000', '10000'] : ['100000', '1000'];
    sections.push({ title: 'Frontier (LevelDB work queues)', lines: block(await child('frontier', [urls, hosts])) });
  }
  if (want('analyze')) {
    const args = full
      ? ['--nodes', '1000000', '--edges', '10000000', '--graphology-nodes', '100000', '--graphology-edges', '1000000', '--warc-pages', '20000']
      : ['--nodes', '100000', '--edges', '1000000', '--graphology-nodes', '20000', '--graphology-edges', '200000', '--warc-pages', '2000'];
    sections.push({ title: 'Analyze: PageRank and WARC read throughput', lines: block(await child('analyze', args)) });
  }
  if (want('search')) {
    // 100k pages is the issue's size in both modes; each engine in a process of its own, so each peak RSS is its own.
    const lines: string[] = [];
    for (const engine of ['fts', 'minisearch']) lines.push(...(await child('search', ['--pages', '100000', '--engine', engine], ['--expose-gc'])), '');
    sections.push({ title: 'Archive search: SQLite FTS5 on disk (archiver) vs MiniSearch in memory, 100k pages of ~2 KB', lines: block(lines.filter((l) => !l.startsWith('result '))) });
  }
  if (want('distributed')) {
    const args = ['--hosts', values.hosts, '--pages', full ? values.pages : '100', '--latency-ms', values['latency-ms'], '--nodes', '1,2,3'];
    if (!full) args.push('--queued', '200000', '--seen', '1000000');
    sections.push({ title: 'A crawl of 1-3 processes on one Redis (pages/s, Redis per page, per queued and per seen URL)', lines: block(await child('distributed', args)) });
  }


  const md = [
    '# archiver benchmarks',
    '',
    `Written by \`npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` on ${started.toISOString()}: ` +
      `node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, load average at the end ${loadavg()}. ` +
      'Other work on the machine inflates wall times; CPU seconds are the steadier figure.',
    '',
    ...sections.flatMap((s) => [`## ${s.title}`, '', ...s.lines, '']),
  ].join('\n');
  const out = values.out ?? path.join(packageRoot(), 'bench', 'results.md');
  await fs.writeFile(out, md);
  console.log(`\nwritten to ${out}`);
}

await main();
