/**
 * What a finished job's reports (reports/*.json, written at the end of
 * every run) say, in the shapes the console's API answers with for a live
 * crawl: so a finished job is browsed like a running one.
 */
import { readFile } from 'node:fs/promises';
import type { QueueCounts } from '../crawl/crawl-status.js';
import { jobReportPath } from '../job/job-dir.js';
import type { ApiCrawlStatus, ApiHost, ApiQueue } from './api-shapes.js';
import { apiQueueState } from './api-shapes.js';

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function crawlReportPath(jobDir: string): string {
  return jobReportPath(jobDir, 'crawl-report.json');
}

/** The crawl report as written (an object), null when there is none. */
export async function reportJson(jobDir: string): Promise<Record<string, unknown> | null> {
  const raw = await readJson(crawlReportPath(jobDir));
  return raw === null ? null : obj(raw);
}

/** The end-of-crawl status of a job; null when it has no crawl report. */
export async function reportStatus(name: string, jobDir: string): Promise<ApiCrawlStatus | null> {
  const raw = await readJson(crawlReportPath(jobDir));
  if (raw === null) return null;
  const r = obj(raw);
  const queue = obj(r['queue']);
  const frontier = obj(await readJson(jobReportPath(jobDir, 'frontier-summary-report.json')));
  const byState = obj(frontier['queuesByState']);
  const queues: QueueCounts = {
    ready: num(byState['ready']),
    inProcess: num(byState['in-process']),
    snoozed: num(byState['snoozed']),
    inactive: num(byState['inactive']),
    retired: num(byState['retired']),
    exhausted: num(byState['exhausted']),
  };
  return {
    job: name,
    state: 'finished',
    endReason: typeof r['status'] === 'string' ? r['status'] : null,
    uris: num(r['uris']),
    pages: num(r['pages']),
    bytes: num(r['bytes']),
    errors: num(queue['error']),
    queued: num(queue['waiting']),
    inProcess: 0,
    disregarded: num(queue['disregarded']),
    queues,
    urisPerSec: num(r['urisPerSec']),
    kbPerSec: num(r['kbPerSec']),
    elapsedSec: num(r['elapsedSec']),
    runElapsedSec: num(r['runElapsedSec']),
    waiting: [],
  };
}

/** The queues as the last run left them. */
export async function reportQueues(jobDir: string): Promise<ApiQueue[]> {
  const frontier = obj(await readJson(jobReportPath(jobDir, 'frontier-summary-report.json')));
  const queues = Array.isArray(frontier['queues']) ? frontier['queues'] : [];
  return queues.map((q) => {
    const o = obj(q);
    return {
      key: String(o['key'] ?? ''),
      state: apiQueueState(String(o['state'] ?? '')),
      queued: num(o['queued']),
      fetched: num(o['finished']),
      errors: null,
      wakeAt: null,
    };
  });
}

/** The hosts report, in the live shape (no delays or waits: the crawl is over). */
export async function reportHosts(jobDir: string): Promise<ApiHost[]> {
  const raw = await readJson(jobReportPath(jobDir, 'hosts-report.json'));
  const hosts = Array.isArray(raw) ? raw : [];
  return hosts.map((h) => {
    const o = obj(h);
    const closed = o['closed'] === null || o['closed'] === undefined ? null : obj(o['closed']);
    return {
      host: String(o['host'] ?? ''),
      fetched: num(o['urls']),
      bytes: num(o['bytes']),
      errors: num(o['errors']),
      delayMs: null,
      robots: null,
      waiting: null,
      closed: closed === null ? null : { status: num(closed['status']), cause: String(closed['cause'] ?? '') },
    };
  });
}
