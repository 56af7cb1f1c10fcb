/**
 * The last lines of a job's crawl.log, read backwards from its end a block
 * at a time (a log of millions of lines costs what its tail costs), parsed
 * into the fields the console shows. A line being written (no newline yet)
 * is left out. A crawl of several processes writes one log per node
 * (`crawl-<node>.log`): the job's tail merges every one by time.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { jobCrawlLogs } from '../job/job-dir.js';
import { parseCrawlLogLine, type LoggedLine } from '../writer/crawl-log.js';

const BLOCK_BYTES = 64 * 1024;

/** A line as the console shows it (the worker left out; the node that wrote it, in a crawl of several processes). */
export type CrawlLogLine = Omit<LoggedLine, 'worker'> & { node?: string };

/** The last `n` lines of every crawl.log of a job (one per node of a crawl of several processes), merged by time. */
export async function jobCrawlLogTail(jobDir: string, n: number): Promise<CrawlLogLine[]> {
  const logs = await jobCrawlLogs(jobDir);
  const tails = await Promise.all(
    logs.map(async (file) => {
      const node = /^crawl-(.+)\.log$/.exec(path.basename(file))?.[1];
      const lines = await crawlLogTail(file, n);
      return node === undefined ? lines : lines.map((l) => ({ ...l, node }));
    }),
  );
  if (tails.length === 1) return tails[0]!;
  // ISO times of one format sort as text; the sort is stable, so one node's lines keep their order.
  return tails.flat().sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0)).slice(-n);
}

/** Up to `n` last lines, oldest first; [] when there is no log. */
export async function crawlLogTail(file: string, n: number): Promise<CrawlLogLine[]> {
  if (n <= 0) return [];
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = (await fh.stat()).size;
    const blocks: Buffer[] = [];
    let newlines = 0;
    let at = size;
    // n + 1 newlines: the first line read is usually cut by the block boundary.
    while (at > 0 && newlines <= n) {
      const from = Math.max(0, at - BLOCK_BYTES);
      const block = Buffer.allocUnsafe(at - from);
      await fh.read(block, 0, block.length, from);
      for (const byte of block) if (byte === 0x0a) newlines++;
      blocks.unshift(block);
      at = from;
    }
    const text = Buffer.concat(blocks).toString('utf8');
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    let lines = complete.split('\n').slice(0, -1);
    // Read from mid-file: the first piece may be the end of an earlier line.
    if (at > 0) lines = lines.slice(1);
    const out: CrawlLogLine[] = [];
    for (const line of lines.slice(-n)) {
      const parsed = parseCrawlLogLine(line);
      if (parsed === null) continue;
      const { worker: _worker, ...shown } = parsed;
      out.push(shown);
    }
    return out;
  } finally {
    await fh.close();
  }
}
