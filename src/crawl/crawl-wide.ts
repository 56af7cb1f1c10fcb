/**
 * What a node of a crawl of several processes takes in from the others,
 * once a second, so that the crawl acts as one: robots.txt results
 * (fetched once for the whole crawl), hosts' health (a host closed on one
 * node — robots.txt unavailable, transport failures — is closed on every
 * node), and the operator's exclusions (added on any node, they refuse
 * links and drop queued URIs on every node, and the store keeps them for a
 * resume) and seeds (added on any node, their hosts join every node's
 * scope when the profile names no hosts: the node that fetches one of
 * their pages is often another). Each change list is read from where the
 * last call left off.
 */
import type { HostHealth } from '../politeness/host-health.js';
import type { HostHealthJournal } from '../politeness/host-health-journal.js';
import type { RobotsJournal } from '../politeness/robots-journal.js';
import type { RobotsStore } from '../politeness/robots-store.js';
import type { JobRecords } from './job-records.js';
import { compileExclusion, type OperatorExclusions } from './operator-exclusions.js';
import type { Scope } from './scope.js';

export interface CrawlWideParts {
  robotsJournal: RobotsJournal;
  robotsStore: RobotsStore;
  healthJournal: HostHealthJournal;
  health: HostHealth;
  job: JobRecords;
  exclusions: OperatorExclusions;
  scope: Scope;
}

/** One step of following the others; a step still running when the next is due makes that one a no-op. */
export function crawlWideFollower(p: CrawlWideParts): () => Promise<void> {
  let running: Promise<void> | null = null;
  const step = async (): Promise<void> => {
    await Promise.all([
      p.robotsJournal.follow(p.robotsStore),
      p.healthJournal.follow(p.health),
      p.job.followAdded().then((added) => {
        for (const regex of added.exclusions) {
          if (p.exclusions.has(regex)) continue;
          const compiled = compileExclusion(regex);
          p.exclusions.add(regex);
          p.scope.addExclude(compiled);
        }
        if (p.scope.hostsFromSeeds) for (const seed of added.seeds) p.scope.addHost(new URL(seed).host);
      }),
    ]);
  };
  return () => {
    if (running !== null) return running;
    running = step().finally(() => {
      running = null;
    });
    return running;
  };
}
