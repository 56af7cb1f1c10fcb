/**
 * Where a crawl keeps its state, chosen by one name (the profile's `store`,
 * or `--store`): the frontier's queued URIs, the seen filters, the robots
 * cache, the hosts' health, the digest index, the earlier crawls' payloads,
 * the job's own records, and the coordination of the crawl's processes.
 * - `level` (default): one LevelDB per job under `state/`; one process is
 *   the whole crawl.
 * - `redis://HOST:PORT/DB`: the crawl's state in Redis 7 under keys
 *   prefixed by the profile's name, shared by any number of processes
 *   (nodes) on one machine or several: the frontier with a lease per host,
 *   the seen filter, the digest index and robots.txt results are common to
 *   all; each node writes its own files in the job directory.
 * - `redis+cluster://HOST:PORT[,HOST:PORT…]`: the same on a Redis Cluster
 *   (any one seed node is enough); the keys of one hash tag per script, so
 *   the crawl's per-host keys spread over the masters by host.
 * Nothing outside this room opens a database: every part of the crawl gets
 * its store from the backend, and talks to interfaces only (Frontier,
 * UriUniqFilter, RecordStore, MapLevel, CrawlCoordination).
 */
import os from 'node:os';
import type { Clock } from '../core/clock.js';
import { FatalCrawlError, UsageError } from '../core/errors.js';
import type { MapLevel } from '../dedup/fingerprinted-map.js';
import type { EarlierLevel } from '../dedup/earlier-captures.js';
import { keyspaceLevel } from '../dedup/keyspace-level.js';
import type { Frontier } from '../frontier/frontier.js';
import { LevelQueueStore } from '../frontier/level-queue-store.js';
import { RedisFrontier } from '../frontier/redis-frontier.js';
import type { FrontierInitOptions } from '../frontier/frontier-init.js';
import { WorkQueueFrontier } from '../frontier/work-queue-frontier.js';
import { machineLoadSlack } from '../politeness/load-slack.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import { LevelUriUniqFilter } from '../uniq/level-uniq-filter.js';
import { RedisUriUniqFilter } from '../uniq/redis-uniq-filter.js';
import { soleCoordination, type CrawlCoordination, type JoinResult } from './crawl-coordination.js';
import { Keyspace } from './keyspace.js';
import { levelDatabase } from './level-database.js';
import { keyspaceRecords, type RecordStore } from './record-store.js';
import { CrawlKeys, crawlKeyPattern } from './redis/crawl-keys.js';
import { RedisCoordination } from './redis/redis-coordination.js';
import { RedisLink } from './redis/redis-link.js';
import { redisMap, redisRecords, type SharedRecordStore } from './redis/redis-records.js';
import { isRedisSpec, parseRedisSpec } from './redis/redis-spec.js';
import { crawlReport, pickCrawl, stopCrawl, type CrawlReport } from './redis/redis-inspect.js';

/** Names of the record stores a crawl keeps. */
export type RecordsName = 'robots' | 'health' | 'job' | 'focus';

export interface StateBackend {
  /** The name it was chosen by (`level`, `redis://…`). */
  readonly name: string;
  /** Several processes share this state: caches confirm misses in the store, each node writes its own files. */
  readonly shared: boolean;
  /** The crawl's processes: registration, heartbeats, run flags, the end (trivial for `level`). */
  readonly coordination: CrawlCoordination;
  /** What joining the crawl found (a finished crawl, this process's incarnation). */
  readonly joined: JoinResult;
  /** The clock stored times are read from, when the backend keeps one (Redis TIME); null: the crawl's own. */
  readonly clock: Clock | null;
  /** The frontier over this backend's queues: resumed from what it holds when `resuming`, else new. */
  frontier(init: FrontierInitOptions, resuming: boolean): Promise<Frontier>;
  /** An already-seen filter: `seen` for in-scope URLs, `refused` for refusals logged once. */
  seenFilter(which: 'seen' | 'refused', memoryKeys: number): UriUniqFilter;
  /** Small keyed records (those of a shared backend also tell what others changed). */
  records(name: RecordsName): RecordStore | SharedRecordStore;
  /** The payload digest index of this crawl. */
  digests(): MapLevel;
  /** Earlier crawls' payloads (dedup.against). */
  earlier(): EarlierLevel;
  /** The whole crawl as the store holds it — every node, totals, the queues of all shards (a shared backend); null: this process is the crawl. */
  crawlReport(): Promise<CrawlReport | null>;
  close(): Promise<void>;
}

export interface BackendTarget {
  /** The job's `state/` directory (for backends that keep files). */
  stateDir: string;
  /** The crawl's name (the profile's): a shared backend keeps several crawls apart by it. */
  crawl: string;
  /** This process's node id in a shared crawl; default the machine's hostname. */
  node?: string;
  /** The profile's hash: nodes of one crawl must run the same profile. */
  profileHash: string;
  /** Where notices go (Redis unreachable, back). */
  log: NodeJS.WritableStream | null;
}

type BackendFactory = (spec: string, target: BackendTarget) => Promise<StateBackend>;

const BACKENDS: ReadonlyArray<{ matches: (spec: string) => boolean; open: BackendFactory; reset: (spec: string, crawl: string) => Promise<void> }> = [
  { matches: (spec) => spec === 'level', open: openLevelBackend, reset: async () => {} },
  { matches: isRedisSpec, open: openRedisBackend, reset: resetRedisCrawl },
];

