/**
 * Names the calling thread in the operating system, so that `top -H`,
 * `ps -L` and the crawl benchmark can tell archiver's worker threads apart
 * from node's own helpers (V8's garbage-collector and compiler threads,
 * libuv's pool), which are all called "node". Linux keeps a thread's name
 * in /proc/thread-self/comm, at most 15 bytes. Best effort: on other
 * systems, or when /proc is read-only, the thread keeps its name.
 */
import { writeFileSync } from 'node:fs';

export const THREAD_NAME_MAX_BYTES = 15;

export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', Buffer.from(name, 'utf8').subarray(0, THREAD_NAME_MAX_BYTES));
  } catch {
    // Not Linux, or no writable /proc: the name is a convenience only.
  }
}
