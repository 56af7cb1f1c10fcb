/**
 * robots.txt as a prerequisite (Heritrix's PreconditionEnforcer): before a
 * URI of an origin whose rules are not known is fetched, the origin's
 * robots.txt goes ahead of it in the same queue; what comes back becomes the
 * origin's rules, in the store and in the journal that survives a restart.
 * A robots.txt that redirects is followed (RFC 9309: at least five hops) as
 * another prerequisite that still stands for the origin that asked.
 *
 * The URI processor asks check() before fetching a URI and hands over a
 * prerequisite's answer (fetched() or unreachable()). A robots.txt that is
 * unavailable (5xx, 429, no answer) is HostHealth's to judge, per host: the
 * host is held until a re-fetch, crawled as allowed, or closed; this class
 * records the decision for the origin and says how long the host is held.
 *
 * The policy is the host's own (the profile's overrides may differ per
 * host). A host whose policy reads no robots.txt (`ignore`, `custom`) still
 * has it fetched when its `Sitemap:` lines are wanted (scope.sitemaps): then
 * its rules are recorded but never applied, and an unavailable robots.txt
 * just has no sitemaps — the host is neither held nor closed for it.
 */
import type { Clock } from '../core/clock.js';
import { childUri, Directive, type CrawlUri } from '../core/crawl-uri.js';
import { headerValue, type HttpExchange } from '../core/exchange.js';
import { decodeBody } from '../fetch/content-decoding.js';
import { redirectTarget } from '../fetch/link-resolution.js';
import type { HostHealth, TransportFailure } from './host-health.js';
import type { RobotsJournal } from './robots-journal.js';
import type { RobotsPolicy } from './robots-policy.js';
import type { RobotsRules } from './robots-rules.js';
import { isUnavailable, type RobotsFetchResult, type RobotsStore } from './robots-store.js';
import { originOf, robotsTxtUrl } from './robots-url.js';
import { hostPortOfOrigin } from '../url/hosts.js';

/** robots.txt bodies beyond this are cut before parsing (Heritrix: 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Redirects followed for one robots.txt (RFC 9309 asks for at least five). */
const ROBOTS_MAX_REDIRECTS = 5;
/** Extraction context of robots prerequisites; redirected ones append the asking origin. */
const ROBOTS_CONTEXT = 'robots';
/** How long a URI waits when its host's robots.txt is being fetched by another queue. */
const ROBOTS_PENDING_WAIT_MS = 500;

/** What robots says about a URI before it is fetched. */
export type RobotsCheck =
  /** Fetch it, sending `userAgent` instead of ours when the policy masquerades. */
  | { kind: 'fetch'; userAgent?: string }
  /**
   * A prerequisite whose origin's rules are known already (it was queued
   * twice, before a restart and again after it): nothing to fetch.
   */
  | { kind: 'known' }
  /** Not yet: the origin's robots.txt goes first (`prerequisite`), or another queue is fetching it. */
  | { kind: 'defer'; delayMs: number; prerequisite?: CrawlUri }
  /** The origin's robots.txt forbids the URI. */
  | { kind: 'excluded' }
  /** The origin's robots.txt is unavailable and re-fetched at `untilMs`: the URI waits, with its host. */
  | { kind: 'wait'; untilMs: number };

/** After a prerequisite's answer: hold the host until `holdUntilMs` (robots.txt unavailable), or not (null). */
export interface RobotsAnswered {
  holdUntilMs: number | null;
  /** Absolute `Sitemap:` URLs of the file, when its sitemaps are wanted ([] otherwise). */
  sitemaps: readonly string[];
}

