// Politeness arithmetic: the snooze after a fetch, Retry-After, retry defaults.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETRY_OPTIONS, delayWithRetryAfterMs, politenessDelayMs, retryAfterMs, type DelayOptions } from '../../src/politeness/delay.js';

const HERITRIX: DelayOptions = {
  delayFactor: 5,
  minDelayMs: 3000,
  maxDelayMs: 30000,
  respectCrawlDelayUpToSeconds: 300,
  maxPerHostBandwidthKBps: 0,
};
const ZERO: DelayOptions = {
  delayFactor: 0,
  minDelayMs: 0,
  maxDelayMs: 0,
  respectCrawlDelayUpToSeconds: 0,
  maxPerHostBandwidthKBps: 0,
};

function fetched(durationMs: number, bodyBytes = 0) {
  return { durationMs, bodyBytes };
}

describe('politenessDelayMs', () => {
  it('multiplies the fetch duration by delayFactor between the clamps', () => {
    assert.equal(politenessDelayMs(fetched(1000), null, HERITRIX), 5000);
    assert.equal(politenessDelayMs(fetched(100), null, HERITRIX), 3000, 'raised to minDelayMs');
    assert.equal(politenessDelayMs(fetched(10_000), null, HERITRIX), 30000, 'cut to maxDelayMs');
    assert.equal(politenessDelayMs(fetched(0), null, HERITRIX), 3000);
  });

  it('is 0 when every setting is 0, whatever the fetch', () => {
    assert.equal(politenessDelayMs(fetched(5000, 10_000_000), null, ZERO), 0);
    assert.equal(politenessDelayMs(fetched(5000, 10_000_000), 10, ZERO), 0, 'crawl-delay believed up to 0 s');
  });

  it('a zero maxDelayMs caps the factor-based delay at 0 even with a factor', () => {
    assert.equal(politenessDelayMs(fetched(1000), null, { ...ZERO, delayFactor: 5 }), 0);
    assert.equal(politenessDelayMs(fetched(1000), null, { ...ZERO, delayFactor: 5, maxDelayMs: 60_000 }), 5000);
  });

  it('raises the wait to the robots Crawl-delay, believed only up to respectCrawlDelayUpToSeconds', () => {
    assert.equal(politenessDelayMs(fetched(1000), 10, HERITRIX), 10_000);
    assert.equal(politenessDelayMs(fetched(1000), 2, HERITRIX), 5000, 'a smaller crawl-delay does not shorten the wait');
    assert.equal(politenessDelayMs(fetched(1000), 1000, HERITRIX), 300_000, 'capped at 300 s, above maxDelayMs');
    assert.equal(politenessDelayMs(fetched(1000), 60, { ...HERITRIX, respectCrawlDelayUpToSeconds: 0 }), 5000);
    assert.equal(politenessDelayMs(fetched(0), 0.5, { ...ZERO, respectCrawlDelayUpToSeconds: 300 }), 500);
    assert.equal(politenessDelayMs(fetched(0), null, { ...ZERO, respectCrawlDelayUpToSeconds: 300 }), 0);
  });

  it('ignores a negative or non-finite crawl-delay', () => {
    assert.equal(politenessDelayMs(fetched(1000), -5, HERITRIX), 5000);
    assert.equal(politenessDelayMs(fetched(1000), Number.NaN, HERITRIX), 5000);
  });

  it('keeps the host under the bandwidth cap, counting the fetch time already spent', () => {
    const capped = { ...ZERO, maxPerHostBandwidthKBps: 10 };
    // 100 KiB at 10 KiB/s is 10 s of budget; 2 s went into the transfer itself.
    assert.equal(politenessDelayMs(fetched(2000, 100 * 1024), null, capped), 8000);
    assert.equal(politenessDelayMs(fetched(12_000, 100 * 1024), null, capped), 0, 'a slow transfer used its budget');
    // The larger of factor-based delay and bandwidth budget wins.
    const withFactor = { ...HERITRIX, delayFactor: 1, maxPerHostBandwidthKBps: 10 };
    assert.equal(politenessDelayMs(fetched(2000, 100 * 1024), null, withFactor), 8000);
    assert.equal(politenessDelayMs(fetched(2000, 10 * 1024), null, withFactor), 3000);
    // And a crawl-delay still beats both.
    assert.equal(politenessDelayMs(fetched(2000, 100 * 1024), 20, withFactor), 20_000);
  });

  it('leaves bandwidth alone when the cap is 0', () => {
    assert.equal(politenessDelayMs(fetched(0, 1e12), null, ZERO), 0);
  });

  it('rounds up to whole milliseconds so a cap is never overrun', () => {
    assert.equal(politenessDelayMs(fetched(3), null, { ...ZERO, delayFactor: 1.5, maxDelayMs: 100 }), 5);
    assert.equal(politenessDelayMs(fetched(0, 1), null, { ...ZERO, maxPerHostBandwidthKBps: 1 }), 1);
  });

  it('treats a negative duration (clock step) as 0', () => {
    assert.equal(politenessDelayMs(fetched(-500), null, HERITRIX), 3000);
  });
});

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);

  it('reads delta-seconds', () => {
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs(' 5 ', now), 5000);
    assert.equal(retryAfterMs('0', now), 0);
  });

  it('reads the three HTTP-date forms as GMT', () => {
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('Thursday, 01-Jan-26 00:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('Thu Jan  1 00:01:00 2026', now), 60_000, 'asctime has no zone and is GMT');
  });

  it('answers 0 for a date already past', () => {
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  });

  it('gives null for missing, negative, fractional or garbage values', () => {
    for (const value of [undefined, '', '-5', '1.5', 'soon', '1', 'Thu, nonsense', '2026-01-01T00:01:00Z']) {
      const expected = value === '1' ? 1000 : null;
      assert.equal(retryAfterMs(value, now), expected, String(value));
    }
  });

  it('caps what a server may ask for', () => {
    // The default cap is one hour (delay.ts, RetryOptions.maxRetryAfterMs).
    const ONE_HOUR_MS = 60 * 60 * 1000;
    assert.equal(retryAfterMs('999999', now), ONE_HOUR_MS);
    assert.equal(retryAfterMs('3599', now), 3_599_000, 'just below the cap is kept');
    assert.equal(retryAfterMs('Fri, 01 Jan 2027 00:00:00 GMT', now), ONE_HOUR_MS);
    assert.equal(retryAfterMs('600', now, 60_000), 60_000);
  });
});

