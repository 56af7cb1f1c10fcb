/**
 * The crawl's workers: N loops that each claim a URI from the frontier and
 * hand it to `handle`. They can be paused — no new claims; what is in flight
 * finishes; the frontier's queues keep their timing, so a resumed crawl is
 * as polite as one never paused — and stopped (no new claims; `run()`
 * resolves once the last handle returned). A claim that arrives just as the
 * pool pauses or stops goes back to the frontier untouched.
 */
import { setMaxListeners } from 'node:events';
import type { Claim, Frontier } from '../frontier/frontier.js';

export interface WorkerPoolOptions {
  size: number;
  frontier: Frontier;
  /** Process one claim through to frontier.finished(); false stops this worker (a fatal error). */
  handle(claim: Claim, worker: number): Promise<boolean>;
}

export class WorkerPool {
  readonly #o: WorkerPoolOptions;
  readonly #stop = new AbortController();
  /** Aborted on pause (and on stop): workers waiting in frontier.next() come back. */
  #claims = new AbortController();
  #resumed: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(opts: WorkerPoolOptions) {
    this.#o = opts;
    // Every waiting worker listens on these.
    setMaxListeners(opts.size * 2 + 16, this.#stop.signal, this.#claims.signal);
  }

  get paused(): boolean {
    return this.#resumed !== null;
  }

  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Resolves once every worker has ended: the frontier ran dry, or the pool was stopped. */
  run(): Promise<void> {
    return Promise.all(Array.from({ length: this.#o.size }, (_, i) => this.#work(i + 1))).then(() => undefined);
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
    const { frontier } = this.#o;
    while (!this.stopped) {
      if (this.#resumed !== null) {
        await this.#resumed.promise;
        continue;
      }
      const claim = await frontier.next(this.#claims.signal);
      if (claim === null) {
        // Woken by a pause: wait for the resume. Otherwise the frontier is done (or the pool stopped).
        if (this.#resumed !== null && !this.stopped) continue;
        return;
      }
      if (this.#resumed !== null || this.stopped) {
        await frontier.finished(claim, { kind: 'defer', delayMs: 0 });
        continue;
      }
      if (!(await this.#o.handle(claim, id))) return;
    }
  }
}
