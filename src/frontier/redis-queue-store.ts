/**
 * The frontier's queue store on Redis, shared by every node of a crawl
 * (SharedQueueStore): the queues' URIs, figures and hosts' gate times, and
 * which node holds each queue — a lease with an expiry (Redis `TIME`, never
 * a node's clock) and a fencing token (an epoch counted per shard). A queue
 * is one host under the default `hostname` assignment, so the lease of a
 * queue is the lease of its host: one node at a time fetches a host, within
 * `maxConnectionsPerHost`, and the host's delay travels with the queue's
 * figures when it changes hands.
 *
 * Every change is one Lua script (redis-queue-scripts.ts, where the key
 * layout is described) run by EVALSHA on one shard's keys.
 */
import type { CrawlKeys } from '../store/redis/crawl-keys.js';
import { SHARDS, shardOf } from '../store/redis/crawl-keys.js';
import type { RedisLink } from '../store/redis/redis-link.js';
import { parseMeta, type QueueMeta } from './queue-meta.js';
import type { QueueEntry, ReadEntry, SharedAddResult, SharedQueueStore, StoreBatch, StoredQueue, StoredState } from './queue-store.js';
import { ADD, ADOPT, CHECK, COMMIT, DRAIN, FIGURES, HELD, LOAD, RELEASE, RENEW, RETIRE } from './redis-queue-scripts.js';
import type { StoredUri } from './stored-uri.js';

export interface RedisQueueStoreOptions {
  link: RedisLink;
  keys: CrawlKeys;
  /** This node's id (leases are held by node). */
  node: string;
  /** This process's incarnation of it, `node.n`. */
  token: string;
  /** Lease lifetime, ms; renewed by renew() well within it. */
  leaseMs: number;
  /** How many unheld queues an add may take on now (the rest wait in the pending set). */
  room: () => number;
  /** First discovery counter of this process (see SharedFrontierHooks). */
  ordinalBase: number;
}

export interface RenewResult {
  /** Queues whose lease went elsewhere (this node was presumed dead). */
  lost: string[];
  /** Queues waiting for a node, all shards. */
  pending: number;
}

export interface CrawlQueueFigures {
  pendingQueues: number;
  leasedQueues: number;
  queuedUris: number;
  retiredQueues: number;
}

/** The one byte after the JSON: how long the sort key in front is. */
function member(sortKey: Buffer, value: StoredUri): Buffer {
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  return Buffer.concat([sortKey, json, Buffer.of(sortKey.length)]);
}

function parseMember(m: Buffer): ReadEntry {
  const len = m[m.length - 1]!;
  return { sortKey: Buffer.from(m.subarray(0, len)), value: JSON.parse(m.toString('utf8', len, m.length - 1)) as StoredUri };
}

export class RedisQueueStore implements SharedQueueStore {
  readonly #o: RedisQueueStoreOptions;
  /** Queue key → the lease epoch this node holds it under (the fencing token of its writes). */
  readonly #epochs = new Map<string, string>();
  /** Drains and adoptions sent, for their call ids (a call sent again is answered as the first time). */
  #calls = 0;
  /** The drain in progress: one at a time, so that a call sent again finds its own answer kept. */
  #draining: Promise<unknown> = Promise.resolve();

  constructor(o: RedisQueueStoreOptions) {
    this.#o = o;
  }

  get node(): string {
    return this.#o.node;
  }

