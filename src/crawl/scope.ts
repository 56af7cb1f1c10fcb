/**
 * Scope: decides whether a discovered URI is crawled, in Heritrix's
 * DecideRuleSequence spirit. A rejection carries the crawl.log status it is
 * logged with (-5000 out of scope, -4001 too many link hops, -7 unfetchable)
 * and a reason naming the rule. The crawler-trap rules (Heritrix's
 * TooManyPathSegments and PathologicalPath decide rules, and a URL-length
 * cap) refuse with -5000 before any host or hop rule, so a trap is cut off
 * wherever it leads; seeds are exempt, as from every other rule.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import { isSitemapUri } from '../sitemap/sitemap-uri.js';
import type { ScopeOptions } from '../config/profile.js';
import { plainHttpParts, type HttpUrlParts } from '../url/url-split.js';

export type ScopeDecision = { accept: true } | { accept: false; status: number; reason: string };

const ACCEPT: ScopeDecision = { accept: true };

export class Scope {
  /** Host entry → its ports (null: any port). A host matches its own entry or an entry of a parent domain. */
  readonly #hosts = new Map<string, Array<string | null>>();
  readonly #include: RegExp[];
  readonly #exclude: RegExp[];
  readonly #opts: ScopeOptions;
  /** The excludes the profile's overrides add for a URL. */
  readonly #overrideExcludes: ((url: string) => readonly RegExp[]) | undefined;

  constructor(opts: ScopeOptions, overrideExcludes?: (url: string) => readonly RegExp[]) {
    this.#opts = opts;
    this.#overrideExcludes = overrideExcludes;
    for (const entry of opts.hosts) this.addHost(entry);
    this.#include = opts.include.map((r) => new RegExp(r));
    this.#exclude = opts.exclude.map((r) => new RegExp(r));
  }

  /** Widen the scope by a host entry (`example.org`, `127.0.0.1:8080`), as a seed added to a running crawl may. */
  addHost(entry: string): void {
    const { host, port } = parseHostEntry(entry);
    const ports = this.#hosts.get(host) ?? [];
    if (!ports.includes(port)) this.#hosts.set(host, [...ports, port]);
  }

  /** Refuse URLs matching `regex` from now on (an operator's exclusion). */
  addExclude(regex: RegExp): void {
    this.#exclude.push(regex);
  }

  /** Whether scope hosts follow the seeds (the profile gave none): a seed added later brings its host. */
  get hostsFromSeeds(): boolean {
    return this.#opts.hostsFromSeeds === true;
  }

  decide(uri: CrawlUri): ScopeDecision {
    // Links come resolved and serialized, so the quick split nearly always applies.
    let url: HttpUrlParts | null = plainHttpParts(uri.url);
    if (url === null) {
      try {
        url = new URL(uri.url);
      } catch {
        return { accept: false, status: -7, reason: 'unparseable' };
      }
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { accept: false, status: -7, reason: 'scheme' };
    if (uri.seed) return ACCEPT;
    const trap = trapRule(url, uri.url, this.#opts);
    if (trap !== null) return { accept: false, status: -5000, reason: trap };
    if (this.#exclude.some((re) => re.test(uri.url))) return { accept: false, status: -5000, reason: 'excluded' };
    if (this.#overrideExcludes?.(uri.url).some((re) => re.test(uri.url))) return { accept: false, status: -5000, reason: 'excluded' };
    if (uri.hopPath.length > this.#opts.maxHops) return { accept: false, status: -4001, reason: 'maxHops' };
    if (this.#inFocus(url, uri.url)) return ACCEPT;
    // Transclusion: embeds (and redirects) of in-scope pages are fetched even
    // off-scope, up to transclusionHops trailing non-link hops. Never a
    // sitemap (a redirect off-scope included): it cannot pull in a host.
    const trailing = trailingTransclusionHops(uri.hopPath);
    if (trailing > 0 && trailing <= this.#opts.transclusionHops && !isSitemapUri(uri)) return ACCEPT;
    return { accept: false, status: -5000, reason: 'outOfScope' };
  }

  /** Whether the URL's host is one of the scope's (its robots.txt Sitemap lines are then followed). */
  coversHost(url: string): boolean {
    let parsed: HttpUrlParts | null = plainHttpParts(url);
    if (parsed === null) {
      try {
        parsed = new URL(url);
      } catch {
        return false;
      }
    }
    return this.#hostMatches(parsed);
  }

  #inFocus(url: HttpUrlParts, raw: string): boolean {
    if (!this.#hostMatches(url)) return false;
    return this.#include.length === 0 || this.#include.some((re) => re.test(raw));
  }

  /** One map lookup per label of the host (itself, then each parent domain), whatever the number of entries. */
  #hostMatches(url: HttpUrlParts): boolean {
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    for (let host = url.hostname.toLowerCase(); ; ) {
      const ports = this.#hosts.get(host);
      if (ports !== undefined && ports.some((p) => p === null || p === port)) return true;
      const dot = host.indexOf('.');
      if (dot < 0) return false;
      host = host.slice(dot + 1);
    }
  }
}

function parseHostEntry(entry: string): { host: string; port: string | null } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.toLowerCase());
  const host = m?.[1] ?? entry.toLowerCase();
  return { host: asciiHost(host), port: m?.[2] ?? null };
}

/**
 * URL hostnames are punycode (`xn--bcher-kva.example`), so a host entry
 * written in Unicode (`bücher.example`) is converted the same way, or an
 * IDN host in the profile would never match its own pages.
 */
function asciiHost(host: string): string {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return host;
  }
}

/** Count of trailing hops that are not plain links or manifest entries (E, R, X); P never reaches scope. */
export function trailingTransclusionHops(hopPath: string): number {
  let n = 0;
  for (let i = hopPath.length - 1; i >= 0 && hopPath[i] !== 'L' && hopPath[i] !== 'M'; i--) n++;
  return n;
}

type TrapOptions = Pick<ScopeOptions, 'maxPathDepth' | 'maxPathRepetitions' | 'maxUrlLength'>;

/**
 * The crawler-trap rule `url` breaks, or null. A limit of 0 turns its rule
 * off (a depth or repetition limit of 0 would refuse every path).
 */
export function trapRule(url: Pick<URL, 'pathname'>, raw: string, opts: TrapOptions): string | null {
  // Length first: it bounds the work of the two path rules.
  if (raw.length > opts.maxUrlLength) return 'maxUrlLength';
  const segments = url.pathname.split('/').slice(1);
  if (opts.maxPathDepth > 0 && segments.length > opts.maxPathDepth) return 'maxPathDepth';
  if (opts.maxPathRepetitions > 0 && longestRepetition(segments) > opts.maxPathRepetitions) return 'maxPathRepetitions';
  return null;
}

/**
 * Most consecutive occurrences of any run of path segments: 3 for
 * /a/b/a/b/a/b/ (run a/b), 1 when nothing repeats. Heritrix's
 * PathologicalPathDecideRule finds the same with the regex
 * `.*?/(.*?/)\1{N,}.*`, which backtracks badly on long URLs. Here, for each
 * run length r, a streak of s segments each equal to the one r further on
 * means floor(s / r) + 1 occurrences: O(n) per r, O(n²) in all.
 */
export function longestRepetition(segments: readonly string[]): number {
  let best = 1;
  for (let run = 1; run * 2 <= segments.length; run++) {
    let streak = 0;
    for (let i = 0; i + run < segments.length; i++) {
      streak = segments[i] === segments[i + run] ? streak + 1 : 0;
      best = Math.max(best, Math.floor(streak / run) + 1);
    }
  }
  return best;
}
