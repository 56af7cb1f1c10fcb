/**
 * What a node of a crawl of several processes takes in from the others,
 * once a second, so that the crawl acts as one: robots.txt results
 * (fetched once for the whole crawl), hosts' health (a host closed on one
 * node — robots.txt unavailable, transport failures — is closed on every
 * node), and the operator's exclusions and seeds (added on any node or by
 * `archiver serve --store`: exclusions refuse links and drop queued URIs on
 * every node, seeds join every node's scope and go through the shared seen
 * filter, which queues each once; the store keeps both for a resume). Each
 * change list is read from where the last call left off.
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
  /** Seeds another process recorded: into this node's scope and the shared frontier (already seen ones are dropped there). */
  seedsAdded: (urls: readonly string[]) => Promise<void>;
}

/**
 * One step of following the others; a step still running when the next is
 * due makes that one a no-op. `fresh()` is a step begun now, after any
 * under way, so it reads what was recorded before the call.
 */
export function crawlWideFollower(p: CrawlWideParts): { step: () => Promise<void>; fresh: () => Promise<void> } {
  let running: Promise<void> | null = null;
  const step = async (): Promise<void> => {
    await Promise.all([
      p.robotsJournal.follow(p.robotsStore),
      p.healthJournal.follow(p.health),
      p.job.followAdded().then(async (added) => {
        for (const regex of added.exclusions) {
          if (p.exclusions.has(regex)) continue;
          const compiled = compileExclusion(regex);
          p.exclusions.add(regex);
          p.scope.addExclude(compiled);
        }
        if (added.seeds.length > 0) await p.seedsAdded(added.seeds);
      }),
    ]);
  };
  const once = (): Promise<void> => {
    if (running !== null) return running;
    running = step().finally(() => {
      running = null;
    });
    return running;
  };
  const fresh = async (): Promise<void> => {
    if (running !== null) await running.catch(() => undefined);
    await once();
  };
  return { step: once, fresh };
}
