/**
 * The in-memory queue store: the QueueStore suite, and the whole Frontier
 * conformance suite with the work-queue frontier on it — the second
 * backend, which keeps the store seam free of anything only LevelDB does.
 */
import { MemoryQueueStore } from '../../src/frontier/memory-queue-store.js';
import { WorkQueueFrontier } from '../../src/frontier/work-queue-frontier.js';
import { frontierConformance } from './conformance.js';
import { queueStoreConformance } from './queue-store-conformance.js';

queueStoreConformance('MemoryQueueStore', async () => {
  const store = new MemoryQueueStore();
  return { store, again: () => store, dispose: async () => {} };
});

frontierConformance('WorkQueueFrontier in memory', async (setup) => {
  const init = { ...setup, store: new MemoryQueueStore() };
  return { frontier: new WorkQueueFrontier(init), reopen: () => WorkQueueFrontier.open(init), dispose: async () => {} };
});
