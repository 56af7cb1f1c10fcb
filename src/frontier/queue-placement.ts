/**
 * Where a work queue belongs, from its counters alone: Heritrix's
 * transition table (WorkQueueFrontier) as one pure function.
 * - new queues start inactive; one is activated only when a worker finds no
 *   ready queue it may use, so active queues grow only as far as needed;
 * - a queue that spent its session budget (`balanceReplenishAmount`, 1 per
 *   URI handed out) goes to the end of the inactive list; one that reached
 *   `queueTotalBudget` is retired (still accepts URIs, never activated);
 * - after a fetch the queue and the host are snoozed for the outcome's delay;
 *   delay 0 sends the queue straight back to ready.
 * The frontier applies the answer (queue-states.ts); nothing here changes
 * the queue.
 */
import type { QueueState } from './frontier.js';
import type { WorkQueue } from './work-queue.js';

export interface PlacementLimits {
  /** `queueTotalBudget`: at it a queue is retired; negative: no limit. */
  totalBudget: number;
  /** `balanceReplenishAmount`: spent, a queue goes back to the inactive rotation; 0: no limit. */
  sessionBudget: number;
  /** Fetches in flight per queue. */
  maxPerQueue: number;
}

export interface Placement {
  /**
   * The queue's state; `parked`: snoozed with no wake time, because all it
   * has waits for held hosts and only a hold's end can wake it.
   */
  state: QueueState | 'parked';
  /** It reached its total budget just now: mark it retired. */
  retire?: true;
  /** Its session is over (or it has nothing left): no longer active. */
  deactivate?: true;
}

type QueueFigures = Pick<WorkQueue, 'retired' | 'count' | 'totalSpent' | 'sessionSpent' | 'inFlight' | 'available' | 'active' | 'claimable' | 'wakeAt' | 'fetching'>;

export function placementOf(queue: QueueFigures, now: number, limits: PlacementLimits): Placement {
  const overTotal = limits.totalBudget >= 0 && queue.totalSpent >= limits.totalBudget;
  const overSession = limits.sessionBudget > 0 && queue.sessionSpent >= limits.sessionBudget;
  if (queue.retired) return { state: 'retired' };
  if (queue.count === 0) return { state: 'exhausted', deactivate: true };
  if (overTotal && queue.inFlight === 0) return { state: 'retired', retire: true };
  if (queue.available === 0 || overTotal) return { state: 'in-process' };
  if (!queue.active) return { state: 'inactive' };
  if (overSession) return queue.inFlight > 0 ? { state: 'in-process' } : { state: 'inactive', deactivate: true };
  if (queue.claimable === 0) return { state: 'parked' };
  if (queue.wakeAt > now) return { state: 'snoozed' };
  if (queue.fetching >= limits.maxPerQueue) return { state: 'in-process' };
  return { state: 'ready' };
}
