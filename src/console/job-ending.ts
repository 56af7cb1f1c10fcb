/**
 * What ended a job, in the words the console's jobs list shows (issue 28:
 * it said FINISHED for a job that archived nothing and for jobs a limit
 * stopped, which can be resumed). Read from the crawl report's status and
 * seeds; a job without a report was killed (a resume goes on with it).
 */
export type JobEnding = 'finished' | 'nothing crawled' | 'limit reached' | 'interrupted' | 'aborted';

/** The ending of a report's `status` and `seeds` (as crawl-report.json holds them); `interrupted` without a report. */
export function jobEnding(report: Record<string, unknown> | null): JobEnding {
  if (report === null) return 'interrupted';
  const status = typeof report['status'] === 'string' ? report['status'] : '';
  if (status.endsWith('_LIMIT')) return 'limit reached';
  // Ctrl-C or SIGTERM: stopped cleanly, resumed by the same command.
  if (status === 'ABORTED') return 'interrupted';
  if (status.startsWith('ABORTED')) return 'aborted';
  return anySeedReached(report['seeds']) ? 'finished' : 'nothing crawled';
}

/** Whether a job with this ending goes on when `archiver run` is given its profile again. */
export function resumable(ending: JobEnding): boolean {
  return ending === 'limit reached' || ending === 'interrupted' || ending === 'aborted';
}

/** The rule `archiver run` exits 5 by: no seed got a 2xx or 3xx. A report without seeds (a node's) counts as reached. */
function anySeedReached(seeds: unknown): boolean {
  if (!Array.isArray(seeds) || seeds.length === 0) return true;
  return seeds.some((s) => {
    const status = (s as { status?: unknown } | null)?.status;
    return typeof status === 'number' && status >= 200 && status < 400;
  });
}
