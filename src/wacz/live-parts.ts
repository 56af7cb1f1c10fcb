/**
 * Which of the parts a crawl made as it went (live-package.ts) the end of
 * the crawl can take as they are: each only when it covers what the end
 * would otherwise read — the same journal, as many captures as its closing
 * summary counts, the same seeds and text cap.
 */
import { captureJournalPath } from '../job/job-dir.js';
import type { JournalSummary } from '../job/journal-summary.js';
import type { JournalPageOrder } from './journal-pages.js';
import type { LiveIndexLines } from './live-index.js';
import type { LivePageList } from './live-pages.js';

/** The crawl's index lines, when made from this job's one journal (its path, as many captures as its summary counts). */
export function usableLiveIndex(live: LiveIndexLines | undefined, jobDir: string, summary: JournalSummary | null): LiveIndexLines | null {
  if (live === undefined || summary === null) return null;
  return live.journal === captureJournalPath(jobDir) && live.captures === summary.captures ? live : null;
}

/**
 * The crawl's page list, when it is the list this job's one journal gives:
 * made from that journal (its path, as many captures as its summary
 * counts), whose captures came in package order, with the seeds and text
 * cap the end would use.
 */
export function usableLivePages(
  live: LivePageList | undefined,
  end: { jobDir: string; seeds: readonly string[]; maxTextChars: number },
  summary: JournalSummary | null,
  order: JournalPageOrder,
): LivePageList | null {
  if (live === undefined || summary === null || !order.ordered || order.borrowers.size > 0) return null;
  if (live.journal !== captureJournalPath(end.jobDir) || live.captures !== summary.captures || live.maxTextChars !== end.maxTextChars) return null;
  return live.seeds.length === end.seeds.length && live.seeds.every((s, i) => s === end.seeds[i]) ? live : null;
}
