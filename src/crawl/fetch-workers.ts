/**
 * The crawl's workers: each takes the next claim and runs it, one fetch at a
 * time. What follows a fetch — WARC records, extraction, logs, outlinks —
 * takes longer than the fetch itself once servers answer in tens of ms
 * (it waits on the capture and extraction threads and on LevelDB), and a
 * worker that waited for it left its share of ready hosts idle: with 40
 * workers, 8 fetches ran. So once a claim's fetch is over the worker hands
 * the rest to the background and takes the next claim. At most
 * `maxFinishing` claims finish in the background at once, which bounds
 * memory; past that a worker finishes its own claim first, as before.
 */

export interface FetchWorkersOptions {
  /** Workers, i.e. fetches in flight. */
  workers: number;
  /** Claims finishing in the background at once (default: `workers`). */
  maxFinishing?: number;
}

/**
 * Runs one claim to its end and never rejects; calls `fetchOver` once its
 * fetch is over and its host is free again (not at all for a claim that
 * fetches nothing, or whose fetch must not be followed by the next one).
 */
export type RunClaim<C> = (claim: C, worker: number, fetchOver: () => void) => Promise<void>;

/**
 * Runs `workers` loops of `next()` → `run()` until `next()` gives null, and
 * resolves once every claim handed out has finished.
 */
export async function runFetchWorkers<C>(opts: FetchWorkersOptions, next: () => Promise<C | null>, run: RunClaim<C>): Promise<void> {
  const maxFinishing = opts.maxFinishing ?? opts.workers;
  const finishing = new Set<Promise<void>>();
  const loop = async (worker: number): Promise<void> => {
    for (;;) {
      const claim = await next();
      if (claim === null) return;
      let handOff = (): void => {};
      const handedOff = new Promise<void>((resolve) => (handOff = resolve));
      // Started a microtask later, so that `task` exists whenever fetchOver is called.
      const task: Promise<void> = Promise.resolve().then(() => run(claim, worker, () => {
        if (finishing.size >= maxFinishing || finishing.has(task)) return;
        finishing.add(task);
        const forget = (): void => {
          finishing.delete(task);
        };
        task.then(forget, forget);
        handOff();
      }));
      await Promise.race([task, handedOff]);
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, (_, i) => loop(i + 1)));
  // No loop is left to add to the set.
  await Promise.all(finishing);
}
