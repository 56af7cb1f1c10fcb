/**
 * The nodes of one crawl on Redis (CrawlCoordination): registration,
 * heartbeats every second, liveness (a node whose heartbeat is older than
 * NODE_TTL_MS is dead: its leases and inbox are released by any live node),
 * the crawl's run flags (paused, stopped), the end (the last node to leave
 * a finished crawl packages it) — all in the crawl-wide hash tag, times
 * from Redis `TIME`. It also keeps the process's clock in step with Redis
 * (RedisClock), so the times a node stores mean the same on every machine.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import type { NodeView } from '../frontier/redis-frontier.js';
import type { CrawlCoordination, JoinResult, NodeFigures, RunFlags } from './crawl-coordination.js';
import type { CrawlKeys } from '../store/redis/crawl-keys.js';
import { flatPairs, redisScript, type RedisLink } from '../store/redis/redis-link.js';

/** A node silent this long is dead (the same as a lease's lifetime). */
export const NODE_TTL_MS = 10_000;
const HEARTBEAT_MS = 1000;

const NOW = `local function now() local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local function precise() local t = redis.call('TIME') return t[1] .. '.' .. string.format('%06d', tonumber(t[2])) end`;

/**
 * KEYS: meta, nodes, incarnations; ARGV: id, profile hash, ttl, join id → {ok, incarnation, finished, time} |
 * {profile} | {alive}. The join id (meta `join:<id>`) is this process's: the same join sent again, its answer
 * lost, finds the id its first run wrote, and is answered as that run was, not refused as a live node.
 */
const JOIN = redisScript(
  'crawl-join',
  `${NOW}
local t, ttl = now(), tonumber(ARGV[3])
local p = redis.call('HGET', KEYS[1], 'profile')
if p and p ~= ARGV[2] then return {'profile'} end
local hb = redis.call('ZSCORE', KEYS[2], ARGV[1])
if hb and tonumber(hb) > t - ttl then
  local inc = redis.call('HGET', KEYS[1], 'join:' .. ARGV[1]) == ARGV[4] and string.match(redis.call('HGET', KEYS[3], ARGV[1]) or '', '%.(%d+)$')
  if not inc then return {'alive'} end
  return {'ok', tonumber(inc), redis.call('HGET', KEYS[1], 'finished') or '', precise()}
end
redis.call('HSET', KEYS[1], 'profile', ARGV[2], 'join:' .. ARGV[1], ARGV[4])
if redis.call('ZCOUNT', KEYS[2], '(' .. (t - ttl), '+inf') == 0 then redis.call('HDEL', KEYS[1], 'stopped', 'paused') end
redis.call('ZADD', KEYS[2], t, ARGV[1])
local inc = redis.call('HINCRBY', KEYS[1], 'incarnations', 1)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[1] .. '.' .. inc)
return {'ok', inc, redis.call('HGET', KEYS[1], 'finished') or '', precise()}`,
);

/** KEYS: meta, nodes, nodestats, incarnations; ARGV: id, figures JSON → {time, paused, stopped, {id, beat, …}, {id, json, …}, {id, incarnation, …}}. */
const BEAT = redisScript(
  'crawl-beat',
  `${NOW}
local t = now()
if redis.call('ZSCORE', KEYS[2], ARGV[1]) ~= '0' then redis.call('ZADD', KEYS[2], t, ARGV[1]) end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
local m = redis.call('HMGET', KEYS[1], 'paused', 'stopped')
return {precise(), m[1] or '', m[2] or '', redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES'), redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4])}`,
);

/**
 * KEYS: nodes, incarnations, seeded, meta; ARGV: ttl → how many seedings
 * nodes have begun (meta `seedings`) when every node that is alive (or
 * joined a moment ago and has not beaten yet) has queued its seeds under its
 * current incarnation; -1 while one is queueing them.
 */
const SEEDED = redisScript(
  'crawl-seeded',
  `${NOW}
local t = now()
for _, n in ipairs(redis.call('ZRANGE', KEYS[1], '(' .. (t - tonumber(ARGV[1])), '+inf', 'BYSCORE')) do
  local inc = redis.call('HGET', KEYS[2], n)
  if not inc or redis.call('SISMEMBER', KEYS[3], inc) == 0 then return -1 end
end
return tonumber(redis.call('HGET', KEYS[4], 'seedings') or '0')`,
);

/** KEYS: seeded, meta; ARGV: incarnation → 0: it is queueing seeds (out of the set), and one more seeding has begun. */
const SEEDING = redisScript('crawl-seeding', `redis.call('SREM', KEYS[1], ARGV[1]) redis.call('HINCRBY', KEYS[2], 'seedings', 1) return 0`);

/**
 * KEYS: meta, nodes, done, nodestats; ARGV: id, finished (1|0), ttl, last figures JSON → 1 when this node packages
 * the crawl: it leaves a finished crawl and no live node has yet to (a node restarted on a finished crawl packages it again).
 */
