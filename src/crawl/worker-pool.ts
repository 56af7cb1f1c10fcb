/**
 * The crawl's workers: N loops that each claim a URI from the frontier and
 * hand it to `handle`. Once a claim's fetch is over (its host is free
 * again) `handle` calls `fetchOver()` and the worker takes its next claim
 * while the page's records, extraction, logs and outlinks are finished
 * behind it: with servers answering in tens of ms that work takes longer
 * than the fetch, and a worker waiting for it left its share of ready hosts
 * idle (40 workers kept 8 fetches going). At most `maxFinishing` claims
 * finish behind at once (bounded memory, and what a crash makes the resume
 * fetch again); past that a worker finishes its own claim first.
 *
 * The pool can be paused — no new claims; what is in flight finishes; the
 * frontier's queues keep their timing, so a resumed crawl is as polite as
 * one never paused — and stopped (no new claims). `run()` resolves once the
 * last claim has finished. A claim that arrives just as the pool pauses or
 * stops goes back to the frontier untouched.
 */
import { setMaxListeners } from 'node:events';
import type { Claim, Frontier } from '../frontier/frontier.js';

/** What the pool needs of the frontier. */
export type ClaimSource<C> = {
  next(signal?: AbortSignal): Promise<C | null>;
  /** Give back a claim that will not be processed now (`defer`, no delay). */
  finished(claim: C, outcome: { kind: 'defer'; delayMs: 0 }): Promise<void>;
};

export interface WorkerPoolOptions<C = Claim> {
  size: number;
  frontier: ClaimSource<C> | Frontier;
  /**
   * Process one claim through to frontier.finished(); never rejects. Calls
   * `fetchOver` once its fetch is over and its host free again (not at all
   * for a claim whose next fetch must wait for its end, e.g. robots.txt).
   */
  handle(claim: C, worker: number, fetchOver: () => void): Promise<void>;
  /** Claims finishing behind at once; default `size`. */
  maxFinishing?: number;
}

export class WorkerPool<C = Claim> {
  readonly #o: WorkerPoolOptions<C>;
  readonly #source: ClaimSource<C>;
  readonly #maxFinishing: number;
  readonly #finishing = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  /** Aborted on pause (and on stop): workers waiting in frontier.next() come back. */
  #claims = new AbortController();
  #resumed: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(opts: WorkerPoolOptions<C>) {
    this.#o = opts;
    this.#source = opts.frontier as ClaimSource<C>;
    this.#maxFinishing = opts.maxFinishing ?? opts.size;
    // Every waiting worker listens on these.
    setMaxListeners(opts.size * 2 + 16, this.#stop.signal, this.#claims.signal);
  }

  get paused(): boolean {
    return this.#resumed !== null;
  }

  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Resolves once every worker has ended (the frontier ran dry, or the pool was stopped) and every claim finished. */
  async run(): Promise<void> {
    await Promise.all(Array.from({ length: this.#o.size }, (_, i) => this.#work(i + 1)));
    // No worker is left to add to the set.
    await Promise.all(this.#finishing);
  }

  pause(): void {
    if (this.#resumed !== null || this.stopped) return;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.#resumed = { promise, resolve };
    this.#claims.abort();
  }

  resume(): void {
    const resumed = this.#resumed;
    if (resumed === null) return;
    this.#resumed = null;
    this.#claims = new AbortController();
    setMaxListeners(this.#o.size * 2 + 16, this.#claims.signal);
    if (this.stopped) this.#claims.abort();
    resumed.resolve();
  }

  /** No new claims from now on; a paused pool is released so its workers can end. */
  stop(): void {
    this.#stop.abort();
    this.#claims.abort();
    this.#resumed?.resolve();
  }

  async #work(id: number): Promise<void> {
    const source = this.#source;
    while (!this.stopped) {
      if (this.#resumed !== null) {
        await this.#resumed.promise;
        continue;
      }
      const claim = await source.next(this.#claims.signal);
      if (claim === null) {
        // Woken by a pause: wait for the resume. Otherwise the frontier is done (or the pool stopped).
        if (this.#resumed !== null && !this.stopped) continue;
        return;
      }
      if (this.#resumed !== null || this.stopped) {
        await source.finished(claim, { kind: 'defer', delayMs: 0 });
        continue;
      }
      await this.#run(claim, id);
    }
  }

  /** Until the claim is finished, or its fetch is over and there is room for it to finish behind. */
  #run(claim: C, id: number): Promise<void> {
    let handOff = (): void => {};
    const handedOff = new Promise<void>((resolve) => (handOff = resolve));
    // Started a microtask later, so that `task` exists whenever fetchOver is called.
    const task: Promise<void> = Promise.resolve().then(() =>
      this.#o.handle(claim, id, () => {
        if (this.#finishing.size >= this.#maxFinishing || this.#finishing.has(task)) return;
        this.#finishing.add(task);
        const forget = (): void => void this.#finishing.delete(task);
        task.then(forget, forget);
        handOff();
      }),
    );
    return Promise.race([task, handedOff]);
  }
}
