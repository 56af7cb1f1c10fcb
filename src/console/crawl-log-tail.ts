/**
 * The last lines of a job's crawl.log, read backwards from its end a block
 * at a time (a log of millions of lines costs what its tail costs), parsed
 * into the fields the console shows. A line being written (no newline yet)
 * is left out.
 */
import { open } from 'node:fs/promises';
import { parseCrawlLogLine, type LoggedLine } from '../writer/crawl-log.js';

const BLOCK_BYTES = 64 * 1024;

/** A line as the console shows it (the worker left out). */
export type CrawlLogLine = Omit<LoggedLine, 'worker'>;

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
