/**
 * A store for the fingerprinted maps (dedup indexes) that forwards to a real
 * sublevel and counts what reaches it, so a test can tell an answer from
 * memory from one that read LevelDB.
 */
import type { ByteMap } from '../../src/store/byte-map.js';

export class CountingLevel implements ByteMap {
  /** Single-entry reads. */
  reads = 0;
  /** Batches written. */
  batches = 0;
  constructor(readonly inner: ByteMap) {}
  batch(...args: Parameters<ByteMap['batch']>): Promise<void> {
    this.batches++;
    return this.inner.batch(...args);
  }
  get(...args: Parameters<ByteMap['get']>): Promise<Buffer | undefined> {
    this.reads++;
    return this.inner.get(...args);
  }
  keys(...args: Parameters<ByteMap['keys']>): ReturnType<ByteMap['keys']> {
    return this.inner.keys(...args);
  }
}
