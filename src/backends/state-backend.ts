/**
 * What a state backend is: where a crawl keeps its state (the frontier's
 * queued URIs, the seen filters, the robots cache, the hosts' health, the
 * digest index, the earlier crawls' payloads, the job's own records) and
 * how its processes coordinate. Each kind of backend is one row of the
 * table (state-backends.ts); the crawl talks to these interfaces only.
 */
import type { Clock } from '../core/clock.js';
import type { Frontier } from '../frontier/frontier.js';
import type { FrontierInitOptions } from '../frontier/frontier-init.js';
import type { ByteMap, ClearableByteMap } from '../store/byte-map.js';
import type { RecordStore, SharedRecordStore } from '../store/record-store.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import type { StoredQueueView } from '../frontier/redis-queue-listing.js';
import type { CrawlCoordination, JoinResult, RunFlags } from './crawl-coordination.js';
import type { CrawlReport } from './redis-inspect.js';

/** Names of the record stores a crawl keeps. */
export type RecordsName = 'robots' | 'health' | 'job' | 'focus';

export interface StateBackend {
  /** The name it was chosen by (`level`, `redis://…`). */
  readonly name: string;
  /** Several processes share this state (the row's `shared`): caches confirm misses in the store, each node writes its own files. */
  readonly shared: boolean;
  /** The crawl's processes: registration, heartbeats, run flags, the end (trivial for a backend of one process). */
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
  /** The payload digest index's map. */
  digests(): ByteMap;
  /** Earlier crawls' payloads (dedup.against). */
  earlier(): ClearableByteMap;
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

/**
 * What `archiver status`, `archiver stop` and `archiver serve --store` see
 * of an inspectable store's crawls, and do to them, from outside (no crawl
 * is joined).
 */
export interface StoreInspector {
  /** The crawl named, or the store's only one (a usage error lists the names otherwise). */
  pick(crawl: string | undefined): Promise<string>;
  report(crawl: string): Promise<CrawlReport>;
  /** Set the crawl's stop flag, as its handle does: every node stops; resolves with the number of live nodes asked. */
  stop(crawl: string): Promise<number>;
  /** Set or clear a run flag for every node, as the handle does (pause, resume, stop); resolves with the number of live nodes asked. */
  setFlag(crawl: string, flag: keyof RunFlags, on: boolean): Promise<number>;
  /** The crawl's shared records: what is put in `job` (seeds, exclusions) every node takes in within a second. */
  records(crawl: string, name: RecordsName): SharedRecordStore;
  /** The queues of every node as the store holds them, at most `limitPerShard` from each of its shards. */
  queues(crawl: string, limitPerShard: number): Promise<StoredQueueView[]>;
  close(): Promise<void>;
}

/** One kind of backend: a row of the table. */
export interface BackendRow {
  /** The row's name, and how its specs are written (for the usage error that lists the known ones). */
  readonly name: string;
  readonly specs: string;
  matches(spec: string): boolean;
  /** Several processes share one crawl's state (then a node id means something). */
  readonly shared: boolean;
  /** Its crawls can be looked at and stopped from outside (`archiver status`, `archiver stop`); null: not. */
  readonly inspect: ((spec: string) => Promise<StoreInspector>) | null;
  open(spec: string, target: BackendTarget): Promise<StateBackend>;
  /** Forget a crawl's state kept outside its job directory (`--fresh`); nothing for a backend that keeps none. */
  reset(spec: string, crawl: string): Promise<void>;
}
