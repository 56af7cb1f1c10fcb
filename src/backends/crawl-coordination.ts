/**
 * What the nodes of one crawl agree on, apart from its queues and seen
 * URLs: who takes part (registration, heartbeats, liveness), the crawl's
 * run flags (paused, stopped) that the crawl handle and `archiver stop` set
 * for every node, when the crawl is finished and which node packages it.
 * Each state backend gives one (state-backends.ts): `level` a trivial one
 * (one process is the whole crawl), Redis the real one
 * (redis-coordination.ts). The crawl talks to this interface only.
 */
import type { NodeView } from '../frontier/redis-frontier.js';

export interface RunFlags {
  paused: boolean;
  stopped: boolean;
}

/** One node's figures, as it publishes them with each heartbeat. */
export interface NodeFigures {
  node: string;
  /** Whether its heartbeat is recent. */
  alive: boolean;
  /** Redis time of its last heartbeat (epoch ms). */
  lastHeartbeat: number;
  /** When it joined (epoch ms). */
  startedAt: number;
  /** Captures (crawl.log lines that wrote a record) and their body bytes, this node's whole job. */
  pages: number;
  bytes: number;
  /** Pages per second over this run. */
  pagesPerSec: number;
  /** URIs in process now. */
  inFlight: number;
  /** Queues holding URIs on this node. */
  busyQueues: number;
  /** Crawl time of this node, ms. */
  elapsedMs: number;
  /** The node's queues by state. */
  queues?: Record<string, number>;
}

export interface JoinResult {
  /** The crawl was finished before this node joined. */
  finished: boolean;
  /** This process's incarnation number in the crawl (sort keys of different processes never collide). */
  incarnation: number;
  /** Redis time at the join (epoch ms). */
  at: number;
}

export interface CrawlCoordination {
  /** This node's id; null for a crawl of one process (its files keep their single-process names). */
  readonly node: string | null;
  /** Join the crawl (see the Redis one for what is refused). */
  join(profileHash: string): Promise<JoinResult>;
  /** What this node knows of the others (kept current by the heartbeat). */
  view(): NodeView;
  /** This node is about to run seeds through the seen filter and queue the new ones: the crawl may not end meanwhile. */
  seeding(): Promise<void>;
  /** This node ran its seeds through the seen filter and queued the new ones: once every live node has, the crawl may end. */
  seeded(): Promise<void>;
  /** Heartbeats and the crawl's flags: `figures` is sampled for each beat, `onFlags` hears every change. */
  start(figures: () => Omit<NodeFigures, 'node' | 'alive' | 'lastHeartbeat' | 'startedAt'>, onFlags: (flags: RunFlags) => void): void;
  /** Set a flag for every node of the crawl. */
  setFlag(flag: keyof RunFlags, on: boolean): Promise<void>;
  /** This node's run is over; true when it is the one to package the finished crawl. */
  leave(finished: boolean): Promise<boolean>;
  /** The package is written (noted for `archiver status`). */
  packaged(): Promise<void>;
  /** Every node's last figures. */
  nodes(): Promise<NodeFigures[]>;
  close(): Promise<void>;
}

/** One process is the whole crawl. */
export function soleCoordination(): CrawlCoordination {
  return {
    node: null,
    join: async () => ({ finished: false, incarnation: 0, at: Date.now() }),
    view: () => ({ live: () => [], deadIncarnations: () => [], all: () => [], busyQueues: () => new Map(), mayFinish: async () => 0 }),
    seeding: async () => {},
    seeded: async () => {},
    start: () => {},
    setFlag: async () => {},
    leave: async (finished) => finished,
    packaged: async () => {},
    nodes: async () => [],
    close: async () => {},
  };
}
