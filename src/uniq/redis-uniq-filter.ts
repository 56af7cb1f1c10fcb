/**
 * The already-seen filter on Redis, shared by every node of a crawl: a URL
 * discovered by two nodes is queued once. Heritrix's 64-bit keys are kept
 * in bucketed hashes (`seen:<bucket>`, 2^18 buckets, the field the key's
 * last 7 bytes), which Redis stores as listpacks while a bucket holds fewer
 * than 128 entries: about 14 bytes a URL against ~50 for a key per URL.
 * The bucket takes the key's host byte (also its shard, so a cluster
 * shards by host) and 10 bits of its URL part, so buckets fill evenly
 * however the URLs spread over hosts.
 *
 * addMany keeps UriUniqFilter's order — decide, run beforeCommit (the
 * caller queues the new URIs), then record — across processes: the first
 * script reserves each new key with a marker naming the batch and the node
 * (`p<token>:<batch>`), so concurrent batches anywhere see it taken; the
 * second turns the markers into records. A node killed between the two
 * leaves markers behind; a marker of a node that is dead, or of an earlier
 * incarnation of a node (restarted since: incarnations are numbered in
 * the order nodes join, so only a lower number than the node's known one
 * is earlier; a higher one is a restart this node has not heard of yet,
 * and its markers are live), or older than RESERVATION_MS
 * (Redis time), counts as absent, so the link, rediscovered when the dead
 * node's URI is fetched again, is queued then: nothing is lost. The age
 * rule is what makes that hold whatever a node's view of the others: a
 * dead node's URI is fetched again only once its lease expired, at least
 * RESERVATION_MS after any reservation it made. A marker of a live node
 * younger than that counts as taken (queueing twice is the other mistake).
 *
 * Keys known to be recorded are kept in a node-local table (up to
 * `memoryKeys`, then it starts over), so links seen before cost no round
 * trip. Another node's forget() does not reach that table (forget is for
 * tools and tests, not a crawl's hot path).
 */
import { KeyTable } from '../fingerprint/key-table.js';
import type { Fp64 } from '../fingerprint/rabin.js';
import { canonicalizeForSeen } from '../url/canonicalize.js';
import { SHARDS, type CrawlKeys } from '../store/redis/crawl-keys.js';
import { redisScript, type RedisLink } from '../store/redis/redis-link.js';
import { hostPrefixBytes, keyInto } from './heritrix-key.js';
import { BatchedUriUniqFilter, BeforeCommitFailure, UniqFilterClosedError, type BeforeCommit } from './uniq-filter.js';

export interface RedisUniqFilterOptions {
  link: RedisLink;
  keys: CrawlKeys;
  /** `seen` or `refused`: filters of one crawl are kept apart. */
  name: string;
  /** This node's incarnation, `node.n` (no `:` or `,`), written into reservations. */
  token: string;
  /** Incarnations (tokens) of the crawl's dead nodes, and those of live nodes as far as known: reservations of dead ones, and of a live node's earlier ones, are void. */
  voids?: () => { dead: readonly string[]; current: readonly string[] };
  /** Recorded keys held in the node-local table. */
  memoryKeys: number;
}

/** A reservation older than this is void (Redis time): less than a lease's life less the renewal interval. */
export const RESERVATION_MS = 8000;

const VOIDS = `local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local dead, current = {}, {}
for t in string.gmatch(ARGV[2], '[^,]+') do dead[t] = true end
for t in string.gmatch(ARGV[4], '[^,]+') do local n, i = string.match(t, '^(.*)%.(%d+)$') if n then current[n] = tonumber(i) end end
local function void(t, at)
  if at == nil or now - at > ${RESERVATION_MS} then return true end
  local n, i = string.match(t, '^(.*)%.(%d+)$')
  if not n then return true end
  if dead[t] then return true end
  return current[n] ~= nil and tonumber(i) < current[n]
end`;

/**
 * KEYS: buckets; ARGV: count key, dead nodes, marker (`p<token>:<batch>:`, the time is added), current tokens,
 * fields… → 1 (reserved) / 0 per field.
 *
 * Sent again as is when the connection broke under it (RedisLink), it answers as the first run did: a field
 * already holding this batch's marker was reserved by an earlier run of this same call, whose answer was lost
 * (Redis stopped after running it), so it is this batch's again. Only a repeat within one run is refused (the
 * first of equal keys in a batch is the new one). Read as taken, such a URL was neither queued nor recorded,
 * and, its discoverer's repeats skipped locally and other nodes refused for RESERVATION_MS, lost.
 */
