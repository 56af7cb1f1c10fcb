/**
 * Errors of the analysis part. They join the one ArchiverError family so the
 * CLI can map them to exit codes and tests can match on `code`.
 */
import { ArchiverError } from '../core/errors.js';

/** PageRank did not reach the tolerance within max iterations: a result would be garbage, so exit 1. */
export class PageRankConvergenceError extends ArchiverError {
  readonly iterations: number;
  /** L1 change of the last iteration, to tell the user how far off it was. */
  readonly lastChange: number;
  constructor(iterations: number, lastChange: number, tolerance: number) {
    super(
      'ARCHIVER_PAGERANK_NOT_CONVERGED',
      `PageRank did not converge: L1 change ${lastChange.toExponential(3)} after ${iterations} iterations, ` +
        `tolerance ${tolerance}; raise --max-iterations or --tolerance`,
    );
    this.iterations = iterations;
    this.lastChange = lastChange;
  }
}

/** A WARC record whose HTTP head (status line, headers) cannot be parsed: skipped with a warning. */
export class BrokenRecordError extends ArchiverError {
  constructor(message: string) {
    super('ARCHIVER_WARC_RECORD_BROKEN', message);
  }
}

/**
 * A host-graph metric from graphology-metrics (PageRank, HITS) did not
 * converge within its iteration cap: exit 1 rather than print its guess.
 */
export class HostMetricConvergenceError extends ArchiverError {
  constructor(metric: string, cause: unknown) {
    super('ARCHIVER_HOST_METRIC_NOT_CONVERGED', `host ${metric} did not converge (${(cause as Error).message})`, { cause });
  }
}
