/**
 * A store for the fingerprinted maps (dedup indexes) that forwards to a real
 * sublevel and counts what reaches it, so a test can tell an answer from
 * memory from one that read LevelDB.
 */
import type { MapLevel } from '../../src/dedup/fingerprinted-map.js';

export class CountingLevel implements MapLevel {
  /** Single-entry reads. */
  reads = 0;
  /** Batches written. */
  batches = 0;
  constructor(readonly inner: MapLevel) {}
  batch(...args: Parameters<MapLevel['batch']>): Promise<void> {
    this.batches++;
    return this.inner.batch(...args);
  }
  get(...args: Parameters<MapLevel['get']>): Promise<Buffer | undefined> {
    this.reads++;
    return this.inner.get(...args);
  }
  keys(...args: Parameters<MapLevel['keys']>): ReturnType<MapLevel['keys']> {
    return this.inner.keys(...args);
  }
}
