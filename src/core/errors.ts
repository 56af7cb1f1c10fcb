/**
 * One family of errors for the whole crawler. Every error carries a stable
 * `code` that callers and tests match on (never the message text), and the
 * original `cause` when it wraps another failure. The CLI is the only place
 * that turns these into exit codes.
 */
export class ArchiverError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The profile (or another input file) is invalid: exit code 3. */
export class ProfileError extends ArchiverError {
  /** JSON path of the (first) offending field, e.g. `/politeness/minDelayMs`. */
  readonly path: string;
  /** Every problem found, each at its JSON path (the message lists them too). */
  readonly problems: readonly { path: string; problem: string }[];
  constructor(path: string, message: string, options?: { cause?: unknown; problems?: readonly { path: string; problem: string }[] }) {
    super('ARCHIVER_INVALID_PROFILE', message, options);
    this.path = path;
    this.problems = options?.problems ?? [];
  }
}

/** The command line is wrong: exit code 2. */
export class UsageError extends ArchiverError {
  constructor(message: string) {
    super('ARCHIVER_USAGE', message);
  }
}

/** A failure that stops the whole crawl (disk full, state unreadable…): exit code 1. */
export class FatalCrawlError extends ArchiverError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * Codes of errors that stop the crawl when processing a URI meets them,
 * though their class is not FatalCrawlError: our own files and stores
 * failed, or were closed under a worker, so no URI can be processed. Each is
 * thrown by one module (named beside it); a new storage failure belongs
 * here or, better, is thrown as a FatalCrawlError.
 */
export const FATAL_CRAWL_CODES: ReadonlySet<string> = new Set([
  'ARCHIVER_FRONTIER_STORE_FAILED', // frontier/errors.ts
  'ARCHIVER_FRONTIER_CLOSED', // frontier/errors.ts
  'ARCHIVER_UNIQ_CLOSED', // uniq/uniq-filter.ts
  'ARCHIVER_JOURNAL_WRITE', // job/capture-journal.ts
  'ARCHIVER_JOURNAL_READ', // job/capture-journal.ts
  'ARCHIVER_WARC_CLOSED', // writer/warc-writer.ts
  'ARCHIVER_FILE_CLOSED', // writer/append-file.ts, writer/deflate-file.ts
]);

/** errno codes of a failing disk or file table: whatever wraps them, the crawl cannot go on. */
const FATAL_ERRNO_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EIO', 'EROFS', 'EDQUOT', 'EMFILE']);

/**
 * Whether an error met while processing one URI stops the whole crawl: our
 * own storage, not one URI's content. A FatalCrawlError, a code of
 * FATAL_CRAWL_CODES, an errno of a failing disk or a LevelDB error anywhere
 * in the cause chain, or something thrown that is not an Error at all.
 * Anything else (a FetchError, a parse failure) is one URI's problem.
 */
export function isFatalCrawlError(err: unknown): boolean {
  if (err instanceof FatalCrawlError) return true;
  if (err instanceof ArchiverError && FATAL_CRAWL_CODES.has(err.code)) return true;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = String((e as NodeJS.ErrnoException).code ?? '');
    if (FATAL_ERRNO_CODES.has(code) || code.startsWith('LEVEL_')) return true;
  }
  return !(err instanceof Error);
}

/** A command was given nothing it could read (no WARCs, no such profile file…): exit code 4. */
export class NoInputError extends ArchiverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_NO_INPUT', message, options);
  }
}

/**
 * A transport-level fetch failure, mapped to Heritrix's negative fetch status
 * codes (-1 DNS, -2 connect, -3 connection lost, -4 timeout, -5 other).
 * A 404 or 500 is a captured result, not an error; only these throw.
 */
export class FetchError extends ArchiverError {
  readonly fetchStatus: number;
  constructor(code: string, fetchStatus: number, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.fetchStatus = fetchStatus;
  }
}

/**
 * One record's body could not be turned into text (corrupt gzip, unknown
 * content-encoding, malformed chunking…). The analysis's reader catches it, warns with
 * file and offset, counts the record as skipped and goes on.
 */
export class BodyDecodeError extends ArchiverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_BODY_UNDECODABLE', message, options);
  }
}
