/**
 * Network quiet of one page: the count of its open requests, and a wait
 * that ends once at most one has been open for `idleMs` (Browsertrix's and
 * Heritrix's rule: a page polling a beacon forever still goes quiet), or
 * when its signal aborts. Event-driven: every change re-arms one timer.
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
      const arm = (): void => {
        if (timer !== null) clearTimeout(timer);
        timer = this.#open <= 1 ? setTimeout(() => end(true), idleMs) : null;
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
