/**
 * The `memory` row: every part of the state in this process's memory, for
 * tests and crawls that need no resume (nothing survives the process; a
 * job run again starts its queues and seen URLs anew). One process is the
 * whole crawl.
 */
import { MemoryQueueStore } from '../frontier/memory-queue-store.js';
import { memoryByteMap, type ClearableByteMap } from '../store/byte-map.js';
import { memoryRecords, type RecordStore } from '../store/record-store.js';
import { MemoryUriUniqFilter } from '../uniq/memory-uniq-filter.js';
import { oneProcessBackend } from './one-process-backend.js';
import type { BackendRow, RecordsName, StateBackend } from './state-backend.js';

export const MEMORY_ROW: BackendRow = {
  name: 'memory',
  specs: 'memory',
  matches: (spec) => spec === 'memory',
  shared: false,
  inspect: null,
  open: openMemoryBackend,
  reset: async () => {},
};

async function openMemoryBackend(spec: string): Promise<StateBackend> {
  const records = new Map<RecordsName, RecordStore>();
  const maps = new Map<'digests' | 'earlier', ClearableByteMap>();
  const map = (name: 'digests' | 'earlier'): ClearableByteMap => maps.get(name) ?? maps.set(name, memoryByteMap()).get(name)!;
  return oneProcessBackend(spec, {
    queues: new MemoryQueueStore(),
    // Every key is held in memory anyway: the cap of a filter that spills to a store means nothing here.
    seenFilter: () => new MemoryUriUniqFilter(),
    records: (name) => records.get(name) ?? records.set(name, memoryRecords()).get(name)!,
    digests: () => map('digests'),
    earlier: () => map('earlier'),
    close: async () => {},
  });
}
