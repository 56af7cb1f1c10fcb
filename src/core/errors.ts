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
  /** JSON path of the offending field, e.g. `/politeness/minDelayMs`. */
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('ARCHIVER_INVALID_PROFILE', message, options);
    this.path = path;
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

/** Analysis was given nothing it could read: exit code 4. */
export class NoInputError extends ArchiverError {
  constructor(message: string) {
    super('ARCHIVER_NO_INPUT', message);
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
