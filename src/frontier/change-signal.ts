/**
 * Wakes waiting `next()` calls when the frontier changes. A version counter
 * closes the race between "found nothing" and "started waiting": a caller
 * passes the version it saw, and a wait begun after a newer change returns
 * at once instead of sleeping through it.
 */
export class ChangeSignal {
  readonly #waiters = new Set<() => void>();
  #version = 0;

  get version(): number {
    return this.#version;
  }

  /** Something changed that every waiter must see (closing, the end of the work): wake them all. */
  notify(): void {
    this.#version++;
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * Something changed that one waiter can act on: wake the one waiting
   * longest. Waking all of them for each change had every idle worker of a
   * crawl take the frontier's lock to find nothing, dozens of times per URI.
   * Whoever acts on the change wakes the next waiter if more is left.
   */
  notifyOne(): void {
    this.#version++;
    for (const wake of this.#waiters) {
      wake();
      return;
    }
  }

  /** Until a change after `seenVersion`, `ms` pass (Infinity: no timer), or `signal` aborts. */
  wait(seenVersion: number, ms: number, signal?: AbortSignal): Promise<void> {
    if (seenVersion !== this.#version || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(wake, Math.max(1, ms)) : undefined;
      this.#waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}
