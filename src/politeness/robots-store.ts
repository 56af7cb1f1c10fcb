/**
 * Robots state per origin (`scheme://host:port`), so robots.txt is fetched
 * once per host (single-flight: `missing` → markPending → record → `ready`)
 * and re-fetched when it goes stale. The fetch itself goes through the
 * frontier as a prerequisite; this store only remembers what came back.
 *
 * Outcomes (RFC 9309): 2xx → the file's rules; 3xx (redirects are not
 * followed here) and 4xx → allow all; 5xx, 429, anything stranger, or an
 * unreachable server → disallow all, kept only briefly so the host is
 * re-tried soon instead of being shut out for a day.
 */
import { ALLOW_ALL, DISALLOW_ALL, parseRobotsTxt, type RobotsRules } from './robots-rules.js';

export interface RobotsStoreOptions {
  /** A fetched robots.txt is re-fetched after this long. Default 24 h. */
  refreshAfterMs: number;
  /** An unavailable robots.txt (5xx, unreachable) is re-tried after this long. Default 5 min. */
  unavailableRetryAfterMs: number;
  /** Bytes of robots.txt parsed; the rest is cut. Default 500 KiB (Heritrix, RFC 9309 asks ≥ 500 KiB). */
  maxBodyBytes: number;
}

export const DEFAULT_ROBOTS_STORE_OPTIONS: Readonly<RobotsStoreOptions> = Object.freeze({
  refreshAfterMs: 24 * 3600 * 1000,
  unavailableRetryAfterMs: 5 * 60 * 1000,
  maxBodyBytes: 500 * 1024,
});

export type RobotsFetchResult = { kind: 'fetched'; status: number; body: Buffer } | { kind: 'unreachable' };

export type RobotsStatus = 'missing' | 'pending' | 'ready';

interface Entry {
  pending: boolean;
  /** Last recorded rules; kept while a refresh is pending. */
  rules: RobotsRules | null;
  expiresAt: number;
}

export class RobotsStore {
  readonly #opts: RobotsStoreOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(opts: Partial<RobotsStoreOptions> = {}) {
    this.#opts = { ...DEFAULT_ROBOTS_STORE_OPTIONS, ...opts };
  }

  /** `missing` (never fetched, or stale: fetch it), `pending` (a fetch is under way), `ready`. */
  status(origin: string, now: number): RobotsStatus {
    const entry = this.#entries.get(origin);
    if (entry === undefined) return 'missing';
    if (entry.pending) return 'pending';
    return now < entry.expiresAt ? 'ready' : 'missing';
  }

  /** A robots.txt fetch for `origin` has been scheduled; others must wait for it. */
  markPending(origin: string): void {
    const entry = this.#entries.get(origin);
    if (entry === undefined) this.#entries.set(origin, { pending: true, rules: null, expiresAt: 0 });
    else entry.pending = true;
  }

  /** Record the fetch's outcome and return the rules now in force for `origin`. */
  record(origin: string, result: RobotsFetchResult, now: number): RobotsRules {
    const { rules, lifetimeMs } = this.#interpret(result);
    this.#entries.set(origin, { pending: false, rules, expiresAt: now + lifetimeMs });
    return rules;
  }

  /** The last recorded rules (possibly stale; check `status`), null when none were ever recorded. */
  rules(origin: string): RobotsRules | null {
    return this.#entries.get(origin)?.rules ?? null;
  }

  /** Crawl-delay the host's robots.txt gives `userAgent`, in seconds; null when none. */
  crawlDelaySec(origin: string, userAgent: string): number | null {
    return this.rules(origin)?.crawlDelay(userAgent) ?? null;
  }

  /** Number of origins remembered. */
  get size(): number {
    return this.#entries.size;
  }

  #interpret(result: RobotsFetchResult): { rules: RobotsRules; lifetimeMs: number } {
    const unavailable = { rules: DISALLOW_ALL, lifetimeMs: this.#opts.unavailableRetryAfterMs };
    if (result.kind === 'unreachable') return unavailable;
    const { status } = result;
    if (status >= 200 && status < 300) {
      return { rules: parseRobotsTxt(decodeCapped(result.body, this.#opts.maxBodyBytes)), lifetimeMs: this.#opts.refreshAfterMs };
    }
    // 429 is a 4xx, but it says "slow down", not "there is no file": treat it like 5xx, as Google does.
    if (status >= 300 && status < 500 && status !== 429) return { rules: ALLOW_ALL, lifetimeMs: this.#opts.refreshAfterMs };
    return unavailable;
  }
}

/**
 * UTF-8 text of at most `maxBytes` bytes. When the body is cut, the last,
 * partial line is dropped: a truncated `Allow: /private/ok` would read as
 * `Allow: /pri` and open more than the site meant.
 */
function decodeCapped(body: Buffer, maxBytes: number): string {
  if (body.length <= maxBytes) return body.toString('utf8');
  const kept = body.subarray(0, maxBytes);
  const lastBreak = Math.max(kept.lastIndexOf(0x0a), kept.lastIndexOf(0x0d));
  return kept.subarray(0, lastBreak + 1).toString('utf8');
}
