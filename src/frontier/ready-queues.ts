/**
 * The ready list of a queue precedence policy (precedence.ts): which ready
 * queue hands out the next URI. Its own file so the policies can implement
 * it without importing the table that names them.
 */
import type { WorkQueue } from './work-queue.js';

export interface ReadyQueues {
  /** List a queue that became ready (behind those listed before it at its rank). */
  push(queue: WorkQueue): void;
  /** Whether entries are listed (some may be stale): a waiter woken with none may find work. */
  readonly listed: boolean;
  /** Take the queue that goes next off the list; undefined when none. */
  shift(): WorkQueue | undefined;
  /** Whether a listed queue still stands where its head puts it. */
  inPlace(queue: WorkQueue): boolean;
  /** List it again where its head puts it now, keeping its turn among equals. */
  rerank(queue: WorkQueue): void;
}
