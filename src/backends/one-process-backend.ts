/**
 * What the one-process rows (level, memory) have in common: the crawl is
 * this process alone (sole coordination, no clock of its own, no report
 * from outside), and its frontier is the work-queue frontier over the row's
 * queue store. A row gives only where its parts keep their bytes.
 */
import type { QueueStore } from '../frontier/queue-store.js';
import { WorkQueueFrontier } from '../frontier/work-queue-frontier.js';
import { soleCoordination } from './crawl-coordination.js';
import type { StateBackend } from './state-backend.js';

export type OneProcessParts = Pick<StateBackend, 'seenFilter' | 'records' | 'digests' | 'earlier' | 'close'> & { queues: QueueStore };

export async function oneProcessBackend(spec: string, parts: OneProcessParts): Promise<StateBackend> {
  const { queues, ...rest } = parts;
  const coordination = soleCoordination();
  return {
    name: spec,
    shared: false,
    coordination,
    joined: await coordination.join(''),
    clock: null,
    async frontier(init, resuming) {
      const full = { ...init, store: queues };
      return resuming ? WorkQueueFrontier.open(full) : new WorkQueueFrontier(full);
    },
    crawlReport: async () => null,
    ...rest,
  };
}
