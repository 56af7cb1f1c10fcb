/**
 * The speed history of a job that is not running, for the console's charts
 * (issue 28: a finished job's charts were empty; only a live crawl kept
 * samples). Read back from its crawl logs: captures (a positive status),
 * 2xx HTML pages and bytes counted per second, then summed into at most
 * MAX_POINTS equal buckets over the crawl's span (a resumed job's pause
 * between runs shows as zeros). Only the last MAX_READ_BYTES of each log are
 * read, so a huge job answers in bounded time (its chart then starts later).
 */
import { open } from 'node:fs/promises';
import { jobCrawlLogs } from '../job/job-dir.js';
import { parseCrawlLogLine } from '../writer/crawl-log.js';
import { linesFrom } from './line-reader.js';
import type { RateSample } from './rate-history.js';

const MAX_POINTS = 300;
const MAX_READ_BYTES = 64 * 1024 * 1024;

interface Second {
  uris: number;
  pages: number;
  bytes: number;
}

export async function historyFromLogs(jobDir: string): Promise<RateSample[]> {
  const bySecond = new Map<number, Second>();
  for (const log of await jobCrawlLogs(jobDir)) await countLog(log, bySecond);
  return buckets(bySecond);
}

async function countLog(file: string, bySecond: Map<number, Second>): Promise<void> {
  const fh = await open(file, 'r').catch(() => null);
  if (fh === null) return;
  try {
    const size = (await fh.stat()).size;
    const from = Math.max(0, size - MAX_READ_BYTES);
    let first = from > 0;
    for await (const { bytes } of linesFrom(fh, from, size)) {
      // Started mid-file: the first line is a piece of one.
      if (first) {
        first = false;
        continue;
      }
      const line = parseCrawlLogLine(bytes.toString('utf8'));
      if (line === null || line.status <= 0) continue;
      const sec = Math.floor(Date.parse(line.time) / 1000);
      if (!Number.isFinite(sec)) continue;
      const s = bySecond.get(sec) ?? { uris: 0, pages: 0, bytes: 0 };
      s.uris++;
      if (line.status >= 200 && line.status < 300 && line.mime === 'text/html') s.pages++;
      s.bytes += line.size ?? 0;
      bySecond.set(sec, s);
    }
  } finally {
    await fh.close();
  }
}

/** Per-second counts → at most MAX_POINTS samples of rates, each stamped at its bucket's end. */
function buckets(bySecond: Map<number, Second>): RateSample[] {
  if (bySecond.size === 0) return [];
  const secs = [...bySecond.keys()];
  const first = Math.min(...secs);
  const last = Math.max(...secs);
  const width = Math.max(1, Math.ceil((last - first + 1) / MAX_POINTS));
  const n = Math.ceil((last - first + 1) / width);
  const sums: Second[] = Array.from({ length: n }, () => ({ uris: 0, pages: 0, bytes: 0 }));
  for (const [sec, s] of bySecond) {
    const b = sums[Math.floor((sec - first) / width)]!;
    b.uris += s.uris;
    b.pages += s.pages;
    b.bytes += s.bytes;
  }
  return sums.map((b, i) => ({
    time: new Date((first + (i + 1) * width) * 1000).toISOString(),
    urisPerSec: round1(b.uris / width),
    pagesPerSec: round1(b.pages / width),
    kbPerSec: round1(b.bytes / 1024 / width),
  }));
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
