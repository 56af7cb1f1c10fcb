/**
 * The error of a start that finds its job finished: its own module, so that
 * the CLI can know it without loading the crawl (run-command.ts loads the
 * crawl's modules only once its page thread is started).
 */
import { ArchiverError } from '../core/errors.js';

/** The job's last run ended FINISHED and `fresh` was not asked for: nothing was started. */
export class JobFinishedError extends ArchiverError {
  constructor(readonly dir: string) {
    super('ARCHIVER_JOB_FINISHED', `${dir} is a finished crawl (nothing left to crawl); run with --fresh to start over (the old job is moved aside)`);
  }
}
