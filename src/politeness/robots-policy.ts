/**
 * Robots policies, chosen by name from a table (Heritrix's RobotsPolicy
 * family). A policy turns a host's robots rules into a yes/no for one URL,
 * says whether meta robots / X-Robots-Tag are honoured, and whether the
 * site's robots.txt is needed at all.
 *
 * Agent matching is RFC 9309's: our User-Agent is matched by its product
 * token (`archiver` from `archiver/0.1 (+https://…)`), falling back to the
 * `*` group, and to "allowed" when neither exists.
 */
import type { RobotsOptions, RobotsPolicyName } from '../config/profile.js';
import { ArchiverError } from '../core/errors.js';
import { agentToken, parseRobotsTxt, type RobotsRules } from './robots-rules.js';

export interface RobotsDecision {
  allowed: boolean;
  /** Set when masquerading: the User-Agent to send for this URL instead of ours. */
  userAgentToSend?: string;
}

export interface RobotsPolicy {
  readonly name: string;
  /** Does this policy honour meta robots / X-Robots-Tag nofollow & noindex? */
  readonly obeysMetaRobots: boolean;
  /** Does it need the site's robots.txt at all? (ignore and custom do not fetch it) */
  readonly needsRobotsTxt: boolean;
  /** Decide for one URL given the host's rules (null = none known: allow). userAgentToSend is set when masquerading. */
  allows(url: string, rules: RobotsRules | null): RobotsDecision;
  /** Crawl-delay (seconds) this policy believes for the host; custom answers from its own text, ignore never. */
  crawlDelaySec(rules: RobotsRules | null): number | null;
}

/** The profile named a policy this build does not know (the schema should have caught it). */
export class UnknownRobotsPolicyError extends ArchiverError {
  constructor(name: string) {
    super('ARCHIVER_UNKNOWN_ROBOTS_POLICY', `unknown robots policy ${JSON.stringify(name)}`);
  }
}

type PolicyFactory = (name: string, opts: RobotsOptions, userAgent: string) => RobotsPolicy;

const ALLOWED: RobotsDecision = Object.freeze({ allowed: true });
const REFUSED: RobotsDecision = Object.freeze({ allowed: false });

/** Obey robots.txt for our own agent; with `obeysMetaRobots` also meta robots (classic/obey). */
function ownAgentPolicy(obeysMetaRobots: boolean): PolicyFactory {
  return (name, _opts, userAgent) => ({
    name,
    obeysMetaRobots,
    needsRobotsTxt: true,
    allows: (url, rules) => (rules === null || rules.isAllowed(url, userAgent) ? ALLOWED : REFUSED),
    crawlDelaySec: (rules) => rules?.crawlDelay(userAgent) ?? null,
  });
}

const ignore: PolicyFactory = (name) => ({
  name,
  obeysMetaRobots: false,
  needsRobotsTxt: false,
  allows: () => ALLOWED,
  crawlDelaySec: () => null,
});

/** The operator's robots.txt text stands in for every site's own; parsed once. */
const custom: PolicyFactory = (name, opts, userAgent) => {
  const rules = parseRobotsTxt(opts.custom);
  return {
    name,
    obeysMetaRobots: true,
    needsRobotsTxt: false,
    allows: (url) => (rules.isAllowed(url, userAgent) ? ALLOWED : REFUSED),
    crawlDelaySec: () => rules.crawlDelay(userAgent),
  };
};

/** One agent a favouring policy may fall back on: the name to match in robots.txt, the User-Agent to send if masquerading. */
interface Alternative {
  matchAs: string;
  sendAs: string | null;
}

/**
 * Allowed if our agent may fetch the URL, or else the first of the
 * alternatives that may; with `masquerade` that alternative's User-Agent is
 * sent. Only the source of the alternatives differs between the two kinds.
 */
function favouring(alternatives: (opts: RobotsOptions, rules: RobotsRules) => Iterable<Alternative>): PolicyFactory {
  return (name, opts, userAgent) => ({
    name,
    obeysMetaRobots: true,
    needsRobotsTxt: true,
    allows(url, rules) {
      if (rules === null || rules.isAllowed(url, userAgent)) return ALLOWED;
      for (const { matchAs, sendAs } of alternatives(opts, rules)) {
        if (!rules.isAllowed(url, matchAs)) continue;
        return opts.masquerade && sendAs !== null ? { allowed: true, userAgentToSend: sendAs } : ALLOWED;
      }
      return REFUSED;
    },
    crawlDelaySec: (rules) => rules?.crawlDelay(userAgent) ?? null,
  });
}

/**
 * Heritrix 1's "most-favored": fetch if any agent the file names (or `*`) may
 * fetch it. Masquerading sends the favoured agent's name as written in the
 * file; being favoured through `*` names nobody, so our own agent is sent.
 */
const mostFavored = favouring(function* (_opts, rules) {
  for (const agent of rules.agents()) yield { matchAs: agent, sendAs: agent === '*' ? null : agent };
});

/**
 * Heritrix's "most-favored-set": fetch if our agent or any of
 * `candidateUserAgents` may fetch it; masquerading sends that candidate's
 * User-Agent exactly as configured.
 */
const mostFavoredSet = favouring(function* (opts, rules) {
  for (const candidate of opts.candidateUserAgents) yield { matchAs: candidateToken(candidate, rules), sendAs: candidate };
});

/**
 * Candidates are often full browser-style strings ("Mozilla/5.0 (compatible;
 * Googlebot/2.1; …)") whose product token is not the robot's name. Like
 * Heritrix, look for a name the file uses inside the string — but as a whole
 * word, so a group for "bot" does not capture every crawler.
 */
function candidateToken(candidate: string, rules: RobotsRules): string {
  const own = agentToken(candidate);
  const named = new Set(rules.agents().map((a) => a.toLowerCase()).filter((a) => a !== '*'));
  if (named.has(own)) return own;
  for (const word of candidate.toLowerCase().split(/[^a-z0-9_-]+/)) {
    if (named.has(word)) return word;
  }
  return own;
}

const POLICIES: Readonly<Record<RobotsPolicyName, PolicyFactory>> = Object.freeze({
  obey: ownAgentPolicy(true),
  classic: ownAgentPolicy(true),
  robotsTxtOnly: ownAgentPolicy(false),
  ignore,
  custom,
  mostFavored,
  mostFavoredSet,
});

export const ROBOTS_POLICY_NAMES: readonly RobotsPolicyName[] = Object.freeze(
  Object.keys(POLICIES) as RobotsPolicyName[],
);

/** The policy `opts.policy` names, deciding for `userAgent` (the full User-Agent header we send). */
export function createRobotsPolicy(opts: RobotsOptions, userAgent: string): RobotsPolicy {
  const factory = Object.hasOwn(POLICIES, opts.policy) ? POLICIES[opts.policy] : undefined;
  if (factory === undefined) throw new UnknownRobotsPolicyError(opts.policy);
  return Object.freeze(factory(opts.policy, opts, userAgent));
}
