/**
 * The checks on `overrides` a schema cannot express, each failing with one
 * line naming the JSON path: the match must read as a host or a SURT
 * prefix; politeness and robots act per host, so only host-level matches
 * carry them; an override's limits are those that make sense for part of a
 * crawl (not maxDurationSec, maxRedirects, maxOutlinks); and what the
 * override makes of the profile must be valid as the top of it must be.
 */
import { parseOverrideMatch } from './override-match.js';
import type { Profile } from './profile.js';
import { regexProblem } from './regex-check.js';
import { OVERRIDE_LIMITS } from './profile-schema.js';

const ALLOWED_LIMITS: ReadonlySet<string> = new Set(OVERRIDE_LIMITS);

/** Each problem goes to `fail`, which may throw or collect: the checks go on after it. */
export function checkOverrides(p: Profile, fail: (at: string, problem: string) => void): void {
  p.overrides.forEach((o, i) => {
    const at = `/overrides/${i}`;
    // A match missing or not a string is the schema's to tell.
    const match = typeof o.match === 'string' ? parseOverrideMatch(o.match) : undefined;
    if (match === null) fail(`${at}/match`, 'must be a host ("example.org", "127.0.0.1:8080") or a SURT prefix ("http://(org,example,)/blog")');
    for (const section of ['politeness', 'robots'] as const) {
      if (o[section] !== undefined && match && !match.hostLevel) {
        fail(`${at}/${section}`, `${section} acts per host: allowed only where the match is a host or a SURT prefix ending at the host, not ${JSON.stringify(o.match)}`);
      }
    }
    for (const key of Object.keys(o.limits ?? {})) {
      if (ALLOWED_LIMITS.has(key)) continue;
      const why = key === 'maxDurationSec' ? 'the crawl\'s duration has no per-host form' : 'not a limit of part of a crawl';
      fail(`${at}/limits/${key}`, `not allowed in an override (${why}); an override's limits are ${OVERRIDE_LIMITS.join(', ')}`);
    }
    (o.scope?.exclude ?? []).forEach((re, j) => {
      const problem = typeof re === 'string' ? regexProblem(re) : null;
      if (problem !== null) fail(`${at}/scope/exclude/${j}`, problem);
    });
    const pol = o.politeness;
    if (pol?.minDelayMs !== undefined && pol.maxDelayMs !== undefined && pol.minDelayMs > pol.maxDelayMs) {
      fail(`${at}/politeness/minDelayMs`, `must not exceed maxDelayMs (${pol.maxDelayMs})`);
    }
    if (o.robots !== undefined) {
      // The host's robots settings: the override's fields over the profile's (as overrides.ts merges them).
      const policy = o.robots.policy ?? p.robots.policy;
      const custom = o.robots.custom ?? p.robots.custom;
      const candidateUserAgents = o.robots.candidateUserAgents ?? p.robots.candidateUserAgents;
      if (policy === 'custom' && custom.trim() === '') fail(`${at}/robots/custom`, 'the custom policy needs robots.txt text here');
      if (policy === 'mostFavoredSet' && candidateUserAgents.length === 0) {
        fail(`${at}/robots/candidateUserAgents`, 'mostFavoredSet needs at least one candidate user agent');
      }
    }
  });
}
