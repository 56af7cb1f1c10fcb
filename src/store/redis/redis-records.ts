/**
 * Small stores of one crawl in Redis: a RecordStore as a hash (robots.txt
 * results, hosts' health, the job's records) whose changes are also listed,
 * so a node can take in what other nodes recorded since it last looked
 * (`changedSince`); and a ByteMap (payload digests, earlier crawls) as a
 * hash, keys and values as bytes.
 */
import type { ClearableByteMap } from '../byte-map.js';
import type { SharedRecordStore } from '../record-store.js';
import type { CrawlKeys } from './crawl-keys.js';
import { flatPairs, redisScript, type RedisLink } from './redis-link.js';

/** Key, value, key, value…: each set and listed, all in one step (a reader of the list sees all or none). */
const PUT = redisScript('records-put', `for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) redis.call('RPUSH', KEYS[2], ARGV[i]) end return 0`);

export function redisRecords(link: RedisLink, keys: CrawlKeys, name: string): SharedRecordStore {
  const hash = keys.records(name);
  const log = `${hash}:log`;
  const putAll = async (entries: readonly (readonly [string, Buffer])[]): Promise<void> => {
    if (entries.length > 0) await link.eval(PUT, [hash, log], entries.flat());
  };
  return {
    put: (key, value) => putAll([[key, value]]),
    putAll,
    get: async (key) => (await link.command<Buffer | null>(['HGET', hash, key], true)) ?? undefined,
    del: async (key) => void (await link.command(['HDEL', hash, key])),
    async *entries() {
      const all = flatPairs<string | Buffer>(await link.command(['HGETALL', hash], true));
      const rows: [string, Buffer][] = [];
      for (let i = 0; i < all.length; i += 2) rows.push([all[i]!.toString(), Buffer.from(all[i + 1]!)]);
      rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      yield* rows;
    },
    async changedSince(cursor) {
      const names = await link.command<Buffer[]>(['LRANGE', log, String(cursor), '-1'], true);
      const unique = [...new Set(names.map((n) => n.toString('utf8')))];
      const entries: [string, Buffer][] = [];
      if (unique.length > 0) {
        const values = await link.command<(Buffer | null)[]>(['HMGET', hash, ...unique], true);
        unique.forEach((k, i) => {
          const v = values[i];
          if (v) entries.push([k, v]);
        });
      }
      return { entries, cursor: cursor + names.length };
    },
  };
}

export function redisByteMap(link: RedisLink, keys: CrawlKeys, name: string): ClearableByteMap {
  const hash = keys.map(name);
  return {
    async batch(ops) {
      if (ops.length === 0) return;
      await link.command(['HSET', hash, ...ops.flatMap((op) => [op.key, op.value])]);
    },
    get: async (key) => (await link.command<Buffer | null>(['HGET', hash, key], true)) ?? undefined,
    keys() {
      let cursor = '0';
      let done = false;
      return {
        async nextv(size: number) {
          if (done) return [];
          const [next, found] = await link.command<[Buffer, Buffer[]]>(['HSCAN', hash, cursor, 'COUNT', String(Math.max(10, size))], true);
          cursor = next.toString();
          if (cursor === '0') done = true;
          const out: Buffer[] = [];
          for (let i = 0; i < found.length; i += 2) out.push(found[i]!);
          if (out.length === 0 && !done) return this.nextv(size);
          return out;
        },
        close: async () => {},
      };
    },
    clear: async () => void (await link.command(['DEL', hash])),
  };
}