export interface RobotsPrerequisitesDeps {
  store: RobotsStore;
  journal: RobotsJournal;
  /** The robots policy of a host (`host:port`). */
  policyOf: (host: string) => RobotsPolicy;
  /** Whether the `Sitemap:` lines of an origin's robots.txt are followed (scope.sitemaps, the host in scope). Default never. */
  wantsSitemaps?: (origin: string) => boolean;
  /** Decides, per host, what an unavailable robots.txt means. */
  health: HostHealth;
  /** Before a decision on a host: bring in what other processes of the crawl decided of it (shared crawls). */
  catchUpHost?: (host: string) => Promise<void>;
  /** Queues a redirected robots.txt whatever the seen filter says (LinkScheduler.schedulePrerequisite). */
  schedulePrerequisite: (uri: CrawlUri) => Promise<void>;
  clock: Clock;
}

export class RobotsPrerequisites {
  readonly #d: RobotsPrerequisitesDeps;

  constructor(deps: RobotsPrerequisitesDeps) {
    this.#d = deps;
  }

  /** Whether `uri` is a robots.txt fetched as a prerequisite. */
  isPrerequisite(uri: CrawlUri): boolean {
    return uri.hopPath.endsWith('P');
  }

  /**
   * The origin whose rules apply to `uri`; for a prerequisite, the origin it
   * answers for (a robots.txt reached through redirects stands for the origin
   * that asked for it).
   */
  originFor(uri: CrawlUri): string {
    if (!this.isPrerequisite(uri)) return originOf(uri.url);
    return uri.context.startsWith(`${ROBOTS_CONTEXT} `) ? uri.context.slice(ROBOTS_CONTEXT.length + 1) : originOf(uri.url);
  }

  /** The robots policy `origin`'s URIs are judged by. */
  policyFor(origin: string): RobotsPolicy {
    return this.#d.policyOf(hostPortOfOrigin(origin));
  }

  check(uri: CrawlUri, origin: string): RobotsCheck {
    const d = this.#d;
    if (this.isPrerequisite(uri)) return d.store.status(origin, d.clock.now()) === 'ready' ? { kind: 'known' } : { kind: 'fetch' };
    const policy = this.policyFor(origin);
    if (policy.needsRobotsTxt || this.#wantsSitemaps(origin)) {
      const state = d.store.status(origin, d.clock.now());
      if (state === 'missing') {
        d.store.markPending(origin);
        return { kind: 'defer', delayMs: 0, prerequisite: childUri(uri, robotsTxtUrl(uri.url), 'P', ROBOTS_CONTEXT) };
      }
      if (state === 'pending') return { kind: 'defer', delayMs: ROBOTS_PENDING_WAIT_MS };
      if (state === 'waiting') return { kind: 'wait', untilMs: d.store.waitingUntil(origin, d.clock.now()) ?? 0 };
    }
    const verdict = policy.allows(uri.url, this.rules(origin));
    if (!verdict.allowed) return { kind: 'excluded' };
    return verdict.userAgentToSend ? { kind: 'fetch', userAgent: verdict.userAgentToSend } : { kind: 'fetch' };
  }

  /**
   * A prerequisite about to be fetched in a crawl of several processes:
   * another node may have fetched that robots.txt less than a second ago,
   * before this one followed the crawl's records (crawl-wide.ts). Its saved
   * answer is read now; true when the origin's rules are then known and the
   * fetch is not needed.
   */
  async knownElsewhere(origin: string): Promise<boolean> {
    const d = this.#d;
    return (await d.journal.lookup(d.store, origin)) && d.store.status(origin, d.clock.now()) === 'ready';
  }

  /** The rules the policy judges the origin's URIs by (null when the policy needs no robots.txt). */
  rules(origin: string): RobotsRules | null {
    return this.policyFor(origin).needsRobotsTxt ? this.#d.store.rules(origin) : null;
  }

