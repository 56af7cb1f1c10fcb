/**
 * Network quiet of one page: the count of its open requests, and a wait
 * that ends once at most one has been open for `idleMs` (Browsertrix's
 * rule: a page polling a beacon forever still goes quiet), or when its
 * signal aborts. Event-driven: one timer, stopped while two or more
 * requests are open and started again when they are down to one.
 */
export class NetworkIdle {
  #open = 0;
  readonly #listeners = new Set<() => void>();

  get open(): number {
    return this.#open;
  }

  opened(): void {
    this.#open++;
    this.#changed();
  }

  closed(): void {
    this.#open = Math.max(0, this.#open - 1);
    this.#changed();
  }

  /** Resolves true once quiet for `idleMs`, false when `signal` aborted first. */
  quiet(idleMs: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      // The quiet time runs while at most one request is open, however many come and go one at a
      // time (a beacon every 100 ms must not keep a page open); it starts over only past one.
      const arm = (): void => {
        if (this.#open > 1) {
          if (timer !== null) clearTimeout(timer);
          timer = null;
        } else if (timer === null) {
          timer = setTimeout(() => end(true), idleMs);
        }
      };
      const end = (quiet: boolean): void => {
        if (timer !== null) clearTimeout(timer);
        this.#listeners.delete(arm);
        signal.removeEventListener('abort', onAbort);
        resolve(quiet);
      };
      const onAbort = (): void => end(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#listeners.add(arm);
      arm();
    });
  }

  #changed(): void {
    for (const l of [...this.#listeners]) l();
  }
}