describe('delayWithRetryAfterMs', () => {
  const at = (t: number) => ({ now: () => t });
  const capped = { respectCrawlDelayUpToSeconds: 300 };

  it('raises the delay to Retry-After on 429 and 503, up to the Crawl-delay cap', () => {
    assert.equal(delayWithRetryAfterMs(3000, { status: 429, retryAfter: '120' }, at(0), capped), 120_000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 503, retryAfter: '120' }, at(0), capped), 120_000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 503, retryAfter: '1000' }, at(0), capped), 300_000);
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    assert.equal(delayWithRetryAfterMs(0, { status: 503, retryAfter: date }, at(Date.parse(date) - 5000), capped), 5000);
  });

  it('never lowers the delay, and ignores Retry-After on other statuses or when unparseable', () => {
    assert.equal(delayWithRetryAfterMs(9000, { status: 429, retryAfter: '2' }, at(0), capped), 9000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 200, retryAfter: '120' }, at(0), capped), 3000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 500, retryAfter: '120' }, at(0), capped), 3000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 429, retryAfter: 'soon' }, at(0), capped), 3000);
    assert.equal(delayWithRetryAfterMs(3000, { status: 429, retryAfter: undefined }, at(0), capped), 3000);
  });
});

describe('RetryOptions defaults', () => {
  it("are Heritrix's: 900 s between transport retries, 30 attempts", () => {
    assert.equal(DEFAULT_RETRY_OPTIONS.retryDelayMs, 900_000);
    assert.equal(DEFAULT_RETRY_OPTIONS.maxRetries, 30);
    assert.equal(DEFAULT_RETRY_OPTIONS.maxRetryAfterMs, 3_600_000, 'one hour');
    assert.ok(Object.isFrozen(DEFAULT_RETRY_OPTIONS));
  });
});
