/**
 * Politeness as plain arithmetic, in one place (Heritrix's
 * DispositionProcessor): how long a host's queue sleeps after a fetch, how
 * long a server's Retry-After asks us to stay away, and how transport
 * failures are retried. Pure functions; the clock is passed in.
 */
import type { PolitenessOptions } from '../config/profile.js';
import type { Clock } from '../core/clock.js';

export type DelayOptions = Pick<
  PolitenessOptions,
  'delayFactor' | 'minDelayMs' | 'maxDelayMs' | 'respectCrawlDelayUpToSeconds' | 'maxPerHostBandwidthKBps'
>;

export interface FetchCost {
  /** Wall time of the fetch, request start to last body byte. */
  durationMs: number;
  /** Bytes received for the body. */
  bodyBytes: number;
}

/**
 * Milliseconds the host's queue waits before its next fetch:
 * clamp(delayFactor × durationMs, minDelayMs, maxDelayMs), raised to the
 * robots Crawl-delay (believed up to respectCrawlDelayUpToSeconds), raised to
 * what keeps the host under maxPerHostBandwidthKBps. Whole milliseconds,
 * rounded up so a cap is never overrun by a fraction.
 */
export function politenessDelayMs(fetch: FetchCost, crawlDelaySec: number | null, opts: DelayOptions): number {
  const durationMs = nonNegative(fetch.durationMs);
  // A misconfigured max below min must not yield a negative or inverted clamp.
  let waitMs = Math.min(Math.max(opts.delayFactor * durationMs, opts.minDelayMs), opts.maxDelayMs);

  if (crawlDelaySec !== null && Number.isFinite(crawlDelaySec) && crawlDelaySec > 0) {
    const believedSec = Math.min(crawlDelaySec, opts.respectCrawlDelayUpToSeconds);
    waitMs = Math.max(waitMs, believedSec * 1000);
  }

  if (opts.maxPerHostBandwidthKBps > 0) {
    // The transfer itself already took durationMs of the time the bytes are allowed.
    const budgetMs = (nonNegative(fetch.bodyBytes) / (opts.maxPerHostBandwidthKBps * 1024)) * 1000;
    waitMs = Math.max(waitMs, budgetMs - durationMs);
  }

  return Math.max(0, Math.ceil(waitMs));
}

function nonNegative(n: number): number {
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** How transport failures (-1 DNS, -2 connect, -3 lost, -4 timeout) are retried. */
export interface RetryOptions {
  /** Snooze of the host's queue after a transport failure. Heritrix: 900 s. */
  retryDelayMs: number;
  /** Attempts before the URI is given up. Heritrix: 30. */
  maxRetries: number;
  /** Longest Retry-After we honour; a server asking for a week gets this. Default 1 h. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  retryDelayMs: 900_000,
  maxRetries: 30,
  maxRetryAfterMs: 3_600_000,
});

const HTTP_DATE_START = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s/i;

/**
 * A Retry-After header (on 429/503) as milliseconds from `now`: delta-seconds
 * or an HTTP-date. A date already past means "now" (0). Negative numbers,
 * fractions and anything unparseable give null, i.e. "no instruction", so the
 * ordinary politeness delay applies. Capped at `maxMs`.
 */
export function retryAfterMs(
  value: string | undefined,
  now: number,
  maxMs: number = DEFAULT_RETRY_OPTIONS.maxRetryAfterMs,
): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, maxMs);
  // Date.parse accepts nearly anything ("1" is the year 2001); demand the weekday an HTTP-date starts with.
  if (!HTTP_DATE_START.test(text)) return null;
  // HTTP dates are always GMT; asctime form carries no zone and Date.parse would read it as local time.
  const at = Date.parse(/\b(GMT|UTC)\b|[+-]\d{4}$/i.test(text) ? text : `${text} GMT`);
  if (!Number.isFinite(at)) return null;
  return Math.min(Math.max(0, at - now), maxMs);
}

/**
 * The delay after an answer, raised to the server's Retry-After on a 429 or
 * 503 — honoured no longer than a robots Crawl-delay would be
 * (respectCrawlDelayUpToSeconds). The clock is read only when it matters.
 */
export function delayWithRetryAfterMs(
  delayMs: number,
  answer: { status: number; retryAfter: string | undefined },
  clock: Clock,
  opts: Pick<DelayOptions, 'respectCrawlDelayUpToSeconds'>,
): number {
  if (answer.status !== 429 && answer.status !== 503) return delayMs;
  const after = retryAfterMs(answer.retryAfter, clock.now());
  if (after === null) return delayMs;
  return Math.max(delayMs, Math.min(after, opts.respectCrawlDelayUpToSeconds * 1000));
}
