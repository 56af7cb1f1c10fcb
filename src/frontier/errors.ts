/**
 * Errors raised by the frontier. All are programming or state errors the
 * crawl loop cannot work around, so they carry stable codes for tests and
 * the CLI; none of them is a per-URI outcome.
 */
import { ArchiverError } from '../core/errors.js';

export const FrontierErrorCode = {
  /** schedule()/finished() after close(). */
  closed: 'ARCHIVER_FRONTIER_CLOSED',
  /** finished() with a claim this frontier did not hand out, or finished twice. */
  unknownClaim: 'ARCHIVER_FRONTIER_UNKNOWN_CLAIM',
  /** A URI whose URL cannot be parsed, or a queue key the store cannot hold. */
  badUri: 'ARCHIVER_FRONTIER_BAD_URI',
  /** A queue assignment or queue order name not in the table. */
  unknownPolicy: 'ARCHIVER_FRONTIER_UNKNOWN_POLICY',
  /** LevelDB refused a write: the crawl state is no longer trustworthy. */
  storeFailed: 'ARCHIVER_FRONTIER_STORE_FAILED',
  /** Options out of range (e.g. maxConnectionsPerHost < 1). */
  badOptions: 'ARCHIVER_FRONTIER_BAD_OPTIONS',
} as const;
export type FrontierErrorCode = (typeof FrontierErrorCode)[keyof typeof FrontierErrorCode];

export class FrontierError extends ArchiverError {
  constructor(code: FrontierErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
