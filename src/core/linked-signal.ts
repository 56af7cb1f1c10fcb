/**
 * A worker thread telling the thread that made it, without waiting for that
 * thread's event loop, that its modules are loaded: its static imports,
 * node's own modules among them, are linked, and its module bodies have
 * run. The page thread of a crawl is started before bin.ts sets V8's flags
 * (cli/page-thread-first.ts), and bin.ts holds the flags back until this
 * says so, so that the worker takes node's modules compiled: V8 refuses
 * node's compiled code for them once any flag differs from the default
 * (builtins-first.ts), and a worker compiling them from source took ~30 ms
 * more CPU and came up ~25 ms later.
 *
 * One Int32 in a SharedArrayBuffer passed as workerData[LINKED_KEY]: 0
 * until the worker calls signalLinked, 1 after. Atomics, not a message: the
 * parent waits with its thread blocked, before it has an event loop to
 * speak of.
 */
import { workerData } from 'node:worker_threads';

/** The workerData field holding the cell. */
export const LINKED_KEY = 'linkedSignal';

/** A fresh cell, for workerData[LINKED_KEY]. */
export function linkedCell(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/** On the worker: say that its modules are loaded. Nothing when it was not given a cell. */
export function signalLinked(): void {
  const cell = (workerData as Record<string, unknown> | null | undefined)?.[LINKED_KEY];
  if (!(cell instanceof SharedArrayBuffer)) return;
  const flag = new Int32Array(cell);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

/** On the parent: block until the worker has signalled, at most `ms`; true when it has. */
export function awaitLinked(cell: SharedArrayBuffer, ms: number): boolean {
  return Atomics.wait(new Int32Array(cell), 0, 0, ms) !== 'timed-out';
}
