/**
 * Queue precedence: which queue hands out the next URI, beside the order
 * inside each queue (queue-order.ts). A policy keeps the ready and the
 * inactive lists and says whether a waiting (inactive) queue goes before a
 * ready one; chosen by name from a table (`frontier.precedence`):
 * - `fifo`: the queue ready longest goes first (Heritrix's ready queue);
 *   inactive queues are activated in rotation order, only when no queue is
 *   ready;
 * - `priority`: the queue whose next URI has the highest `CrawlUri.priority`
 *   goes first, ties first-in first-out (ready-by-priority.ts), among ready
 *   AND inactive queues, as Heritrix's precedence tiers of inactive queues
 *   do: an inactive queue that ranks above the ready queue about to be
 *   served takes that queue's session (queue-heads.ts), so the number of
 *   active queues stays what the workers need. The session budget
 *   (`balanceReplenishAmount`) then rotates queues of equal rank: one that
 *   spent it and still ranks first is activated again at once.
 *
 * Lists tolerate stale entries, as the frontier's other lists do: an entry
 * whose queue changed state since (`WorkQueue.seq`) is skipped. A policy
 * that ranks by the head must also hear when a listed queue's head changes:
 * the frontier asks `inPlace()` and, when not, lists it again with `rerank()`.
 */
import type { QueuePrecedenceName } from '../config/profile.js';
import { FrontierError, FrontierErrorCode } from './errors.js';
import { QueueList } from './queue-list.js';
import { rankOf, ReadyByPriority } from './ready-by-priority.js';

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

  peek(): WorkQueue | undefined {
    return this.#list.peek();
  }

  inPlace(): boolean {
    return true;
  }

  rerank(queue: WorkQueue): void {
    this.#list.push(queue);
  }
}

export interface QueuePrecedence {
  ready: ReadyQueues;
  inactive: ReadyQueues;
  /**
   * Whether the inactive `waiting` queue goes before the ready `queue`
   * (true too when `waiting`'s rank is not known yet: it must be read to
   * tell); null when the policy never puts an inactive queue first, nor
   * ranks them (the rotation order).
   */
  preempts: ((waiting: WorkQueue, queue: WorkQueue) => boolean) | null;
}

const PRECEDENCES: Readonly<Record<QueuePrecedenceName, () => QueuePrecedence>> = Object.freeze({
  fifo: () => ({ ready: new ReadyInTurn(), inactive: new ReadyInTurn(), preempts: null }),
  priority: () => ({ ready: new ReadyByPriority(), inactive: new ReadyByPriority(), preempts: (waiting, queue) => rankOf(waiting) > rankOf(queue) }),
});

/** Fresh lists for the named precedence. */
export function precedenceFor(name: QueuePrecedenceName): QueuePrecedence {
  const make = Object.hasOwn(PRECEDENCES, name) ? PRECEDENCES[name] : undefined;
  if (make === undefined) throw new FrontierError(FrontierErrorCode.unknownPolicy, `unknown queue precedence "${String(name)}"`);
  return make();
}
