/**
 * What a host's robots.txt amounts to right now, in one word for status
 * pages: the robots store keeps it per origin (scheme, host and port), a
 * status page lists hosts as URLs write them, so both schemes are asked.
 */
import type { RobotsPolicy } from '../politeness/robots-policy.js';
import type { RobotsStore } from '../politeness/robots-store.js';
import { hostPortOfOrigin } from '../url/hosts.js';
import { originOf } from '../politeness/robots-url.js';

/**
 * `ignored` (the policy fetches no robots.txt), `unknown` (not fetched yet),
 * `pending` (being fetched), `rules` (a robots.txt with rules), `allowAll`
 * (none, 3xx/4xx, or allowed after staying unavailable), `disallowAll`,
 * `unavailable` (5xx/unreachable; waiting to fetch it again, or closed).
 */
export type HostRobots = 'ignored' | 'unknown' | 'pending' | 'rules' | 'allowAll' | 'disallowAll' | 'unavailable';

/** `policyOf` gives the robots policy for a host as `host:port` (overrides may differ per host). */
export function hostRobots(host: string, store: RobotsStore, policyOf: (hostPort: string) => RobotsPolicy, now: number): HostRobots {
  for (const scheme of ['http:', 'https:']) {
    let origin: string;
    try {
      origin = originOf(`${scheme}//${host}/`);
    } catch {
      return 'unknown';
    }
    if (!policyOf(hostPortOfOrigin(origin)).needsRobotsTxt) return 'ignored';
    const status = store.status(origin, now);
    if (status === 'missing') continue;
    if (status === 'pending') return 'pending';
    if (status === 'waiting') return 'unavailable';
    const kind = store.rules(origin)?.kind;
    return kind === 'parsed' ? 'rules' : kind ?? 'unknown';
  }
  return 'unknown';
}