const RESERVE = redisScript(
  'seen-reserve',
  `${VOIDS}
local marker = ARGV[3] .. now
local out = {}
local here = {}
for i = 1, #KEYS do
  local f = ARGV[i + 4]
  local v = redis.call('HGET', KEYS[i], f)
  local mine = false
  if here[KEYS[i] .. '|' .. f] then mine = false
  elseif v == false then mine = true
  elseif string.sub(v, 1, #ARGV[3]) == ARGV[3] then mine = true
  elseif v ~= '' then
    local t, at = string.match(v, '^p([^:]*):[^:]*:(%d+)$')
    if t ~= nil and void(t, tonumber(at)) then mine = true end
  end
  if mine then redis.call('HSET', KEYS[i], f, marker) here[KEYS[i] .. '|' .. f] = true out[i] = 1 else out[i] = 0 end
end
return out`,
);

/** KEYS: buckets; ARGV: count key, marker prefix, record (1) or release (0), fields… → keys recorded. */
const SETTLE = redisScript(
  'seen-settle',
  `local n = 0
for i = 1, #KEYS do
  local f = ARGV[i + 3]
  local v = redis.call('HGET', KEYS[i], f)
  if v and string.sub(v, 1, #ARGV[2]) == ARGV[2] then
    if ARGV[3] == '1' then redis.call('HSET', KEYS[i], f, '') n = n + 1 else redis.call('HDEL', KEYS[i], f) end
  end
end
if n > 0 then redis.call('INCRBY', ARGV[1], n) end
return n`,
);

/** KEYS: buckets; ARGV: fields… → 1 / 0 per field. */
const HAS = redisScript(
  'seen-has',
  `local out = {}
for i = 1, #KEYS do out[i] = redis.call('HEXISTS', KEYS[i], ARGV[i]) end
return out`,
);

/** KEYS: buckets; ARGV: count key, then fields… (forget) → records removed. */
const FORGET = redisScript(
  'seen-forget',
  `local n = 0
for i = 1, #KEYS do
  local f = ARGV[i + 1]
  local v = redis.call('HGET', KEYS[i], f)
  if v ~= false then
    redis.call('HDEL', KEYS[i], f)
    if v == '' then n = n + 1 end
  end
end
if n > 0 then redis.call('DECRBY', ARGV[1], n) end
return n`,
);

/** KEYS: the 1024 buckets of a host byte; ARGV: count key, the 2 host bytes after it → records removed. */
const FORGET_HOST = redisScript(
  'seen-forget-host',
  `local n = 0
for i = 1, #KEYS do
  local all = redis.call('HGETALL', KEYS[i])
  for j = 1, #all, 2 do
    local f = all[j]
    if string.sub(f, 1, 2) == ARGV[2] then
      redis.call('HDEL', KEYS[i], f)
      if all[j + 1] == '' then n = n + 1 end
    end
  end
end
if n > 0 then redis.call('DECRBY', ARGV[1], n) end
return n`,
);

interface Located {
  shard: number;
  bucket: string;
  field: Buffer;
  hi: number;
  lo: number;
}

export class RedisUriUniqFilter extends BatchedUriUniqFilter {
  readonly #o: RedisUniqFilterOptions;
  readonly #cache = new KeyTable();
  readonly #scratch: Fp64 = { hi: 0, lo: 0 };
  #batch = 0;
  #closed = false;

  constructor(o: RedisUniqFilterOptions) {
    super();
    if (o.token.includes(':') || o.token.includes(',')) throw new Error(`bad node token ${o.token}`);
    this.#o = o;
  }

