/**
 * A list of work queues kept by a queue precedence policy (precedence.ts):
 * the ready list (which ready queue hands out the next URI) and the
 * inactive list (which waiting queue is activated next). Its own file so the
 * policies can implement it without importing the table that names them.
 */
import type { WorkQueue } from './work-queue.js';

export interface ReadyQueues {
  /** List a queue that became ready (behind those listed before it at its rank). */
  push(queue: WorkQueue): void;
  /** Whether entries are listed (some may be stale): a waiter woken with none may find work. */
  readonly listed: boolean;
  /** Take the queue that goes next off the list; undefined when none. */
  shift(): WorkQueue | undefined;
  /** The queue shift() would take, left listed; undefined when none. */
  peek(): WorkQueue | undefined;
  /** Whether a listed queue still stands where its head puts it. */
  inPlace(queue: WorkQueue): boolean;
  /** List it again where its head puts it now, keeping its turn among equals. */
  rerank(queue: WorkQueue): void;
}
