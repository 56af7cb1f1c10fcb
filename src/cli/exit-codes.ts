/**
 * Exit codes, and the one place errors become them. 0 success, 1 crawl
 * aborted by a fatal error, 2 usage error, 3 invalid profile, 4 no input,
 * 5 nothing crawled (no seed answered with a 2xx or 3xx), 6 browser
 * capture enabled and no Chromium can run.
 */
import { ArchiverError, NoInputError, ProfileError, UsageError } from '../core/errors.js';
import { BrowserUnavailableError } from '../browser/browser-errors.js';

export const ExitCode = {
  ok: 0,
  fatal: 1,
  usage: 2,
  invalidProfile: 3,
  noInput: 4,
  /** The crawl ran but no seed got a 2xx or 3xx answer. */
  nothingCrawled: 5,
  /** `browser.enabled` and no Chromium can be started (src/browser/chromium.ts). */
  browserUnavailable: 6,
  /** Interrupted by SIGINT/SIGTERM (128 + SIGINT), after a clean shutdown. */
  interrupted: 130,
} as const;

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return ExitCode.usage;
  if (err instanceof ProfileError) return ExitCode.invalidProfile;
  if (err instanceof NoInputError) return ExitCode.noInput;
  if (err instanceof BrowserUnavailableError) return ExitCode.browserUnavailable;
  return ExitCode.fatal;
}

/**
 * One line for the operator: `archiver: <message> [code]`; a message of
 * several lines (a profile's problems) keeps the code on its first.
 */
export function describeError(err: unknown): string {
  if (err instanceof ArchiverError) {
    const nl = err.message.indexOf('\n');
    return nl < 0 ? `archiver: ${err.message} [${err.code}]` : `archiver: ${err.message.slice(0, nl)} [${err.code}]${err.message.slice(nl)}`;
  }
  return `archiver: ${err instanceof Error ? err.message : String(err)}`;
}
