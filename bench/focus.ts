/**
 * Focused crawling: the harvest rate of a topic-focused crawl against
 * breadth-first's, on the labelled topical web (test/helpers/topical-web.ts),
 * with the same page budget (`limits.maxPages`, a share of the web).
 *
 * The web: N hosts (the six topic mixes of the fixture, cycled) × P
 * articles, tea and football in Chinese, astronomy and cooking in English.
 * archiver runs as a child process (`archiver run profile.json`), breadth-
 * first then focused, for each topic (three training pages of it, the
 * first of its articles) and each politeness setting: server latency 20 ms
 * and no delay (hosts the limit, as in the latency bench), and a 50 ms delay
 * with an answering server (the delay the limit). Harvest is judged by the
 * labels from the server's request log, never by the crawler's scores:
 * pages labelled with the topic ÷ labelled pages served 200, overall and at
 * each quarter of the budget; also the focus report's own figure, wall and
 * CPU time, and the most requests one host had in flight.
 *
 *   node dist/bench/focus.js [--hosts 12] [--pages 300] [--budget 0.2] [--workers 25] [--topics tea,astronomy] [--runs 1]
 *
 * Figures only.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs } from './bench-args.js';
import { harvestOf } from '../test/helpers/harvest.js';
import { startTopicalWeb, type StartedTopicalWeb, type TopicName } from '../test/helpers/topical-web.js';
import { archiverLauncher, timed } from './crawl.js';

const USAGE = 'usage: node dist/bench/focus.js [--hosts 12] [--pages 300] [--budget 0.2] [--workers 25] [--topics tea,astronomy] [--runs 1]';

export interface FocusBenchOpts {
  hosts: number;
  pagesPerHost: number;
  /** Page budget as a share of the web's pages. */
  budgetShare: number;
  workers: number;
  topics: readonly TopicName[];
  runs: number;
  log: (line: string) => void;
}

interface Setting {
  name: string;
  latencyMs: number;
  delayMs: number;
}

const SETTINGS: readonly Setting[] = [
  { name: 'latency 20 ms, delay 0', latencyMs: 20, delayMs: 0 },
  { name: 'latency 0, delay 50 ms', latencyMs: 0, delayMs: 50 },
];

export interface FocusRun {
  topic: TopicName;
  setting: string;
  mode: 'breadth-first' | 'focused';
  run: number;
  exitCode: number;
  pages: number;
  relevant: number;
  rate: number;
  /** The rate so far at each quarter of the pages fetched. */
  quarters: number[];
  /** The focus report's harvest rate (the crawler's own scores), focused runs only. */
  reported: number | null;
  wallSecs: number;
  cpuSecs: number;
  maxInFlightPerHost: number;
}

export interface FocusBenchResult {
  opts: FocusBenchOpts;
  articles: number;
  maxPages: number;
  topicShare: Record<string, number>;
  runs: FocusRun[];
}

