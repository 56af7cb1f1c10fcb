/**
 * Shared by the hostile-web tests: a profile with small timeouts and no
 * politeness delays, one crawl with the hostile web's DNS, its WARCs and
 * crawl.log read back, and the process's peak RSS sampled while it ran.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import type { CrawlSummary } from '../../src/crawl/reports.js';
import type { HostileWeb } from '../fixtures/hostile-web.js';
import { captureIo } from '../helpers/capture.js';
import { readWarcDir, type ReadRecord } from '../helpers/warc-read.js';

export interface LogLine {
  status: number;
  size: string;
  url: string;
  hopPath: string;
  annotations: string[];
}

export interface HostileCrawl {
  summary: CrawlSummary;
  records: ReadRecord[];
  lines: LogLine[];
  /** Highest RSS seen during the crawl minus RSS just before it. */
  rssGrowthBytes: number;
  /** Highest memory held by this thread's ArrayBuffers (Buffers) during the crawl minus the amount just before it. */
  bufferGrowthBytes: number;
}

export async function tempRoot(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-hostile-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function hostileCrawl(web: HostileWeb, root: string, name: string, seeds: string[], extra: Record<string, unknown> = {}): Promise<HostileCrawl> {
  const { limits, scope, politeness, ...rest } = extra as { limits?: object; scope?: object; politeness?: object };
  const profile = validateProfile({
    name,
    seeds,
    userAgent: 'archiver-test/0.1 (+https://example.org/test)',
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, ...politeness },
    limits: { fetchTimeoutMs: 500, maxFetchDurationMs: 3000, maxRetries: 1, retryDelayMs: 10, ...limits },
    // An unavailable robots.txt is fetched twice in all, 20 ms apart, then its host is shut.
    robots: { unavailable: { retries: 1, retryDelayMs: 20 } },
    ...(scope ? { scope } : {}),
    workers: 8,
    output: { dir: path.join(root, name) },
    ...rest,
  }, name);
  const before = process.memoryUsage();
  let peak = before.rss;
  let peakBuffers = before.arrayBuffers;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.rss);
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
  }, 10);
  let summary: CrawlSummary;
  try {
    summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true, lookup: web.lookup });
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers);
  const records = await readWarcDir(path.join(profile.output.dir, 'warcs'));
  const log = await readFile(path.join(profile.output.dir, 'logs', 'crawl.log'), 'utf8');
  return { summary, records, lines: parseCrawlLog(log), rssGrowthBytes: peak - before.rss, bufferGrowthBytes: peakBuffers - before.arrayBuffers };
}

function parseCrawlLog(text: string): LogLine[] {
  return text.split('\n').filter(Boolean).map((line) => {
    const f = line.trim().split(/\s+/);
    return { status: Number(f[1]), size: f[2] ?? '', url: f[3] ?? '', hopPath: f[4] ?? '', annotations: (f[11] ?? '-') === '-' ? [] : (f[11] ?? '').split(',') };
  });
}

/** The crawl.log lines for one URL. */
export function linesFor(crawl: HostileCrawl, url: string): LogLine[] {
  return crawl.lines.filter((l) => l.url === url);
}

/** The response record for one URL (throws when missing). */
export function responseFor(crawl: HostileCrawl, url: string): ReadRecord {
  const r = crawl.records.find((rec) => rec.type === 'response' && rec.url === url);
  if (!r) throw new Error(`no response record for ${url}`);
  return r;
}