  #wantsSitemaps(origin: string): boolean {
    return this.#d.wantsSitemaps?.(origin) === true;
  }

  /**
   * A prerequisite's response: a redirect is followed as another
   * prerequisite that keeps the asking origin; anything else becomes the
   * origin's rules (a redirect beyond the limit allows all), or, when it
   * gives none, HostHealth's decision.
   */
  async fetched(uri: CrawlUri, ex: HttpExchange, origin: string): Promise<RobotsAnswered> {
    const target = redirectTarget(ex);
    if (target && uri.redirects < ROBOTS_MAX_REDIRECTS) {
      const next = { ...childUri(uri, target, 'P', `${ROBOTS_CONTEXT} ${origin}`), directive: Directive.prerequisite, redirects: uri.redirects + 1 };
      await this.#d.schedulePrerequisite(next);
      return NO_HOLD;
    }
    const result: RobotsFetchResult = { kind: 'fetched', status: ex.status, body: await robotsBody(ex) };
    if (isUnavailable(result)) return this.#unavailable(origin, ex.status);
    const at = this.#d.clock.now();
    const rules = this.#d.store.record(origin, result, at);
    this.#d.health.robotsAvailable(hostPortOfOrigin(origin));
    await this.#d.journal.saveFetched(origin, result, at);
    if (rules === null || !this.#wantsSitemaps(origin)) return NO_HOLD;
    return { holdUntilMs: null, sitemaps: absoluteUrls(rules.sitemaps(), ex.url) };
  }

  /**
   * A prerequisite that got no answer at all (DNS, connect, reset, timeout):
   * `failure` is the transport's status and its cause in words, and whether
   * DNS said the name does not exist. Whether the origin's robots.txt was
   * ever had tells HostHealth a host met for the first time (likely dead:
   * judged quickly) from one that answered before.
   */
  unreachable(origin: string, failure: TransportFailure): Promise<RobotsAnswered> {
    return this.#unavailable(origin, failure);
  }

  async #unavailable(origin: string, answer: number | TransportFailure): Promise<RobotsAnswered> {
    const d = this.#d;
    const at = d.clock.now();
    // Fetched for its sitemaps only: the host's policy has no use for its rules, nor for their absence.
    const needs = this.policyFor(origin).needsRobotsTxt;
    const host = hostPortOfOrigin(origin);
    if (needs) await d.catchUpHost?.(host);
    // Rules are kept while a refresh is pending: none means this robots.txt was never had.
    const firstContact = d.store.rules(origin) === null;
    const decision = !needs ? ALLOW : typeof answer === 'number' ? d.health.robotsUnavailable(host, answer, at) : d.health.robotsUnreachable(host, answer, at, firstContact);
    if (decision.kind === 'allow') {
      d.store.allowAll(origin, at);
      await d.journal.saveAllowAll(origin, at);
      return NO_HOLD;
    }
    // A closed host is never fetched again: its URIs are disposed of without asking robots.
    const until = decision.kind === 'wait' ? decision.untilMs : Infinity;
    d.store.retryAt(origin, until);
    await d.journal.saveWaiting(origin, until, at);
    return { holdUntilMs: decision.kind === 'wait' ? until : null, sitemaps: [] };
  }
}

const NO_HOLD: RobotsAnswered = Object.freeze({ holdUntilMs: null, sitemaps: Object.freeze([]) });
const ALLOW = Object.freeze({ kind: 'allow' as const });

/** `Sitemap:` values resolved against the robots.txt URL (the protocol wants them absolute; some are not), http(s) only. */
function absoluteUrls(values: readonly string[], base: string): string[] {
  const out: string[] = [];
  for (const value of values) {
    try {
      const url = new URL(value, base);
      if (url.protocol === 'http:' || url.protocol === 'https:') out.push(url.href);
    } catch {
      // Not a URL: nothing to follow.
    }
  }
  return out;
}

/** The first ROBOTS_MAX_BYTES of a 2xx robots.txt with its Content-Encoding undone; other answers have no rules to read. */
async function robotsBody(ex: HttpExchange): Promise<Buffer> {
  if (ex.status < 200 || ex.status >= 300) return Buffer.alloc(0);
  const decoded = await decodeBody(ex.body, headerValue(ex.responseHeaders, 'content-encoding'), ROBOTS_MAX_BYTES);
  return decoded.bytes;
}