function entryFor(spec: string) {
  const entry = BACKENDS.find((b) => b.matches(spec));
  if (entry === undefined) throw new UsageError(`unknown state store ${JSON.stringify(spec)} (known: level, redis://HOST:PORT/DB, redis+cluster://HOST:PORT[,HOST:PORT…])`);
  return entry;
}

/** Open the backend `spec` names; an unknown name is a usage error. */
export async function openStateBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  return entryFor(spec).open(spec, target);
}

/**
 * Forget a crawl's state kept outside its job directory (`--fresh`): a
 * Redis crawl's keys; refused while a node of it is alive. Level keeps its
 * state in the job directory, which `--fresh` moves aside.
 */
export async function resetStateBackend(spec: string, crawl: string): Promise<void> {
  await entryFor(spec).reset(spec, crawl);
}

/** Whether `spec` names a backend several processes share (then `--node` means something). */
export function isSharedStore(spec: string): boolean {
  return isRedisSpec(spec);
}

/** What `archiver status` and `archiver stop` see of a shared store's crawls. */
export interface StoreInspector {
  /** The crawl named, or the store's only one (a usage error lists the names otherwise). */
  pick(crawl: string | undefined): Promise<string>;
  report(crawl: string): Promise<CrawlReport>;
  /** Ask every node of the crawl to stop; resolves with the number of live nodes asked. */
  stop(crawl: string): Promise<number>;
  close(): Promise<void>;
}

/** Open a shared store to look at its crawls from outside (no crawl is joined). */
export async function inspectStore(spec: string): Promise<StoreInspector> {
  if (!isRedisSpec(spec)) throw new UsageError(`${JSON.stringify(spec)}: status and stop take a shared store, redis://HOST:PORT/DB or redis+cluster://HOST:PORT`);
  const link = await RedisLink.open(parseRedisSpec(spec), { log: null, connectWaitMs: 5000 });
  return {
    pick: (crawl) => pickCrawl(link, crawl),
    report: (crawl) => crawlReport(link, crawl),
    stop: (crawl) => stopCrawl(link, crawl),
    close: () => link.close(),
  };
}

/** A node id from a hostname: letters, digits and `._-` only. */
export function defaultNodeId(): string {
  return os.hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'node';
}

export function checkNodeId(node: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(node)) throw new UsageError(`--node ${JSON.stringify(node)}: letters, digits and ._- only (at most 64)`);
  return node;
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
    shared: false,
    coordination: soleCoordination(),
    joined: { finished: false, incarnation: 0, at: Date.now() },
    clock: null,
    async frontier(init, resuming) {
      const full = { ...init, store: new LevelQueueStore(new Keyspace(db, 'frontier')) };
      return resuming ? WorkQueueFrontier.open(full) : new WorkQueueFrontier(full);
    },
    seenFilter: (which, memoryKeys) => new LevelUriUniqFilter(new Keyspace(db, which), { memoryKeys }),
    records: (name) => keyspaceRecords(new Keyspace(db, name)),
    digests: () => keyspaceLevel(new Keyspace(db, 'digests')),
    earlier: () => keyspaceLevel(new Keyspace(db, 'earlier')),
    crawlReport: async () => null,
    close: () => db.close(),
  };
}

async function openRedisBackend(spec: string, target: BackendTarget): Promise<StateBackend> {
  const link = await RedisLink.open(parseRedisSpec(spec), { log: target.log });
  try {
    const keys = new CrawlKeys(target.crawl);
    const node = checkNodeId(target.node ?? defaultNodeId());
    const coordination = new RedisCoordination(link, keys, node);
    const joined = await coordination.join(target.profileHash);
    const token = coordination.token;
    return {
      name: spec,
      shared: true,
      coordination,
      joined,
      clock: coordination.clock,
      frontier: (init) =>
        RedisFrontier.open({
          ...init,
          link,
          keys,
          node,
          ordinalTag: joined.incarnation,
          // Counters start at the time in 10 ms steps: URIs of a later node sort after an earlier one's, roughly.
          ordinalBase: Math.max(0, Math.floor((joined.at - 1.6e12) / 10)),
          view: coordination.view(),
          delaySlackMs: machineLoadSlack(),
        }),
      seenFilter: (which, memoryKeys) =>
        new RedisUriUniqFilter({ link, keys, name: which, token, memoryKeys, voids: () => ({ dead: coordination.view().deadIncarnations(), current: coordination.currentTokens() }) }),
      records: (name) => redisRecords(link, keys, name),
      digests: () => redisMap(link, keys, 'digests'),
      earlier: () => redisMap(link, keys, 'earlier'),
      crawlReport: () => crawlReport(link, target.crawl),
      async close() {
        await coordination.close();
        await link.close();
      },
    };
  } catch (err) {
    await link.close();
    throw err;
  }
}

async function resetRedisCrawl(spec: string, crawl: string): Promise<void> {
  const link = await RedisLink.open(parseRedisSpec(spec), { log: null, connectWaitMs: 5000 });
  try {
    const keys = new CrawlKeys(crawl);
    const t = await link.time(keys.meta);
    const alive = await link.command<string[]>(['ZRANGE', keys.nodes, String(t - 10_000), '+inf', 'BYSCORE']);
    if (alive.length > 0) throw new UsageError(`crawl ${JSON.stringify(crawl)} in ${spec} has live nodes (${alive.join(', ')}): stop them first (archiver stop ${spec} --crawl ${crawl})`);
    for (const pattern of crawlKeyPattern(crawl)) {
      // One UNLINK per key: the keys of a crawl span many slots of a cluster.
      for await (const found of link.scan(pattern)) await Promise.all(found.map((key) => link.command(['UNLINK', key])));
    }
  } finally {
    await link.close();
  }
}