  async load(): Promise<StoredState> {
    const queues = new Map<string, StoredQueue>();
    const hosts = new Map<string, number>();
    await this.#eachShard(async (shard) => {
      const [q, g] = await this.#eval<[Buffer[], Buffer[]]>(LOAD, shard, [this.#o.node, this.#o.leaseMs, this.#o.token]);
      for (let i = 0; i < q.length; i += 4) {
        const key = q[i]!.toString();
        this.#epochs.set(key, q[i + 1]!.toString());
        queues.set(key, stored(q[i + 2]!, q[i + 3]!));
      }
      for (let i = 0; i < g.length; i += 2) hosts.set(g[i]!.toString(), Number(g[i + 1]!.toString()));
    });
    return { queues, hosts, ordinal: this.#o.ordinalBase };
  }

  async add(entries: readonly QueueEntry[]): Promise<void> {
    await this.addShared(entries);
  }

  async addShared(entries: readonly QueueEntry[]): Promise<SharedAddResult> {
    const foreign = new Set<string>();
    const adopted = new Map<string, StoredQueue>();
    const byShard = new Map<number, Map<string, Buffer[]>>();
    for (const e of entries) {
      const shard = shardOf(e.queueKey);
      let queues = byShard.get(shard);
      if (queues === undefined) byShard.set(shard, (queues = new Map()));
      let members = queues.get(e.queueKey);
      if (members === undefined) queues.set(e.queueKey, (members = []));
      members.push(member(e.sortKey, e.value));
    }
    // The first `room` queues this node does not hold may be taken on (if no node holds them).
    let room = Math.max(0, Math.floor(this.#o.room()));
    await Promise.all(
      [...byShard].map(async ([shard, queues]) => {
        const args: (string | Buffer | number)[] = [this.#o.node, this.#o.leaseMs];
        for (const [key, members] of queues) {
          const may = !this.#epochs.has(key) && room > 0;
          if (may) room--;
          args.push(key, may ? 1 : 0, members.length, ...members);
        }
        const out = await this.#eval<Buffer[]>(ADD, shard, args);
        for (let i = 0; i < out.length; i += 5) {
          const status = out[i]!.toString();
          const key = out[i + 1]!.toString();
          if (status === 'f') foreign.add(key);
          else if (status === 'a') {
            this.#epochs.set(key, out[i + 2]!.toString());
            adopted.set(key, stored(out[i + 3]!, out[i + 4]!));
          }
        }
      }),
    );
    return { foreign, adopted };
  }

  async readAfter(queueKey: string, after: Buffer | null, limit: number): Promise<ReadEntry[]> {
    const key = this.#o.keys.queue(shardOf(queueKey), queueKey);
    const min = after === null ? '-' : Buffer.concat([Buffer.from('('), after, Buffer.of(0xff)]);
    const got = await this.#o.link.command<Buffer[]>(['ZRANGE', key, min, '+', 'BYLEX', 'LIMIT', '0', String(limit)], true);
    return got.map(parseMember);
  }

  async commit(batch: StoreBatch): Promise<void> {
    const byShard = new Map<number, (string | Buffer | number)[]>();
    const args = (shard: number): (string | Buffer | number)[] => {
      let a = byShard.get(shard);
      if (a === undefined) byShard.set(shard, (a = [this.#o.node]));
      return a;
    };
    for (const op of batch.ops) {
      if (op.type === 'del') args(shardOf(op.ref.queueKey)).push('d', op.ref.queueKey, op.ref.sortKey);
      else {
        const e = op.entry;
        args(shardOf(e.queueKey)).push('p', e.queueKey, this.#epochs.get(e.queueKey) ?? '', e.sortKey, member(e.sortKey, e.value));
      }
    }
    for (const [key, meta] of batch.queues) args(shardOf(key)).push('m', key, this.#epochs.get(key) ?? '', JSON.stringify(meta));
    for (const [host, openAt] of batch.hosts) args(shardOf(host)).push('h', host, openAt);
    await Promise.all([...byShard].map(([shard, a]) => this.#eval(COMMIT, shard, a)));
  }

  /** URIs others scheduled into this node's queues since the last call. */
  drain(max = 1000): Promise<QueueEntry[]> {
    const run = this.#draining.then(() => this.#drainOnce(max));
    this.#draining = run.catch(() => undefined);
    return run;
  }

  async #drainOnce(max: number): Promise<QueueEntry[]> {
    const out: QueueEntry[] = [];
    const id = this.#callId();
    await this.#eachShard(async (shard) => {
      const got = await this.#eval<Buffer[]>(DRAIN, shard, [this.#o.node, max, id]);
      for (let i = 0; i < got.length; i += 2) {
        const { sortKey, value } = parseMember(got[i + 1]!);
        out.push({ queueKey: got[i]!.toString(), sortKey, value });
      }
    });
    return out;
  }

  /** Renew this node's leases; release expired ones and those of `deadNodes`. */
  async renew(deadIncarnations: readonly string[]): Promise<RenewResult> {
    const lost: string[] = [];
    let pending = 0;
    // What this node believes it holds, by shard: the script says which of it is no longer so.
    const held = new Map<number, (string | number)[]>();
    for (const [key, epoch] of this.#epochs) {
      const shard = shardOf(key);
      (held.get(shard) ?? held.set(shard, []).get(shard)!).push(key, epoch);
    }
    await this.#eachShard(async (shard) => {
      const [l, p] = await this.#eval<[Buffer[], number]>(RENEW, shard, [this.#o.node, this.#o.leaseMs, deadIncarnations.join(','), ...(held.get(shard) ?? [])]);
      for (const key of l) {
        lost.push(key.toString());
        this.#epochs.delete(key.toString());
      }
      pending += Number(p);
    });
    return { lost, pending };
  }

  /**
   * Take up to `max` queues waiting for a node (the caller adopts one batch at a time). `granted` hears of
   * each shard's queues as soon as its answer is read, before this node's later calls are answered.
   */
  async adopt(max: number, granted: (queues: ReadonlyMap<string, StoredQueue>) => void = () => {}): Promise<Map<string, StoredQueue>> {
    const adopted = new Map<string, StoredQueue>();
    if (max <= 0) return adopted;
    for (let shard = 0; shard < SHARDS && adopted.size < max; shard++) {
      const got = await this.#eval<Buffer[]>(ADOPT, shard, [this.#o.node, this.#o.leaseMs, max - adopted.size, this.#callId()]);
      const here = new Map<string, StoredQueue>();
      for (let i = 0; i < got.length; i += 4) {
        const key = got[i]!.toString();
        this.#epochs.set(key, got[i + 1]!.toString());
        here.set(key, stored(got[i + 2]!, got[i + 3]!));
      }
      if (here.size > 0) granted(here);
      for (const [key, queue] of here) adopted.set(key, queue);
    }
    return adopted;
  }

  /** Give queues back (to the pending set), with their figures as of now. */
  async release(queues: ReadonlyMap<string, QueueMeta>): Promise<void> {
    const byShard = new Map<number, (string | number)[]>();
    for (const [key, meta] of queues) {
      const epoch = this.#epochs.get(key);
      if (epoch === undefined) continue;
      this.#epochs.delete(key);
      const shard = shardOf(key);
      const a = byShard.get(shard) ?? byShard.set(shard, [this.#o.node]).get(shard)!;
      a.push(key, epoch, JSON.stringify(meta));
    }
    await Promise.all([...byShard].map(([shard, a]) => this.#eval(RELEASE, shard, a)));
  }

  async retire(queueKey: string): Promise<void> {
    await this.#eval(RETIRE, shardOf(queueKey), [queueKey]);
  }

  /**
   * Whether the crawl's queues are all done: nothing pending, in an inbox,
   * or in a leased queue outside retired ones. Shards are read one by one,
   * so twice: the second pass must find every shard idle at the version the
   * first saw (work moving between shards in between bumps a version).
   */
  async idle(nodes: readonly string[]): Promise<boolean> {
    const pass = async (): Promise<string[] | null> => {
      const versions = await Promise.all(
        Array.from({ length: SHARDS }, async (_, shard) => {
          const [idle, ver] = await this.#eval<[number, Buffer]>(CHECK, shard, [nodes.join(',')]);
          return Number(idle) === 1 ? ver.toString() : null;
        }),
      );
      return versions.some((v) => v === null) ? null : (versions as string[]);
    };
    const first = await pass();
    if (first === null) return false;
    const second = await pass();
    return second !== null && second.every((v, i) => v === first[i]);
  }

  /** Queues this node holds a lease on that hold URIs in the store (retired ones left out), all shards. */
  async heldWithUris(): Promise<string[]> {
    const keys: string[] = [];
    await this.#eachShard(async (shard) => {
      for (const key of await this.#eval<Buffer[]>(HELD, shard, [this.#o.node])) keys.push(key.toString());
    });
    return keys;
  }

  /** Counts over all shards, for status pages. */
  async figures(): Promise<CrawlQueueFigures> {
    const f: CrawlQueueFigures = { pendingQueues: 0, leasedQueues: 0, queuedUris: 0, retiredQueues: 0 };
    await this.#eachShard(async (shard) => {
      const [p, l, u, r] = await this.#eval<number[]>(FIGURES, shard, []);
      f.pendingQueues += Number(p);
      f.leasedQueues += Number(l);
      f.queuedUris += Number(u);
      f.retiredQueues += Number(r);
    });
    return f;
  }

  /** Unique to this incarnation's calls (the token is the incarnation's). */
  #callId(): string {
    return `${this.#o.token}#${++this.#calls}`;
  }

  #eval<T>(script: Parameters<RedisLink['eval']>[0], shard: number, args: readonly (string | Buffer | number)[]): Promise<T> {
    const tag = this.#o.keys.shardTag(shard);
    return this.#o.link.eval<T>(script, [`${tag}:lease`], [tag, ...args], true);
  }

  async #eachShard(fn: (shard: number) => Promise<void>): Promise<void> {
    await Promise.all(Array.from({ length: SHARDS }, (_, shard) => fn(shard)));
  }
}

/** The crawl's queues over all shards, read without joining it (for `archiver status`); held = held by one of `liveNodes`. */
export async function crawlQueueFigures(link: RedisLink, keys: CrawlKeys, liveNodes: readonly string[]): Promise<CrawlQueueFigures> {
  const f: CrawlQueueFigures = { pendingQueues: 0, leasedQueues: 0, queuedUris: 0, retiredQueues: 0 };
  await Promise.all(
    Array.from({ length: SHARDS }, async (_, shard) => {
      const tag = keys.shardTag(shard);
      const [p, l, u, r] = await link.eval<number[]>(FIGURES, [`${tag}:lease`], [tag, ...liveNodes]);
      f.pendingQueues += Number(p);
      f.leasedQueues += Number(l);
      f.queuedUris += Number(u);
      f.retiredQueues += Number(r);
    }),
  );
  return f;
}

/**
 * A queue's count and figures as Redis keeps them. The saved next URI
 * (QueueMeta k, p) is left out: other nodes add URIs to a queue its holder
 * never sees while the queue waits for a node or its holder is down, so a
 * queue taken on has its rank read from its URIs when the `priority`
 * precedence needs it (queue-heads.ts).
 */
function stored(count: Buffer | number, meta: Buffer | string): StoredQueue {
  const text = meta.toString();
  if (text === '') return { count: Number(count.toString()), meta: null };
  const { k: _key, p: _rank, ...figures } = parseMeta(text);
  return { count: Number(count.toString()), meta: figures };
}