export async function runFocusBench(opts: FocusBenchOpts): Promise<FocusBenchResult> {
  const runs: FocusRun[] = [];
  let articles = 0;
  let maxPages = 0;
  const topicShare: Record<string, number> = {};
  for (const setting of SETTINGS) {
    const web = await startTopicalWeb({ hosts: opts.hosts, pagesPerHost: opts.pagesPerHost, firstAddress: 60, latencyMs: setting.latencyMs });
    const labelled = [...web.labels.values()];
    articles = labelled.length;
    // robots.txt and a stylesheet per host count in maxPages too.
    maxPages = Math.round(opts.budgetShare * articles) + 2 * opts.hosts;
    for (const t of opts.topics) topicShare[t] = labelled.filter((l) => l === t).length / articles;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-focus-bench-'));
    try {
      for (const topic of opts.topics) {
        for (let run = 1; run <= opts.runs; run++) {
          for (const mode of ['breadth-first', 'focused'] as const) {
            const r = await crawlOnce(web, dir, { topic, mode, setting, maxPages, workers: opts.workers, run });
            runs.push(r);
            opts.log(`${topic} | ${setting.name} | ${mode} run ${run}: harvest ${r.rate.toFixed(3)} (${r.relevant}/${r.pages}), ${r.wallSecs.toFixed(1)} s, ${r.cpuSecs.toFixed(1)} CPU s, exit ${r.exitCode}`);
          }
        }
      }
    } finally {
      await web.server.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  return { opts, articles, maxPages, topicShare, runs };
}

async function crawlOnce(
  web: StartedTopicalWeb, dir: string,
  o: { topic: TopicName; mode: 'breadth-first' | 'focused'; setting: Setting; maxPages: number; workers: number; run: number },
): Promise<FocusRun> {
  const name = `${o.topic}-${o.mode}-${o.setting.delayMs}-${o.run}`;
  const training = [...web.labels].filter(([, l]) => l === o.topic).map(([u]) => u).slice(0, 3);
  const profile = {
    name,
    seeds: web.web.seeds,
    userAgent: 'archiver-bench/0.1 (+https://example.org/bench)',
    politeness: { delayFactor: 0, minDelayMs: o.setting.delayMs, maxDelayMs: o.setting.delayMs, maxConnectionsPerHost: 1 },
    limits: { maxPages: o.maxPages, fetchTimeoutMs: 30000, maxRetries: 1, retryDelayMs: 10 },
    workers: o.workers,
    output: { dir: path.join(dir, name) },
    ...(o.mode === 'focused' ? { focus: { training } } : {}),
  };
  const file = path.join(dir, `${name}.json`);
  await fs.writeFile(file, JSON.stringify(profile, null, 2));
  web.server.takeRequests();
  const t = await timed(archiverLauncher(), ['run', file, '--quiet'], dir);
  const h = harvestOf(web.server.takeRequests(), web.labels, o.topic, web.privateUrls, 1);
  const quarters = [1, 2, 3, 4].map((q) => h.curve[Math.max(0, Math.round((q / 4) * h.curve.length) - 1)]?.rate ?? 0);
  let reported: number | null = null;
  if (o.mode === 'focused') {
    const report = await fs.readFile(path.join(dir, name, 'reports', 'focus-report.json'), 'utf8').catch(() => null);
    reported = report === null ? null : (JSON.parse(report) as { harvestRate: number }).harvestRate;
  }
  return {
    topic: o.topic, setting: o.setting.name, mode: o.mode, run: o.run, exitCode: t.exitCode,
    pages: h.pages, relevant: h.relevant, rate: h.rate, quarters, reported,
    wallSecs: t.wallSecs, cpuSecs: t.cpuSecs, maxInFlightPerHost: h.maxInFlightPerHost,
  };
}

export function focusTable(r: FocusBenchResult): string[] {
  const rows = [
    '| topic (share of the web) | politeness | crawl | pages | harvest | at ¼ · ½ · ¾ of the budget | focus report | wall s | CPU s | max in flight per host |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const run of r.runs) {
    rows.push(
      `| ${run.topic} (${(r.topicShare[run.topic]! * 100).toFixed(0)}%) | ${run.setting} | ${run.mode}${r.opts.runs > 1 ? ` #${run.run}` : ''} | ${run.pages} | **${run.rate.toFixed(3)}** | ` +
        `${run.quarters.slice(0, 3).map((x) => x.toFixed(2)).join(' · ')} | ${run.reported === null ? '-' : run.reported.toFixed(3)} | ${run.wallSecs.toFixed(1)} | ${run.cpuSecs.toFixed(1)} | ${run.maxInFlightPerHost} |`,
    );
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = benchArgs({
    options: {
      hosts: { type: 'string', default: '12' },
      pages: { type: 'string', default: '300' },
      budget: { type: 'string', default: '0.2' },
      workers: { type: 'string', default: '25' },
      topics: { type: 'string', default: 'tea,astronomy' },
      runs: { type: 'string', default: '1' },
    },
  }, { usage: USAGE });
  const result = await runFocusBench({
    hosts: Number(values.hosts),
    pagesPerHost: Number(values.pages),
    budgetShare: Number(values.budget),
    workers: Number(values.workers),
    topics: values.topics.split(',') as TopicName[],
    runs: Number(values.runs),
    log: (l) => console.log(l),
  });
  console.log(`${result.articles} labelled pages, page budget ${result.maxPages} (maxPages)`);
  console.log(focusTable(result).join('\n'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
