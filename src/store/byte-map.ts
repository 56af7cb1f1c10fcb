/**
 * The neutral key-value map the fingerprinted maps keep their entries in
 * (the payload digest index, earlier crawls' captures): byte keys to byte
 * values, written in batches, read one key at a time, listed in chunks.
 * A LevelDB keyspace (keyspace-map.ts), any abstract-level sublevel, a
 * Redis hash (redis/redis-records.ts) and a Map (memoryByteMap) all are one.
 */
import type { BUFFER_ENCODINGS } from './keyspace.js';

type PutOp = { type: 'put'; key: Buffer; value: Buffer };

/** Options a lister is called with (an abstract-level database takes them as they are). */
export const KEYS_ONLY = { keyEncoding: 'buffer' } as const;

/**
 * The map as its users call it. The encodings argument lets a LevelDB
 * database or sublevel be one whatever its default encodings; other maps
 * ignore it. It must be open; its users never close it.
 */
export interface ByteMap {
  batch(ops: PutOp[], options: typeof BUFFER_ENCODINGS): Promise<void>;
  get(key: Buffer, options: typeof BUFFER_ENCODINGS): Promise<Buffer | undefined>;
  keys(options: typeof KEYS_ONLY): { nextv(size: number): Promise<Buffer[]>; close(): Promise<void> };
}

/** A map that can also be emptied at once (an earlier crawls' index reloaded). */
export interface ClearableByteMap extends ByteMap {
  clear(): Promise<void>;
}

/** A map in memory (the memory backend, tests): keys listed in byte order. */
export function memoryByteMap(): ClearableByteMap {
  const map = new Map<string, Buffer>();
  return {
    async batch(ops) {
      for (const op of ops) map.set(op.key.toString('latin1'), Buffer.from(op.value));
    },
    get: async (key) => map.get(key.toString('latin1')),
    keys() {
      const all = [...map.keys()].sort().map((k) => Buffer.from(k, 'latin1'));
      let at = 0;
      return {
        nextv: async (size) => all.slice(at, (at += Math.max(1, size))),
        close: async () => {},
      };
    },
    clear: async () => void map.clear(),
  };
}