const LEAVE = redisScript(
  'crawl-leave',
  `${NOW}
local t, ttl = now(), tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[4]) end
if ARGV[2] ~= '1' then return 0 end
redis.call('HSETNX', KEYS[1], 'finished', t)
redis.call('SADD', KEYS[3], ARGV[1])
for _, n in ipairs(redis.call('ZRANGE', KEYS[2], '(' .. (t - ttl), '+inf', 'BYSCORE')) do
  if redis.call('SISMEMBER', KEYS[3], n) == 0 then return 0 end
end
redis.call('HSET', KEYS[1], 'packager', ARGV[1])
return 1`,
);

/**
 * A clock that reads the local clock plus the offset to Redis's, measured
 * once when the node joins: the sample with the shortest of several round
 * trips (the midpoint of a slow one, Redis or this event loop busy, can be
 * off by tens of ms). It is never changed afterwards: a step of the clock
 * under a running crawl would shorten a host's delay; machines' clocks
 * drift apart by far less than a ms over a crawl.
 */
export class RedisClock implements Clock {
  #offset = 0;
  #bestRtt = Infinity;

  now(): number {
    return localNow() + this.#offset;
  }

  /** Redis said `redisMs` between `sentAt` and `gotAt` (local ms); kept if the round trip is the shortest yet. */
  sync(redisMs: number, sentAt: number, gotAt: number): void {
    const rtt = gotAt - sentAt;
    if (rtt >= this.#bestRtt) return;
    this.#bestRtt = rtt;
    this.#offset = redisMs - (sentAt + gotAt) / 2;
  }
}

/** The local clock in fractional ms (the wall clock's origin, the monotonic clock's resolution). */
export function localNow(): number {
  return performance.timeOrigin + performance.now();
}

export class RedisCoordination implements CrawlCoordination {
  readonly node: string;
  readonly clock = new RedisClock();
  /** `node.incarnation`, once joined: what this process's seen-filter reservations are marked with. */
  token = '';
  readonly #link: RedisLink;
  readonly #keys: CrawlKeys;
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<void> | null = null;
  #live: string[] = [];
  #dead: string[] = [];
  #all: string[] = [];
  #busy = new Map<string, number>();
  #figures = new Map<string, NodeFigures>();
  /** node id → its latest incarnation `node.n`, as of the last heartbeat. */
  readonly #incarnations = new Map<string, string>();
  #flags: RunFlags = { paused: false, stopped: false };
  #startedAt = 0;
  #left = false;
  /** This node's figures now (set by start()). */
  #mine: (() => Omit<NodeFigures, 'alive'> & { token: string; redisRequests: number }) | null = null;

  constructor(link: RedisLink, keys: CrawlKeys, node: string) {
    this.#link = link;
    this.#keys = keys;
    this.node = node;
  }

  async join(profileHash: string): Promise<JoinResult> {
    const sent = localNow();
    const joinId = randomUUID();
    const r = await this.#link.eval<(string | number)[]>(JOIN, [this.#keys.meta, this.#keys.nodes, this.#keys.incarnations], [this.node, profileHash, NODE_TTL_MS, joinId]);
    if (r[0] === 'profile') throw new UsageError(`crawl ${JSON.stringify(this.#keys.crawl)} in ${this.#link.spec.text} was started with a different profile (its hash differs); use the same profile, or --fresh`);
    if (r[0] === 'alive') throw new UsageError(`node ${JSON.stringify(this.node)} is alive in crawl ${JSON.stringify(this.#keys.crawl)}; give this process another --node`);
    const at = Number(r[3]) * 1000;
    this.clock.sync(at, sent, localNow());
    for (let i = 0; i < 5; i++) {
      const before = localNow();
      const [sec, usec] = await this.#link.command<[string, string]>(['TIME'], false, this.#keys.meta);
      this.clock.sync(Number(sec) * 1000 + Number(usec) / 1000, before, localNow());
    }
    this.#startedAt = at;
    this.token = `${this.node}.${Number(r[1])}`;
    this.#live = [this.node];
    this.#all = [this.node];
    return { finished: String(r[2]) !== '', incarnation: Number(r[1]), at };
  }

