/**
 * The crawl's hosts as status pages show them: what was fetched from each,
 * the politeness delay after its last fetch, what its robots.txt amounts
 * to, and whether it waits out a failure or was closed.
 */
import type { ClosedHost, WaitingHost } from '../politeness/host-health.js';
import { urlHostOf } from '../url/hosts.js';
import type { HostOverrides } from '../overrides/overrides.js';
import type { CrawlParts } from './crawl-parts.js';
import { hostRobots, type HostRobots } from './host-robots.js';

/** One host as the crawl knows it, for status pages. */
export interface HostReport {
  /** As URLs write it: `host`, or `host:port` for a port other than the scheme's. */
  host: string;
  /** Captures of the host (any status). */
  fetched: number;
  bytes: number;
  errors: number;
  robotsBlocked: number;
  /** The politeness delay after the host's last fetch (null before one). */
  delayMs: number | null;
  /** What its robots.txt amounts to (see HostRobots). */
  robots: HostRobots;
  waiting: WaitingHost | null;
  closed: ClosedHost | null;
  /** The profile's overrides that apply to the host and the settings they change; null when none. */
  overrides: HostOverrides | null;
}

/** Every host the crawl knows, in name order (overrides left null: the caller fills the ones it shows). */
export function hostReports(
  p: Pick<CrawlParts, 'health' | 'stats' | 'robotsStore' | 'robotsPolicies'>,
  delays: ReadonlyMap<string, number>,
  now: number,
): HostReport[] {
  // Health knows hosts as `host:port`, the statistics as URLs write them.
  const waiting = new Map(p.health.waiting(now).map((w) => [urlHostOf(w.host), w]));
  const closed = new Map(p.health.closed().map((c) => [urlHostOf(c.host), c]));
  const reports = new Map<string, HostReport>();
  const empty = (host: string): HostReport => ({ host, fetched: 0, bytes: 0, errors: 0, robotsBlocked: 0, delayMs: null, robots: 'unknown', waiting: null, closed: null, overrides: null });
  for (const [host, h] of p.stats.byHost) {
    reports.set(host, { ...empty(host), fetched: h.urls, bytes: h.bytes, errors: h.errors, robotsBlocked: h.robotsBlocked });
  }
  for (const host of [...waiting.keys(), ...closed.keys()]) {
    if (!reports.has(host)) reports.set(host, empty(host));
  }
  for (const r of reports.values()) {
    r.waiting = waiting.get(r.host) ?? null;
    r.closed = closed.get(r.host) ?? null;
    r.delayMs = delays.get(r.host) ?? null;
    r.robots = hostRobots(r.host, p.robotsStore, (hostPort) => p.robotsPolicies.of(hostPort), now);
  }
  return [...reports.values()].sort((a, b) => (a.host < b.host ? -1 : 1));
}
