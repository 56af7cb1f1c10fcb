/**
 * Bringing a frontier back from a store left by an earlier run (crash or
 * stop): every stored URI — including those in process when it stopped —
 * is queued again, and each queue gets back its saved figures (queue-meta.ts):
 * wake time, active or not, finished count, budgets spent (by URIs no
 * longer in flight), place in the rotation. Hosts still inside a delay stay
 * closed until it ends. The frontier then settles the queues in their saved
 * rotation order, so they are listed as they were (one at its total budget
 * is retired again).
 *
 * What comes back is what the write-behind channel (write-behind.ts) had
 * committed: a crash can lose its last batch (a few ms of work), and those
 * finished URIs are then handed out again, with their counts and delays
 * lost with them, so they are counted and delayed once, on refetch.
 */
import type { Clock } from '../core/clock.js';
import type { HostGate } from './host-gate.js';
import type { QueueStore } from './queue-store.js';
import type { Parked } from './queue-states.js';
import type { QueueTable } from './queue-table.js';
import type { WorkQueue } from './work-queue.js';

export interface Resumed {
  /** The store's discovery counter: new URIs are numbered after it. */
  ordinal: number;
  /** Every queue, in saved rotation order, to be settled. */
  queues: WorkQueue[];
  /** When it was read (epoch ms). */
  now: number;
}

/** Load what the store kept into `table` (queues, counts) and `gate` (hosts' delays). */
export async function resumeQueues(store: QueueStore, table: QueueTable, gate: HostGate<Parked>, clock: Clock): Promise<Resumed> {
  const saved = await store.load();
  const now = clock.now();
  for (const [key, queue] of saved.queues) table.restore(key, queue);
  for (const [host, openAt] of saved.hosts) if (openAt > now) gate.holdUntil(host, openAt);
  const queues = [...table.values()].sort((a, b) => a.rotation - b.rotation);
  return { ordinal: saved.ordinal, queues, now };
}
