/**
 * Small keyed records the crawl keeps across a restart — robots.txt results,
 * hosts' health, seeds added while running, the job's run history — as a
 * plain map any state backend can hold (a LevelDB key range, a Redis hash:
 * redis/redis-records.ts, a Map). Not for hot paths: a put is one round trip.
 */
import { BUFFER_ENCODINGS, type Keyspace } from './keyspace.js';

export interface RecordStore {
  put(key: string, value: Buffer): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  del(key: string): Promise<void>;
  /** Every record, in key order. */
  entries(): AsyncIterable<[key: string, value: Buffer]>;
}

/** A RecordStore other processes write too (a shared backend's). */
export interface SharedRecordStore extends RecordStore {
  /** Records put since `cursor` (0: all), and the cursor to ask from next time. */
  changedSince(cursor: number): Promise<{ entries: [string, Buffer][]; cursor: number }>;
  /** Several records put at once: changedSince() sees all of them or none. */
  putAll(entries: readonly (readonly [key: string, value: Buffer])[]): Promise<void>;
}

/** Records in a keyspace of a LevelDB: the same bytes as a sublevel of that name, keys as UTF-8. */
export function keyspaceRecords(space: Keyspace): RecordStore {
  const { db } = space;
  const keyOf = (key: string): Buffer => space.key(Buffer.from(key, 'utf8'));
  return {
    put: (key, value) => db.put(keyOf(key), value, BUFFER_ENCODINGS),
    get: (key) => db.get(keyOf(key), BUFFER_ENCODINGS),
    del: (key) => db.del(keyOf(key), BUFFER_ENCODINGS),
    async *entries() {
      for await (const [key, value] of db.iterator({ ...space.range, ...BUFFER_ENCODINGS })) yield [space.suffix(key).toString('utf8'), value];
    },
  };
}

/** Records in memory (tests, and backends that keep nothing). */
export function memoryRecords(): RecordStore {
  const map = new Map<string, Buffer>();
  return {
    put: async (key, value) => void map.set(key, value),
    get: async (key) => map.get(key),
    del: async (key) => void map.delete(key),
    async *entries() {
      for (const key of [...map.keys()].sort()) yield [key, map.get(key)!];
    },
  };
}
