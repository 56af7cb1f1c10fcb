/**
 * Resume support: crawl.log is the durable record of what the crawl did, one
 * line per URI, so a resumed crawl rebuilds its statistics from it instead of
 * trusting a snapshot that a kill -9 may have left stale. A line cut by the
 * kill is removed first so the log continues cleanly.
 */
import { createReadStream } from 'node:fs';
import { open, stat, truncate } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { CrawlStats } from './crawl-stats.js';
import { HOST_UNREACHABLE, ROBOTS_UNAVAILABLE } from '../politeness/host-health.js';
import { BUDGET_EXCEEDED } from '../overrides/budgets.js';
import { droppedOutlinks } from './crawl-ledger.js';
import { hostOf } from '../url/hosts.js';
import { isStatsPage } from './uri-processor.js';
import { parseCrawlLogLine } from '../writer/crawl-log.js';

/** Failures logged by no worker (disposed of when found as links), not scope refusals. */
const CLOSED_HOST_ANNOTATIONS: ReadonlySet<string> = new Set([ROBOTS_UNAVAILABLE, HOST_UNREACHABLE, BUDGET_EXCEEDED]);

/** Cuts a trailing partial line (no final newline) off the log. */
export async function trimPartialLine(file: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return;
  }
  if (size === 0) return;
  const tailSize = Math.min(size, 64 * 1024);
  const tail = Buffer.alloc(tailSize);
  const fh = await open(file, 'r');
  try {
    await fh.read(tail, 0, tailSize, size - tailSize);
  } finally {
    await fh.close();
  }
  if (tail[tailSize - 1] === 0x0a) return;
  // A line longer than the tail window is cut whole: no crawl.log line is that long.
  const lastNewline = tail.lastIndexOf(0x0a);
  await truncate(file, lastNewline < 0 ? size - tailSize : size - tailSize + lastNewline + 1);
}

/** Feeds every line of an existing crawl.log into `stats` (and each capture to `onCapture`: the overrides' budgets); returns the line count. */
export async function replayCrawlLog(file: string, stats: CrawlStats, seeds: ReadonlySet<string>, onCapture?: (url: string, bytes: number) => void): Promise<number> {
  let lines = 0;
  let input;
  try {
    input = createReadStream(file, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => {
      input!.once('open', () => resolve());
      input!.once('error', reject);
    });
  } catch {
    return 0;
  }
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    const parsed = parseCrawlLogLine(line);
    if (parsed === null) continue;
    lines++;
    const { status, url, annotations } = parsed;
    const size = parsed.size ?? 0;
    const mime = parsed.mime ?? 'unknown';
    const host = hostOf(url) ?? '-';
    if (status > 0) {
      stats.captured(host, status, mime, size, annotations.includes('duplicate:digest'), isStatsPage(status, mime));
      onCapture?.(url, size);
      const capped = droppedOutlinks(annotations);
      if (capped > 0) stats.outlinksCapped(capped);
    }
    // Scope refusals are logged by no worker; so are URIs of a closed host found as links, which are failures.
    else if (parsed.worker === null && !CLOSED_HOST_ANNOTATIONS.has(annotations[0] ?? '')) stats.rejected(status);
    else stats.gaveUp(host, status);
    if (seeds.has(url)) stats.seeds.set(url, { url, status, redirect: null });
  }
  return lines;
}
