/**
 * What the operator is told when a crawl stops on its own failure rather
 * than the web's: a full disk says so plainly, with how to resume (the
 * state is kept), whichever layer met it first.
 */
import { ArchiverError, FatalCrawlError } from '../core/errors.js';

/** The one error the operator sees when a crawl stops on its own failure. */
export function asFatal(err: unknown, jobRoot: string): ArchiverError {
  if (isDiskFull(err)) {
    return new FatalCrawlError('ARCHIVER_DISK_FULL', `disk full under ${jobRoot}: crawl stopped, state kept; free space and run the same command again to resume`, { cause: err });
  }
  if (err instanceof ArchiverError) return err;
  return new FatalCrawlError('ARCHIVER_CRAWL_FAILED', `crawl aborted: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/**
 * Whether a failure is the disk filling up, however the layer that met it
 * says so: node's ENOSPC, LevelDB's message (`IO error: …: No space left on
 * device`), SQLite's SQLITE_FULL (`database or disk is full`).
 */
export function isDiskFull(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'SQLITE_FULL' || DISK_FULL_TEXTS.some((t) => e.message.includes(t))) return true;
  }
  return false;
}

const DISK_FULL_TEXTS = ['No space left on device', 'database or disk is full'];
