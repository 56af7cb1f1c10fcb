/**
 * Shared and exclusive runs of a filter's operations: batches overlap
 * freely; an exclusive operation (a forget) waits until no batch is
 * running, and batches queued after it wait for it to end.
 */
export class BatchGate {
  /** Running shared operations, so an exclusive one can wait for them. */
  readonly #running = new Set<Promise<unknown>>();
  /** Resolves when no exclusive operation is queued or running. */
  #gate: Promise<void> = Promise.resolve();

  /** Run `op` alongside other shared operations, after any queued exclusive one. */
  shared<T>(op: () => Promise<T>): Promise<T> {
    return this.#gate.then(() => {
      // Registered synchronously as the gate opens, so an exclusive operation
      // queued after this one is sure to see it in #running.
      const run = op();
      this.#running.add(run);
      const done = (): void => void this.#running.delete(run);
      run.then(done, done);
      return run;
    });
  }

  /** Run `op` alone: after running shared operations finish, before queued ones start. */
  exclusive<T>(op: () => Promise<T>): Promise<T> {
    const previous = this.#gate;
    let release!: () => void;
    this.#gate = new Promise<void>((resolve) => (release = resolve));
    return previous.then(async () => {
      try {
        await Promise.allSettled([...this.#running]);
        return await op();
      } finally {
        release();
      }
    });
  }

  /** Resolves once every operation queued or running now has ended (their failures are their callers'). */
  async settled(): Promise<void> {
    await this.#gate;
    await Promise.allSettled([...this.#running]);
  }
}
