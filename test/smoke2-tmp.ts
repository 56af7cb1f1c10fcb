import { startRedis } from './helpers/redis-server.js';
import { RedisLink } from '../src/store/redis/redis-link.js';
import { parseRedisSpec } from '../src/store/redis/redis-spec.js';
const redis = await startRedis();
const link = await RedisLink.open(parseRedisSpec(redis.spec()), { log: null });
await link.command(['HSET', 'h', 'a', '1', 'b', '2']);
await link.command(['ZADD', 'z', '1', 'a', '2', 'b']);
for (const cmd of [['HGETALL', 'h'], ['HSCAN', 'h', '0'], ['ZRANGE', 'z', '0', '-1', 'WITHSCORES'], ['HMGET', 'h', 'a', 'x'], ['LPOP', 'nol', '3']]) {
  console.log(cmd[0], JSON.stringify(await link.command(cmd)), JSON.stringify(await link.command(cmd, true)));
}
await link.close(); await redis.dispose();
