/** crawl.log read back for assertions: one object per line, the fields tests look at. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface CrawlLogLine {
  status: number;
  /** The size column: body bytes of a capture (null for '-'). */
  bytes: number | null;
  url: string;
  /** Hop letters from the seed ("" for a seed). */
  hopPath: string;
  annotations: string[];
}

/** The lines of `<jobDir>/logs/crawl.log`. */
export async function crawlLogLines(jobDir: string): Promise<CrawlLogLine[]> {
  const text = await readFile(path.join(jobDir, 'logs', 'crawl.log'), 'utf8');
  return text.trim().split('\n').map((l) => {
    const f = l.trim().split(/\s+/);
    return { status: Number(f[1]), bytes: f[2] === '-' ? null : Number(f[2]), url: f[3]!, hopPath: f[4] === '-' ? '' : f[4]!, annotations: f[11] === '-' ? [] : f[11]!.split(',') };
  });
}
