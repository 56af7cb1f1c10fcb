/**
 * What a correct, polite crawler of the fixture web fetches: a breadth-first
 * walk from the seeds over the recorded links (links, embeds, redirects),
 * that stops at robots-disallowed URLs and does not follow the links of
 * meta-robots-nofollow pages. robots.txt of every host counts as reachable
 * (a crawler fetches it first, and it is archived even when it is a 404).
 * Links that leave the fixture web are not part of any answer.
 */
import type { Resource } from './resource.js';
import type { HostSite } from './site-generator.js';

export interface ExpectedUrls {
  /** Every URL a correct crawler captures (any status), in discovery order. */
  reachable: string[];
  /** URLs linked from reachable pages that robots.txt forbids: never to be requested. */
  disallowed: string[];
  /** URLs linked only from nofollow pages: a crawler obeying meta robots never requests them. */
  nofollowOnly: string[];
}

/** Finds the resource a fixture host answers for a URL (its 404 page for unknown paths). */
export type Resolver = (url: string) => { host: HostSite; resource: Resource } | undefined;

export function computeExpectedUrls(hosts: readonly HostSite[], seeds: readonly string[], resolve: Resolver): ExpectedUrls {
  const reachable: string[] = [];
  const disallowed = new Set<string>();
  const nofollowTargets = new Set<string>();
  const seen = new Set<string>();
  const queue: string[] = [];
  const visit = (url: string): void => {
    if (seen.has(url)) return;
    const found = resolve(url);
    if (found === undefined) return; // off the fixture web
    seen.add(url);
    const path = new URL(url).pathname;
    if (found.host.disallowedPrefixes.some((prefix) => path.startsWith(prefix))) {
      disallowed.add(url);
      return;
    }
    reachable.push(url);
    queue.push(url);
  };
  for (const host of hosts) visit(`${host.origin}/robots.txt`);
  for (const seed of seeds) visit(seed);
  for (let i = 0; i < queue.length; i++) {
    const url = queue[i] as string;
    const found = resolve(url);
    if (found === undefined) continue;
    for (const link of found.resource.links) {
      if (found.resource.nofollow) nofollowTargets.add(link.url);
      else visit(link.url);
    }
  }
  const reached = new Set(reachable);
  const nofollowOnly = [...nofollowTargets].filter((u) => !reached.has(u) && !disallowed.has(u) && resolve(u) !== undefined);
  return { reachable, disallowed: [...disallowed], nofollowOnly };
}
