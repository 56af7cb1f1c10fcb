/**
 * Scope: decides whether a discovered URI is crawled, in Heritrix's
 * DecideRuleSequence spirit. A rejection carries the crawl.log status it is
 * logged with (-5000 out of scope, -4001 too many link hops, -7 unfetchable).
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import type { ScopeOptions } from '../config/profile.js';

export type ScopeDecision = { accept: true } | { accept: false; status: number; reason: string };

const ACCEPT: ScopeDecision = { accept: true };

export class Scope {
  readonly #hosts: ReadonlyArray<{ host: string; port: string | null }>;
  readonly #include: RegExp[];
  readonly #exclude: RegExp[];
  readonly #opts: ScopeOptions;

  constructor(opts: ScopeOptions) {
    this.#opts = opts;
    this.#hosts = opts.hosts.map(parseHostEntry);
    this.#include = opts.include.map((r) => new RegExp(r));
    this.#exclude = opts.exclude.map((r) => new RegExp(r));
  }

  decide(uri: CrawlUri): ScopeDecision {
    let url: URL;
    try {
      url = new URL(uri.url);
    } catch {
      return { accept: false, status: -7, reason: 'unparseable' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { accept: false, status: -7, reason: 'scheme' };
    if (uri.seed) return ACCEPT;
    if (this.#exclude.some((re) => re.test(uri.url))) return { accept: false, status: -5000, reason: 'excluded' };
    if (uri.hopPath.length > this.#opts.maxHops) return { accept: false, status: -4001, reason: 'maxHops' };
    if (this.#inFocus(url, uri.url)) return ACCEPT;
    // Transclusion: embeds (and redirects) of in-scope pages are fetched even
    // off-scope, up to transclusionHops trailing non-link hops.
    const trailing = trailingTransclusionHops(uri.hopPath);
    if (trailing > 0 && trailing <= this.#opts.transclusionHops) return ACCEPT;
    return { accept: false, status: -5000, reason: 'outOfScope' };
  }

  #inFocus(url: URL, raw: string): boolean {
    if (!this.#hostMatches(url)) return false;
    return this.#include.length === 0 || this.#include.some((re) => re.test(raw));
  }

  #hostMatches(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.#hosts.some((h) => (h.port === null || h.port === port) && (host === h.host || host.endsWith('.' + h.host)));
  }
}

function parseHostEntry(entry: string): { host: string; port: string | null } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.toLowerCase());
  return { host: m?.[1] ?? entry.toLowerCase(), port: m?.[2] ?? null };
}

/** Count of trailing hops that are not plain links (E, R, X); P never reaches scope. */
export function trailingTransclusionHops(hopPath: string): number {
  let n = 0;
  for (let i = hopPath.length - 1; i >= 0 && hopPath[i] !== 'L'; i--) n++;
  return n;
}
