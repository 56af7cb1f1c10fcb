/**
 * The Lua scripts of the Redis queue store (redis-queue-store.ts): every
 * change to a shard's queues is one of these, run by EVALSHA.
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
 * - `T:ver`            counter bumped by every change (finished detection);
 * - `T:answer:<script>:<node>` list: the call id and answer of the node's last
 *   drain / adoption here that took something (see `answered` below).
 */
import { redisScript } from '../store/redis/redis-link.js';

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
-- Drain and adopt take things out of shared sets for the caller; RedisLink sends a call again when the
-- connection broke under it, and a Redis stopped right after running one never answers it. Run twice,
-- the second run would take other things and what the first took would be known to no node: inbox URIs
-- lost, or leases held until they expire. So each call carries an id unique to its node, and the last
-- answer that took something is kept with it: the same call again gets that answer, and runs nothing.
local function answered(name, node, id)
  local kept = T .. ':answer:' .. name .. ':' .. node
  if redis.call('LINDEX', kept, 0) == id then return redis.call('LRANGE', kept, 1, -1) end
  return nil
end
local function keep(name, node, id, out)
  local kept = T .. ':answer:' .. name .. ':' .. node
  redis.call('DEL', kept)
  if #out > 0 then redis.call('RPUSH', kept, id, unpack(out)) end
  return out
end
local function forgetAnswers(node)
  redis.call('DEL', T .. ':answer:drain:' .. node, T .. ':answer:adopt:' .. node)
end
`;

/** ARGV: T, me, ttl, then per queue: key, may take it on (1|0), n, n members → per queue: status (m|f|a), key, epoch, count, meta. */
export const ADD = redisScript(
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

/**
 * ARGV: T, me, max, call id → key, member, … of URIs others scheduled into my queues (now written to them).
 * The same call id again answers the same (its first answer was lost): one drain at a time per node.
 */
export const DRAIN = redisScript(
  'frontier-drain',
  `${LIB}
local me, id = ARGV[2], ARGV[4]
local again = answered('drain', me, id)
if again then return again end
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
return keep('drain', me, id, out)`,
);

/** ARGV: T, me, then ops: d key sortKey | p key epoch sortKey member | m key epoch json | h host openAt → 0. */
export const COMMIT = redisScript(
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
export const LOAD = redisScript(
  'frontier-load',
  `${LIB}
local me, ttl = ARGV[2], tonumber(ARGV[3])
local t = now()
redis.call('HSET', T .. ':inc', me, ARGV[4])
forgetAnswers(me)
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
export const RENEW = redisScript(
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
    forgetAnswers(d)
    local inbox = redis.call('LRANGE', T .. ':inbox:' .. d, 0, -1)
    redis.call('DEL', T .. ':inbox:' .. d)
    for _, entry in ipairs(inbox) do local qk, member = split(entry) route(qk, member) end
  end
end
return {lost, redis.call('SCARD', T .. ':pending')}`,
);

/**
 * ARGV: T, me, ttl, max, call id → key, epoch, count, meta, … of queues taken from the pending set. The same
 * call id again answers the same (its first answer was lost): one adoption at a time per node.
 */
export const ADOPT = redisScript(
  'frontier-adopt',
  `${LIB}
local me, ttl, max = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local again = answered('adopt', me, ARGV[5])
if again then return again end
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
return keep('adopt', me, ARGV[5], out)`,
);

/** ARGV: T, me, then per queue: key, epoch, figures JSON → queues released (held under that epoch). */
export const RELEASE = redisScript(
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
export const RETIRE = redisScript('frontier-retire', `${LIB} redis.call('SADD', T .. ':retired', ARGV[2]) redis.call('INCR', T .. ':ver') return 0`);

/**
 * ARGV: T, every node id (comma-separated) → {idle (1|0), version}: no pending
 * queue, no inbox entry, no leased queue holding URIs outside retired ones.
 */
export const CHECK = redisScript(
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

/**
 * ARGV: T, me → keys of the queues I hold here that hold URIs, retired ones left out: what an idle node
 * counts none of while the store holds some (RedisFrontier hands those on).
 */
export const HELD = redisScript(
  'frontier-held',
  `${LIB}
local me = ARGV[2]
local out = {}
for _, qk in ipairs(redis.call('SMEMBERS', T .. ':owned:' .. me)) do
  if ownerOf(qk) == me and redis.call('ZCARD', T .. ':q:' .. qk) > 0 and redis.call('SISMEMBER', T .. ':retired', qk) == 0 then table.insert(out, qk) end
end
return out`,
);

/** ARGV: T, live node ids… → {pending queues, queues held by a live node, queued URIs, retired queues}. */
export const FIGURES = redisScript(
  'frontier-figures',
  `${LIB}
local uris, held = 0, 0
local seen, live = {}, {}
for i = 2, #ARGV do live[ARGV[i]] = true end
local leases = redis.call('HGETALL', T .. ':lease')
for i = 1, #leases, 2 do
  local qk = leases[i]
  uris = uris + redis.call('ZCARD', T .. ':q:' .. qk) seen[qk] = true
  -- A node gone leaves its leases behind until a live node releases them: not held.
  if live[string.match(leases[i + 1], '^(.*)|%d+$')] then held = held + 1 end
end
for _, qk in ipairs(redis.call('SMEMBERS', T .. ':pending')) do if not seen[qk] then uris = uris + redis.call('ZCARD', T .. ':q:' .. qk) end end
return {redis.call('SCARD', T .. ':pending'), held, uris, redis.call('SCARD', T .. ':retired')}`,
);
