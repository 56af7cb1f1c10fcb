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
 * Keys, per shard tag `T` = `arc:{crawl:shard}` (shard = queue key's
 * fingerprint, so Redis Cluster shards by host; every script touches one
 * shard's keys only):
 * - `T:q:<queueKey>`   sorted set, score 0, members `sortKey ‖ JSON ‖ len`
 *   in lexical order = queue order (a queue's sort keys have one length);
 * - `T:meta`           hash queueKey → figures (queue-meta.ts);
 * - `T:gate`           hash host → epoch ms its gate opens;
 * - `T:lease`          hash queueKey → `node|epoch`; `T:leasez` sorted set
 *   queueKey → expiry; `T:owned:<node>` set of its queues; `T:epoch`;
 * - `T:inc`            hash node → its latest incarnation (`node.n`) that
 *   loaded here: a dead incarnation's leases are released only while
 *   the node has not come back as a newer one;
 * - `T:pending`        set of queues holding URIs and no lease;
 * - `T:retired`        set of queues at their total budget;
 * - `T:inbox:<node>`   list of `queueKey|member` scheduled by others into
 *   the node's queues (written to the queue by the node itself, so its
 *   counts stay exact; a dead node's inbox is moved into the queues);
 * - `T:ver`            counter bumped by every change (finished detection).
 * Every change is one Lua script (EVALSHA).
 */
import type { CrawlKeys } from '../store/redis/crawl-keys.js';
import { SHARDS, shardOf } from '../store/redis/crawl-keys.js';
import { redisScript, type RedisLink } from '../store/redis/redis-link.js';
import { parseMeta, type QueueMeta } from './queue-meta.js';
import type { QueueEntry, ReadEntry, SharedAddResult, SharedQueueStore, StoreBatch, StoredQueue, StoredState } from './queue-store.js';
import type { StoredUri } from './stored-uri.js';

const LIB = `
local T = ARGV[1]
local function now() local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local function ownerOf(qk)
  local v = redis.call('HGET', T .. ':lease', qk)
  if not v then return nil, nil end
  return string.match(v, '^(.*)|(%d+)$')
end
local function grant(qk, me, ttl, t)
  local e = redis.call('INCR', T .. ':epoch')
  redis.call('HSET', T .. ':lease', qk, me .. '|' .. e)
  redis.call('ZADD', T .. ':leasez', t + ttl, qk)
  redis.call('SADD', T .. ':owned:' .. me, qk)
  redis.call('SREM', T .. ':pending', qk)
  return e
end
local function release(qk, node)
  redis.call('HDEL', T .. ':lease', qk)
  redis.call('ZREM', T .. ':leasez', qk)
  if node then redis.call('SREM', T .. ':owned:' .. node, qk) end
  if redis.call('ZCARD', T .. ':q:' .. qk) > 0 and redis.call('SISMEMBER', T .. ':retired', qk) == 0 then redis.call('SADD', T .. ':pending', qk) end
end
local function stored(qk) return redis.call('ZCARD', T .. ':q:' .. qk), (redis.call('HGET', T .. ':meta', qk) or '') end
local function route(qk, member)
  local node = ownerOf(qk)
  if node then redis.call('RPUSH', T .. ':inbox:' .. node, qk .. '|' .. member)
  else
    redis.call('ZADD', T .. ':q:' .. qk, 0, member)
    if redis.call('SISMEMBER', T .. ':retired', qk) == 0 then redis.call('SADD', T .. ':pending', qk) end
  end
end
local function split(entry) local at = string.find(entry, '|', 1, true) return string.sub(entry, 1, at - 1), string.sub(entry, at + 1) end
`;

/** ARGV: T, me, ttl, then per queue: key, may take it on (1|0), n, n members → per queue: status (m|f|a), key, epoch, count, meta. */
const ADD = redisScript(
  'frontier-add',
  `${LIB}
local me, ttl = ARGV[2], tonumber(ARGV[3])
local t = now()
local out = {}
local i = 4
while i <= #ARGV do
  local qk, room, n = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  i = i + 1
  local node, epoch = ownerOf(qk)
  local qkey = T .. ':q:' .. qk
  if node == me then
    for j = 1, n do redis.call('ZADD', qkey, 0, ARGV[i + 1 + j]) end
    table.insert(out, 'm') table.insert(out, qk) table.insert(out, epoch) table.insert(out, 0) table.insert(out, '')
  elseif node then
    for j = 1, n do redis.call('RPUSH', T .. ':inbox:' .. node, qk .. '|' .. ARGV[i + 1 + j]) end
    table.insert(out, 'f') table.insert(out, qk) table.insert(out, '') table.insert(out, 0) table.insert(out, '')
  elseif room == '1' and redis.call('SISMEMBER', T .. ':retired', qk) == 0 then
    local count, meta = stored(qk)
    local e = grant(qk, me, ttl, t)
    for j = 1, n do redis.call('ZADD', qkey, 0, ARGV[i + 1 + j]) end
    table.insert(out, 'a') table.insert(out, qk) table.insert(out, tostring(e)) table.insert(out, count) table.insert(out, meta)
  else
    for j = 1, n do redis.call('ZADD', qkey, 0, ARGV[i + 1 + j]) end
    if redis.call('SISMEMBER', T .. ':retired', qk) == 0 then redis.call('SADD', T .. ':pending', qk) end
    table.insert(out, 'f') table.insert(out, qk) table.insert(out, '') table.insert(out, 0) table.insert(out, '')
  end
  i = i + 2 + n
end
redis.call('INCR', T .. ':ver')
return out`,
);

/** ARGV: T, me, max → key, member, … of URIs others scheduled into my queues (now written to them). */
const DRAIN = redisScript(
  'frontier-drain',
  `${LIB}
local me = ARGV[2]
local got = redis.call('LPOP', T .. ':inbox:' .. me, tonumber(ARGV[3]))
local out = {}
if not got then return out end
for _, entry in ipairs(got) do
  local qk, member = split(entry)
  if ownerOf(qk) == me then
    redis.call('ZADD', T .. ':q:' .. qk, 0, member)
    table.insert(out, qk) table.insert(out, member)
  else route(qk, member) end
end
redis.call('INCR', T .. ':ver')
return out`,
);

/** ARGV: T, me, then ops: d key sortKey | p key epoch sortKey member | m key epoch json | h host openAt → 0. */
const COMMIT = redisScript(
  'frontier-commit',
  `${LIB}
local me = ARGV[2]
local i = 3
local function mine(qk, epoch) local node, e = ownerOf(qk) return node == me and e == epoch end
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'd' then
    local sk = ARGV[i + 2]
    redis.call('ZREMRANGEBYLEX', T .. ':q:' .. ARGV[i + 1], '[' .. sk, '[' .. sk .. '\\255')
    i = i + 3
  elseif op == 'p' then
    if mine(ARGV[i + 1], ARGV[i + 2]) then
      local sk = ARGV[i + 3]
      local qkey = T .. ':q:' .. ARGV[i + 1]
      redis.call('ZREMRANGEBYLEX', qkey, '[' .. sk, '[' .. sk .. '\\255')
      redis.call('ZADD', qkey, 0, ARGV[i + 4])
    end
    i = i + 5
  elseif op == 'm' then
    if mine(ARGV[i + 1], ARGV[i + 2]) then redis.call('HSET', T .. ':meta', ARGV[i + 1], ARGV[i + 3]) end
    i = i + 4
  else
    redis.call('HSET', T .. ':gate', ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  end
end
redis.call('INCR', T .. ':ver')
return 0`,
);

/**
 * ARGV: T, me, ttl, my incarnation → {{key, epoch, count, meta, …}, {host, openAt, …}}: my queues again, under new
 * epochs. The incarnation is noted (`T:inc`): from now on a view that still counts this node's earlier
 * incarnation dead releases nothing of this one.
 */
const LOAD = redisScript(
  'frontier-load',
  `${LIB}
local me, ttl = ARGV[2], tonumber(ARGV[3])
local t = now()
redis.call('HSET', T .. ':inc', me, ARGV[4])
local inbox = redis.call('LRANGE', T .. ':inbox:' .. me, 0, -1)
redis.call('DEL', T .. ':inbox:' .. me)
for _, entry in ipairs(inbox) do
  local qk, member = split(entry)
  if ownerOf(qk) == me then redis.call('ZADD', T .. ':q:' .. qk, 0, member) else route(qk, member) end
end
local queues = {}
for _, qk in ipairs(redis.call('SMEMBERS', T .. ':owned:' .. me)) do
  if ownerOf(qk) == me then
    local count, meta = stored(qk)
    local e = grant(qk, me, ttl, t)
    table.insert(queues, qk) table.insert(queues, tostring(e)) table.insert(queues, count) table.insert(queues, meta)
  else redis.call('SREM', T .. ':owned:' .. me, qk) end
end
redis.call('INCR', T .. ':ver')
return {queues, redis.call('HGETALL', T .. ':gate')}`,
);

/**
 * ARGV: T, me, ttl, dead incarnations (`node.n`, comma-separated), then the queues I hold here and their
 * epochs → {lost queue keys, pending count}: my leases renewed, and any of them no longer mine under that epoch
 * (expired while I was away, released as dead) reported lost; expired leases released; leases and inboxes of
 * dead incarnations released (their queues pending, the inboxes routed) — unless the node came back as a newer
 * incarnation (`T:inc`, set by its load) since the caller saw it die.
 */
const RENEW = redisScript(
  'frontier-renew',
  `${LIB}
local me, ttl = ARGV[2], tonumber(ARGV[3])
local t = now()
local lost = {}
for i = 5, #ARGV, 2 do
  local qk = ARGV[i]
  local node, e = ownerOf(qk)
  if node == me and e == ARGV[i + 1] then redis.call('ZADD', T .. ':leasez', t + ttl, qk)
  else
    if node ~= me then redis.call('SREM', T .. ':owned:' .. me, qk) end
    table.insert(lost, qk)
  end
end
for _, qk in ipairs(redis.call('ZRANGEBYSCORE', T .. ':leasez', '-inf', t, 'LIMIT', 0, 1000)) do
  local node = ownerOf(qk)
  release(qk, node)
end
for tk in string.gmatch(ARGV[4], '[^,]+') do
  local d = string.match(tk, '^(.*)%.%d+$')
  local now_inc = d and redis.call('HGET', T .. ':inc', d)
  if d and d ~= me and (not now_inc or now_inc == tk) then
    for _, qk in ipairs(redis.call('SMEMBERS', T .. ':owned:' .. d)) do
      if ownerOf(qk) == d then release(qk, d) end
    end
    redis.call('DEL', T .. ':owned:' .. d)
    local inbox = redis.call('LRANGE', T .. ':inbox:' .. d, 0, -1)
    redis.call('DEL', T .. ':inbox:' .. d)
    for _, entry in ipairs(inbox) do local qk, member = split(entry) route(qk, member) end
  end
end
return {lost, redis.call('SCARD', T .. ':pending')}`,
);

/** ARGV: T, me, ttl, max → key, epoch, count, meta, … of queues taken from the pending set. */
const ADOPT = redisScript(
  'frontier-adopt',
  `${LIB}
local me, ttl, max = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local t = now()
local out = {}
local taken = 0
while taken < max do
  local qk = redis.call('SPOP', T .. ':pending')
  if not qk then break end
  if not ownerOf(qk) and redis.call('ZCARD', T .. ':q:' .. qk) > 0 then
    local count, meta = stored(qk)
    local e = grant(qk, me, ttl, t)
    table.insert(out, qk) table.insert(out, tostring(e)) table.insert(out, count) table.insert(out, meta)
    taken = taken + 1
  end
end
return out`,
);

/** ARGV: T, me, then per queue: key, epoch, figures JSON → queues released (held under that epoch). */
const RELEASE = redisScript(
  'frontier-release',
  `${LIB}
local me = ARGV[2]
local n = 0
for i = 3, #ARGV, 3 do
  local qk = ARGV[i]
  local node, e = ownerOf(qk)
  if node == me and e == ARGV[i + 1] then
    redis.call('HSET', T .. ':meta', qk, ARGV[i + 2])
    release(qk, me)
    n = n + 1
  end
end
redis.call('INCR', T .. ':ver')
return n`,
);

/** ARGV: T, queue key → 0. */
const RETIRE = redisScript('frontier-retire', `${LIB} redis.call('SADD', T .. ':retired', ARGV[2]) redis.call('INCR', T .. ':ver') return 0`);

/**
 * ARGV: T, every node id (comma-separated) → {idle (1|0), version}: no pending
 * queue, no inbox entry, no leased queue holding URIs outside retired ones.
 */
const CHECK = redisScript(
  'frontier-check',
  `${LIB}
local ver = redis.call('GET', T .. ':ver') or '0'
if redis.call('SCARD', T .. ':pending') > 0 then return {0, ver} end
for n in string.gmatch(ARGV[2], '[^,]+') do
  if redis.call('LLEN', T .. ':inbox:' .. n) > 0 then return {0, ver} end
end
for _, qk in ipairs(redis.call('HKEYS', T .. ':lease')) do
  if redis.call('ZCARD', T .. ':q:' .. qk) > 0 and redis.call('SISMEMBER', T .. ':retired', qk) == 0 then return {0, ver} end
end
return {1, ver}`,
);

/** ARGV: T → {pending queues, leased queues, queued URIs, retired queues}. */
const FIGURES = redisScript(
  'frontier-figures',
  `${LIB}
local uris = 0
local seen = {}
for _, qk in ipairs(redis.call('HKEYS', T .. ':lease')) do uris = uris + redis.call('ZCARD', T .. ':q:' .. qk) seen[qk] = true end
for _, qk in ipairs(redis.call('SMEMBERS', T .. ':pending')) do if not seen[qk] then uris = uris + redis.call('ZCARD', T .. ':q:' .. qk) end end
return {redis.call('SCARD', T .. ':pending'), redis.call('HLEN', T .. ':lease'), uris, redis.call('SCARD', T .. ':retired')}`,
);

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
  async drain(max = 1000): Promise<QueueEntry[]> {
    const out: QueueEntry[] = [];
    await this.#eachShard(async (shard) => {
      const got = await this.#eval<Buffer[]>(DRAIN, shard, [this.#o.node, max]);
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

  /** Take up to `max` queues waiting for a node. */
  async adopt(max: number): Promise<Map<string, StoredQueue>> {
    const adopted = new Map<string, StoredQueue>();
    if (max <= 0) return adopted;
    for (let shard = 0; shard < SHARDS && adopted.size < max; shard++) {
      const got = await this.#eval<Buffer[]>(ADOPT, shard, [this.#o.node, this.#o.leaseMs, max - adopted.size]);
      for (let i = 0; i < got.length; i += 4) {
        const key = got[i]!.toString();
        this.#epochs.set(key, got[i + 1]!.toString());
        adopted.set(key, stored(got[i + 2]!, got[i + 3]!));
      }
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

  #eval<T>(script: Parameters<RedisLink['eval']>[0], shard: number, args: readonly (string | Buffer | number)[]): Promise<T> {
    const tag = this.#o.keys.shardTag(shard);
    return this.#o.link.eval<T>(script, [`${tag}:lease`], [tag, ...args], true);
  }

  async #eachShard(fn: (shard: number) => Promise<void>): Promise<void> {
    await Promise.all(Array.from({ length: SHARDS }, (_, shard) => fn(shard)));
  }
}

/** The crawl's queues over all shards, read without joining it (for `archiver status`). */
export async function crawlQueueFigures(link: RedisLink, keys: CrawlKeys): Promise<CrawlQueueFigures> {
  const f: CrawlQueueFigures = { pendingQueues: 0, leasedQueues: 0, queuedUris: 0, retiredQueues: 0 };
  await Promise.all(
    Array.from({ length: SHARDS }, async (_, shard) => {
      const tag = keys.shardTag(shard);
      const [p, l, u, r] = await link.eval<number[]>(FIGURES, [`${tag}:lease`], [tag]);
      f.pendingQueues += Number(p);
      f.leasedQueues += Number(l);
      f.queuedUris += Number(u);
      f.retiredQueues += Number(r);
    }),
  );
  return f;
}

function stored(count: Buffer | number, meta: Buffer | string): StoredQueue {
  const text = meta.toString();
  return { count: Number(count.toString()), meta: text === '' ? null : parseMeta(text) };
}