  view(): NodeView {
    return {
      live: () => this.#live,
      deadIncarnations: () => this.#dead,
      all: () => this.#all,
      busyQueues: () => this.#busy,
      mayFinish: async () => {
        const begun = Number(await this.#link.eval<number>(SEEDED, [this.#keys.nodes, this.#keys.incarnations, this.#keys.seeded, this.#keys.meta], [NODE_TTL_MS]));
        return begun < 0 ? null : begun;
      },
    };
  }

  async seeding(): Promise<void> {
    await this.#link.eval(SEEDING, [this.#keys.seeded, this.#keys.meta], [this.token]);
  }

  async seeded(): Promise<void> {
    await this.#link.command(['SADD', this.#keys.seeded, this.token]);
  }

  start(figures: () => Omit<NodeFigures, 'node' | 'alive' | 'lastHeartbeat' | 'startedAt'>, onFlags: (flags: RunFlags) => void): void {
    this.#mine = () => ({ ...figures(), node: this.node, token: this.token, startedAt: this.#startedAt, lastHeartbeat: this.clock.now(), redisRequests: this.#link.sent });
    const beat = async (): Promise<void> => {
      const sent = localNow();
      const mine = this.#mine!();
      const r = await this.#link.eval<[number, string, string, string[], string[], string[]]>(
        BEAT,
        [this.#keys.meta, this.#keys.nodes, this.#keys.nodeStats, this.#keys.incarnations],
        [this.node, JSON.stringify(mine)],
      );
      const t = Number(r[0]) * 1000;
      this.#read(t, r[3], r[4], r[5]);
      const flags = { paused: r[1] === '1', stopped: r[2] === '1' };
      if (flags.paused !== this.#flags.paused || flags.stopped !== this.#flags.stopped) {
        this.#flags = flags;
        onFlags(flags);
      }
    };
    const tick = (): void => {
      if (this.#beating !== null || this.#left) return;
      this.#beating = beat()
        .catch(() => undefined)
        .finally(() => {
          this.#beating = null;
        });
    };
    tick();
    this.#timer = setInterval(tick, HEARTBEAT_MS);
    this.#timer.unref();
  }

  async setFlag(flag: keyof RunFlags, on: boolean): Promise<void> {
    await this.#link.command(on ? ['HSET', this.#keys.meta, flag, '1'] : ['HDEL', this.#keys.meta, flag]);
  }

  async leave(finished: boolean): Promise<boolean> {
    this.#stop();
    this.#left = true;
    await this.#beating;
    const last = this.#mine === null ? '' : JSON.stringify(this.#mine());
    const r = await this.#link.eval<number>(LEAVE, [this.#keys.meta, this.#keys.nodes, this.#keys.doneNodes, this.#keys.nodeStats], [this.node, finished ? '1' : '0', NODE_TTL_MS, last]);
    return Number(r) === 1;
  }

  async packaged(): Promise<void> {
    await this.#link.command(['HSET', this.#keys.meta, 'packaged', `${this.node} ${new Date(this.clock.now()).toISOString()}`]);
  }

  async nodes(): Promise<NodeFigures[]> {
    const t = await this.#link.time(this.#keys.meta);
    const [beats, stats] = await Promise.all([
      this.#link.command(['ZRANGE', this.#keys.nodes, '0', '-1', 'WITHSCORES']),
      this.#link.command(['HGETALL', this.#keys.nodeStats]),
    ]);
    this.#read(t, flatPairs<string>(beats).map(String), flatPairs<string>(stats), null);
    return [...this.#figures.values()].sort((a, b) => (a.node < b.node ? -1 : 1));
  }

  /** The incarnations (`node.n`) of live nodes, as they joined (a rejoined node's figures name its earlier one until its first heartbeat). */
  currentTokens(): string[] {
    const out: string[] = [];
    for (const n of this.#live) {
      const t = this.#incarnations.get(n) ?? (this.#figures.get(n) as { token?: string } | undefined)?.token;
      if (t) out.push(t);
    }
    return out;
  }

  async close(): Promise<void> {
    this.#stop();
    await this.#beating;
  }

  #stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  #read(t: number, beats: readonly string[], stats: readonly string[], incarnations: readonly string[] | null): void {
    const live: string[] = [];
    const dead: string[] = [];
    const all: string[] = [];
    const beatOf = new Map<string, number>();
    for (let i = 0; i < beats.length; i += 2) {
      const node = beats[i]!;
      const at = Number(beats[i + 1]);
      beatOf.set(node, at);
      all.push(node);
      (at > t - NODE_TTL_MS ? live : dead).push(node);
    }
    if (!this.#left && !live.includes(this.node)) live.push(this.node);
    this.#live = live;
    this.#all = all.includes(this.node) ? all : [...all, this.node];
    const busy = new Map<string, number>();
    for (let i = 0; i < stats.length; i += 2) {
      const f = JSON.parse(stats[i + 1]!) as NodeFigures;
      const alive = live.includes(f.node);
      this.#figures.set(f.node, { ...f, alive, lastHeartbeat: Math.max(f.lastHeartbeat, beatOf.get(f.node) ?? 0) });
      if (alive) busy.set(f.node, f.busyQueues);
    }
    this.#busy = busy;
    // Each dead node's latest incarnation (as it joined): a newer one loading meanwhile keeps its leases (redis-queue-store).
    if (incarnations !== null) {
      this.#incarnations.clear();
      for (let i = 0; i < incarnations.length; i += 2) this.#incarnations.set(String(incarnations[i]), String(incarnations[i + 1]));
    }
    this.#dead = dead.filter((n) => n !== this.node).map((n) => this.#incarnations.get(n) ?? `${n}.0`);
  }
}