  async addMany(urls: readonly string[], beforeCommit?: BeforeCommit): Promise<boolean[]> {
    this.#checkOpen();
    const fresh = new Array<boolean>(urls.length).fill(false);
    const asked: number[] = [];
    const located: Located[] = [];
    for (const [i, url] of urls.entries()) {
      const at = this.#locate(url);
      if (this.#cache.has(at.hi, at.lo)) continue;
      asked.push(i);
      located.push(at);
    }
    const marker = `p${this.#o.token}:${++this.#batch}:`;
    const voids = this.#o.voids?.() ?? { dead: [], current: [] };
    const dead = voids.dead.join(',');
    const current = [this.#o.token, ...voids.current].join(',');
    const answers = await this.#perShard(located, (shard, group) =>
      this.#o.link.eval<number[]>(RESERVE, group.map((g) => g.bucket), [this.#countKey(shard), dead, marker, current, ...group.map((g) => g.field)]),
    );
    const reserved: Located[] = [];
    answers.forEach((a, j) => {
      if (a === 1) {
        fresh[asked[j]!] = true;
        reserved.push(located[j]!);
      }
    });
    if (beforeCommit) {
      try {
        await beforeCommit(fresh);
      } catch (err) {
        await this.#settle(reserved, marker, false).catch(() => undefined);
        throw err instanceof BeforeCommitFailure ? err.cause : err;
      }
    }
    await this.#settle(reserved, marker, true);
    if (this.#cache.size >= this.#o.memoryKeys) this.#cache.clear();
    for (const at of reserved) this.#cache.add(at.hi, at.lo);
    return fresh;
  }

  async hasMany(urls: readonly string[]): Promise<boolean[]> {
    this.#checkOpen();
    const located = urls.map((url) => this.#locate(url));
    const answers = await this.#perShard(located, (_shard, group) =>
      this.#o.link.eval<number[]>(HAS, group.map((g) => g.bucket), group.map((g) => g.field)),
    );
    return answers.map((a, i) => a === 1 || this.#cache.has(located[i]!.hi, located[i]!.lo));
  }

  async forget(url: string): Promise<void> {
    this.#checkOpen();
    const at = this.#locate(url);
    this.#cache.delete(at.hi, at.lo);
    await this.#o.link.eval(FORGET, [at.bucket], [this.#countKey(at.shard), at.field]);
  }

  async forgetHost(url: string): Promise<number> {
    this.#checkOpen();
    const p = hostPrefixBytes(canonicalizeForSeen(url));
    this.#cache.deleteWithPrefix24(((p[0] as number) << 16) | ((p[1] as number) << 8) | (p[2] as number));
    const byte0 = p[0] as number;
    const buckets = Array.from({ length: 1024 }, (_, x) => this.#bucketKey(byte0, x));
    return this.#o.link.eval<number>(FORGET_HOST, buckets, [this.#countKey(byte0 % SHARDS), p.subarray(1, 3)]);
  }

  async count(): Promise<number> {
    this.#checkOpen();
    const counts = await Promise.all(Array.from({ length: SHARDS }, (_, s) => this.#o.link.command<string | null>(['GET', this.#countKey(s)])));
    return counts.reduce((sum, c) => sum + Number(c ?? 0), 0);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cache.clear();
  }

  /** Run `op` once per shard present, concurrently (one pipeline); answers back in input order. */
  async #perShard<T>(located: readonly Located[], op: (shard: number, group: Located[]) => Promise<T[]>): Promise<T[]> {
    const groups = new Map<number, number[]>();
    located.forEach((at, i) => {
      const g = groups.get(at.shard);
      if (g === undefined) groups.set(at.shard, [i]);
      else g.push(i);
    });
    const out = new Array<T>(located.length);
    await Promise.all(
      [...groups].map(async ([shard, idx]) => {
        const answers = await op(shard, idx.map((i) => located[i]!));
        idx.forEach((i, j) => {
          out[i] = answers[j]!;
        });
      }),
    );
    return out;
  }

  #settle(reserved: readonly Located[], marker: string, record: boolean): Promise<number[]> {
    return this.#perShard(reserved, async (shard, group) => {
      await this.#o.link.eval(SETTLE, group.map((g) => g.bucket), [this.#countKey(shard), marker, record ? '1' : '0', ...group.map((g) => g.field)]);
      return group.map(() => 0);
    });
  }

  #locate(url: string): Located {
    const k = keyInto(canonicalizeForSeen(url), this.#scratch);
    const byte0 = k.hi >>> 24;
    // 10 bits of the URL part: bits 31..22 of the low word (bytes 4-5).
    const x = k.lo >>> 22;
    const field = Buffer.allocUnsafe(7);
    field[0] = (k.hi >>> 16) & 0xff;
    field[1] = (k.hi >>> 8) & 0xff;
    field[2] = k.hi & 0xff;
    field.writeUInt32BE(k.lo, 3);
    return { shard: byte0 % SHARDS, bucket: this.#bucketKey(byte0, x), field, hi: k.hi, lo: k.lo };
  }

  #bucketKey(byte0: number, x: number): string {
    return `${this.#o.keys.shardTag(byte0 % SHARDS)}:${this.#o.name}:${((byte0 << 10) | x).toString(36)}`;
  }

  #countKey(shard: number): string {
    return `${this.#o.keys.shardTag(shard)}:${this.#o.name}:count`;
  }

  #checkOpen(): void {
    if (this.#closed) throw new UniqFilterClosedError();
  }
}
