/**
 * Where a crawl keeps its state, chosen by one name (the profile's `store`):
 * the frontier's queued URIs, the seen filters, the robots cache, the hosts'
 * health, the digest index, the earlier crawls' payloads and the job's own
 * records. `level` — one LevelDB per job under `state/` — is the default and
 * the only backend for now; a networked one (Redis) joins the table with
 * values such as `redis://host:port/db`. Nothing outside this room opens a
 * database: every part of the crawl gets its store from the backend.
 */
import { FatalCrawlError, UsageError } from '../core/errors.js';
import type { MapLevel } from '../dedup/fingerprinted-map.js';
import type { EarlierLevel } from '../dedup/earlier-captures.js';
import { keyspaceLevel } from '../dedup/keyspace-level.js';
import { LevelQueueStore } from '../frontier/level-queue-store.js';
import type { QueueStore } from '../frontier/queue-store.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import { LevelUriUniqFilter } from '../uniq/level-uniq-filter.js';
import { Keyspace } from './keyspace.js';
import { levelDatabase } from './level-database.js';
import { keyspaceRecords, type RecordStore } from './record-store.js';

/** Names of the record stores a crawl keeps. */
export type RecordsName = 'robots' | 'health' | 'job' | 'focus';

export interface StateBackend {
  /** The name it was chosen by (`level`, …). */
  readonly name: string;
  /** Where the frontier keeps its queued URIs, queues' figures and hosts' gate times. */
  queueStore(): QueueStore;
  /** An already-seen filter: `seen` for in-scope URLs, `refused` for refusals logged once. */
  seenFilter(which: 'seen' | 'refused', memoryKeys: number): UriUniqFilter;
  /** Small keyed records. */
  records(name: RecordsName): RecordStore;
  /** The payload digest index of this crawl. */
  digests(): MapLevel;
  /** Earlier crawls' payloads (dedup.against). */
  earlier(): EarlierLevel;
  close(): Promise<void>;
}

export interface BackendTarget {
  /** The job's `state/` directory (for backends that keep files). */
  stateDir: string;
}

type BackendFactory = (spec: string, target: BackendTarget) => Promise<StateBackend>;

const BACKENDS: ReadonlyArray<{ matches: (spec: string) => boolean; open: BackendFactory }> = [{ matches: (spec) => spec === 'level', open: openLevelBackend }];

/** Open the backend `spec` names; an unknown name is a usage error. */
export async function openStateBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  const entry = BACKENDS.find((b) => b.matches(spec));
  if (entry === undefined) throw new UsageError(`unknown state store ${JSON.stringify(spec)} (known: level)`);
  return entry.open(spec, target);
}

async function openLevelBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  const db = levelDatabase(target.stateDir);
  try {
    await db.open();
  } catch (err) {
    throw new FatalCrawlError('ARCHIVER_STATE_LOCKED', `${target.stateDir}: cannot open crawl state (is another crawl running on this job?)`, { cause: err });
  }
  // Keyspaces hold the same bytes as sublevels of these names (earlier versions wrote sublevels).
  return {
    name: spec,
    queueStore: () => new LevelQueueStore(new Keyspace(db, 'frontier')),
    seenFilter: (which, memoryKeys) => new LevelUriUniqFilter(new Keyspace(db, which), { memoryKeys }),
    records: (name) => keyspaceRecords(new Keyspace(db, name)),
    digests: () => keyspaceLevel(new Keyspace(db, 'digests')),
    earlier: () => keyspaceLevel(new Keyspace(db, 'earlier')),
    close: () => db.close(),
  };
}
