/**
 * Robots state per origin (`scheme://host:port`), so robots.txt is fetched
 * once per host (single-flight: `missing` → markPending → record → `ready`)
 * and re-fetched when it goes stale. The fetch itself goes through the
 * frontier as a prerequisite; this store only remembers what came back.
 *
 * Outcomes (RFC 9309): 2xx → the file's rules; 3xx (redirects are not
 * followed here) and 4xx → allow all. 5xx, 429 and an unreachable server
 * leave the origin without rules: what happens then is decided per host by
 * HostHealth (host-health.ts) — wait and re-fetch (`retryAt`), crawl as
 * allowed (`allowAll`), or never (the host is closed) — and told back here.
 */
import { ALLOW_ALL, parseRobotsTxt, type RobotsRules } from './robots-rules.js';

export interface RobotsStoreOptions {
  /** A fetched robots.txt is re-fetched after this long. Default 24 h. */
  refreshAfterMs: number;
  /** Bytes of robots.txt parsed; the rest is cut. Default 500 KiB (Heritrix, RFC 9309 asks ≥ 500 KiB). */
  maxBodyBytes: number;
}

export const DEFAULT_ROBOTS_STORE_OPTIONS: Readonly<RobotsStoreOptions> = Object.freeze({
  refreshAfterMs: 24 * 3600 * 1000,
  maxBodyBytes: 500 * 1024,
});

export type RobotsFetchResult = { kind: 'fetched'; status: number; body: Buffer } | { kind: 'unreachable' };

/**
 * `missing` (never fetched, or stale: fetch it), `pending` (a fetch is under
 * way), `ready` (rules known), `waiting` (unavailable; re-fetched at `waitingUntil`).
 */
export type RobotsStatus = 'missing' | 'pending' | 'ready' | 'waiting';

interface Entry {
  pending: boolean;
  /** Last recorded rules; kept while a refresh is pending. Null while unavailable. */
  rules: RobotsRules | null;
  /** Rules go stale, or an unavailable robots.txt is re-fetched, at this epoch ms. */
  expiresAt: number;
}

/** Whether a robots.txt answer gives no rules: 5xx, 429 (it says "slow down", as Google reads it), anything stranger, or no answer. */
export function isUnavailable(result: RobotsFetchResult): boolean {
  if (result.kind === 'unreachable') return true;
  const { status } = result;
  return !(status >= 200 && status < 500) || status === 429;
}

export class RobotsStore {
  readonly #opts: RobotsStoreOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(opts: Partial<RobotsStoreOptions> = {}) {
    this.#opts = { ...DEFAULT_ROBOTS_STORE_OPTIONS, ...opts };
  }

  status(origin: string, now: number): RobotsStatus {
    const entry = this.#entries.get(origin);
    if (entry === undefined) return 'missing';
    if (entry.pending) return 'pending';
    if (now >= entry.expiresAt) return 'missing';
    return entry.rules === null ? 'waiting' : 'ready';
  }

  /** When an unavailable robots.txt is fetched again (Infinity: never); null when it is not waiting. */
  waitingUntil(origin: string, now: number): number | null {
    return this.status(origin, now) === 'waiting' ? this.#entries.get(origin)!.expiresAt : null;
  }

  /** A robots.txt fetch for `origin` has been scheduled; others must wait for it. */
  markPending(origin: string): void {
    const entry = this.#entries.get(origin);
    if (entry === undefined) this.#entries.set(origin, { pending: true, rules: null, expiresAt: 0 });
    else entry.pending = true;
  }

  /**
   * Record an answer that gives rules (see isUnavailable) and return them;
   * for an unavailable one, null: the origin stays pending until `retryAt`
   * or `allowAll` says what HostHealth decided.
   */
  record(origin: string, result: RobotsFetchResult, now: number): RobotsRules | null {
    if (isUnavailable(result) || result.kind !== 'fetched') return null;
    const rules = result.status < 300 ? parseRobotsTxt(decodeCapped(result.body, this.#opts.maxBodyBytes)) : ALLOW_ALL;
    this.#entries.set(origin, { pending: false, rules, expiresAt: now + this.#opts.refreshAfterMs });
    return rules;
  }

  /** robots.txt is unavailable: no rules, and no fetch of it before `untilMs` (Infinity: the host is closed). */
  retryAt(origin: string, untilMs: number): void {
    this.#entries.set(origin, { pending: false, rules: null, expiresAt: untilMs });
  }

  /** robots.txt stayed unavailable and the profile says crawl anyway (Heritrix's rule): allow all until the next refresh. */
  allowAll(origin: string, now: number): void {
    this.#entries.set(origin, { pending: false, rules: ALLOW_ALL, expiresAt: now + this.#opts.refreshAfterMs });
  }

  /** The last recorded rules (possibly stale; check `status`), null when none are known. */
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
