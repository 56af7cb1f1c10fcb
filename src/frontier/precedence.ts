/**
 * Queue precedence: which READY queue hands out the next URI, beside the
 * order inside each queue (queue-order.ts). A policy keeps the ready
 * queues; chosen by name from a table (`frontier.precedence`):
 * - `fifo`: the queue ready longest goes first (Heritrix's ready queue);
 * - `priority`: the queue whose head URI has the highest `CrawlUri.priority`
 *   goes first, ties first-in first-out (ready-by-priority.ts).
 *
 * Lists tolerate stale entries, as the frontier's other lists do: an entry
 * whose queue changed state since (`WorkQueue.seq`) is skipped. A policy
 * that ranks by the head must also hear when a listed queue's head changes:
 * the frontier asks `inPlace()` and, when not, lists it again with `rerank()`.
 */
import type { QueuePrecedenceName } from '../config/profile.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { QueueList } from './queue-list.js';
import { ReadyByPriority } from './ready-by-priority.js';

export type { ReadyQueues } from './ready-queues.js';
import type { ReadyQueues } from './ready-queues.js';
import type { WorkQueue } from './work-queue.js';

/** First ready, first served; the head plays no part. */
export class ReadyInTurn implements ReadyQueues {
  readonly #list = new QueueList();

  get listed(): boolean {
    return this.#list.listed;
  }

  push(queue: WorkQueue): void {
    this.#list.push(queue);
  }

  shift(): WorkQueue | undefined {
    return this.#list.shift();
  }

  inPlace(): boolean {
    return true;
  }

  rerank(queue: WorkQueue): void {
    this.#list.push(queue);
  }
}

const PRECEDENCES: Readonly<Record<QueuePrecedenceName, () => ReadyQueues>> = Object.freeze({
  fifo: () => new ReadyInTurn(),
  priority: () => new ReadyByPriority(),
});

/** A fresh ready list for the named precedence. */
export function readyQueuesFor(name: QueuePrecedenceName): ReadyQueues {
  const make = Object.hasOwn(PRECEDENCES, name) ? PRECEDENCES[name] : undefined;
  if (make === undefined) throw new FrontierError(FrontierErrorCode.unknownPolicy, `unknown queue precedence "${String(name)}"`);
  return make();
}
