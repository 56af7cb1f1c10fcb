/**
 * Errors of browser capture, each with a stable code. Only a Chromium that
 * cannot run at all stops the crawl (exit 6, see src/cli/exit-codes.ts); a
 * page whose render fails keeps its plain capture and gets a crawl.log
 * annotation with the code.
 */
import { ArchiverError } from '../core/errors.js';

/** `browser.enabled` is set and no Chromium can be started: the crawl does not begin. */
export class BrowserUnavailableError extends ArchiverError {
  readonly executable: string;
  constructor(executable: string, why: string, options?: { cause?: unknown }) {
    super(
      'ARCHIVER_BROWSER_UNAVAILABLE',
      `browser capture needs Chromium, and "${executable}" cannot run (${why}); install it with \`apt-get install chromium\` or set browser.executable`,
      options,
    );
    this.executable = executable;
  }
}

/** Codes a page's render can end with, as crawl.log annotations (`browserFailed:<code>`). */
export const RenderFailure = {
  /** Chromium died under the page twice (it was restarted each time). */
  crashed: 'ARCHIVER_BROWSER_CRASHED',
  /** The render threw for another reason (navigation refused, protocol error). */
  failed: 'ARCHIVER_BROWSER_RENDER_FAILED',
} as const;
export type RenderFailureCode = (typeof RenderFailure)[keyof typeof RenderFailure];

/** A render ended by Chromium going away (crash, kill): retried once on a restarted browser. */
export class BrowserCrashedError extends ArchiverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(RenderFailure.crashed, message, options);
  }
}
