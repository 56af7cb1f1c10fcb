/**
 * A keyspace as a ByteMap (the fingerprinted maps' store), clearable: the
 * same bytes a sublevel of that name holds, so state written either way
 * reads back either way, but written through the root database with keys
 * the keyspace prefixes itself. A sublevel re-encodes and concatenates
 * every key of a batch in abstract-level's per-operation path (17% of the
 * CPU of loading an earlier crawl's index, profiled), which is why the
 * crawl's hot maps use this.
 */
import type { ClearableByteMap } from './byte-map.js';
import { BUFFER_ENCODINGS, type Keyspace } from './keyspace.js';

export function keyspaceMap(space: Keyspace): ClearableByteMap {
  const { db } = space;
  return {
    async batch(ops) {
      const batch = db.batch();
      for (const op of ops) batch.put(space.key(op.key), op.value, BUFFER_ENCODINGS);
      await batch.write();
    },
    get: (key) => db.get(space.key(key), BUFFER_ENCODINGS),
    keys() {
      const it = db.keys({ ...space.range, keyEncoding: 'buffer' });
      return {
        nextv: async (size) => (await it.nextv(size)).map((key) => space.suffix(key)),
        close: () => it.close(),
      };
    },
    clear: () => db.clear({ ...space.range, keyEncoding: 'buffer' }),
  };
}
