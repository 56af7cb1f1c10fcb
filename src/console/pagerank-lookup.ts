/**
 * A page's PageRank when the job has been analysed with
 * `archiver analyze <job> --out <job>/analysis`: its line in
 * analysis/pagerank.csv (`rank,id,score,url`, best first). The file is
 * scanned until the URL is found — a file of a million pages is read in
 * well under a second, and nothing is held.
 */
import path from 'node:path';
import { fileLines } from '../core/file-lines.js';
import { jobAnalysisDir } from '../job/job-dir.js';

export interface PageRankOf {
  /** 1 = the highest score in the job. */
  rank: number;
  score: number;
}

export function pagerankPath(jobDir: string): string {
  return path.join(jobAnalysisDir(jobDir), 'pagerank.csv');
}

/** The URL's rank and score; null when the job was not analysed or the URL is not a page of its graph. */
export async function pagerankOf(jobDir: string, url: string): Promise<PageRankOf | null> {
  let lines;
  try {
    lines = fileLines(pagerankPath(jobDir));
    for await (const batch of lines) {
      for (const line of batch) {
        const third = nthComma(line, 3);
        if (third < 0 || csvValue(line.slice(third + 1)) !== url) continue;
        const [rank, , score] = line.slice(0, third).split(',');
        return { rank: Number(rank), score: Number(score) };
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return null;
}

function nthComma(line: string, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = line.indexOf(',', at + 1);
    if (at < 0) return -1;
  }
  return at;
}

/** An RFC 4180 field (quoted when it holds a comma, quote or line break). */
function csvValue(field: string): string {
  return field.startsWith('"') && field.endsWith('"') ? field.slice(1, -1).replaceAll('""', '"') : field;
}
