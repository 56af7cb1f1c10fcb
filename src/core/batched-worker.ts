/**
 * Work handed to one worker thread, a turn at a time. Every request made
 * during one event-loop turn travels in one message and comes back in one
 * reply: waking a thread costs the main thread ~30-60 µs on a small VM, so
 * one wake-up per turn rather than one per request. Each request carries
 * its own fallback; when the worker cannot start, fails, exits or answers
 * a request with an error, the fallback runs in this thread instead, so a
 * caller never sees the worker's troubles.
 *
 * Protocol (what a worker program implements, usually with serveBatches
 * from batch-server.ts): it receives an array of `{ id, input }` and answers
 * with one array of `{ id, output }` or `{ id, error }`, in any order; it
 * posts WORKER_READY once it is ready for work. Work sent before then waits
 * in the worker's port; `start()` and `ready` let a caller start the worker
 * ahead of its work and keep working in this thread until it is up.
 */
import { existsSync } from 'node:fs';
import { Worker, type ResourceLimits, type TransferListItem } from 'node:worker_threads';
import { startWorkerHeap } from './crawl-heap.js';
import { WORKER_READY } from './batch-server.js';

interface Pending<Out> {
  resolve: (output: Out) => void;
  reject: (err: unknown) => void;
  fallback: () => Promise<Out>;
}

interface Reply<Out> {
  id: number;
  output?: Out;
  error?: string;
}

export class BatchedWorker<In, Out> {
  readonly #start: () => Worker | null;
  #worker: Worker | null = null;
  /** Set once the worker failed or the pool closed: from then on fallbacks do the work. */
  #broken = false;
  /** The worker said it is ready for work. */
  #ready = false;
  #readyWaiters: ((up: boolean) => void)[] = [];
  #nextId = 0;
  readonly #inFlight = new Map<number, Pending<Out>>();
  /** Requests of this turn, sent together at its end. */
  #outbox: { id: number; input: In }[] = [];
  #transfers: TransferListItem[] = [];

  readonly #maxBatch: number;

  /**
   * `start` makes the worker, or returns null when it cannot run here (the
   * fallbacks then do everything). `maxBatch`: a turn that asks for more
   * sends them this many at a time, so the worker starts on the first while
   * this thread is still busy with the turn (default: the whole turn at once).
   */
  constructor(start: () => Worker | null, options: { maxBatch?: number } = {}) {
    this.#start = start;
    this.#maxBatch = options.maxBatch ?? Infinity;
  }

  /** True once the worker failed (or could not start) and work runs in this thread. */
  get fellBack(): boolean {
    return this.#broken;
  }

  /** True once the worker has started and said it is ready (and has not failed since). */
  get ready(): boolean {
    return this.#ready;
  }

  /** True once the worker was made (it may still be loading, or have failed since). */
  get started(): boolean {
    return this.#worker !== null || this.#broken;
  }

  /** Start the worker now, with no work for it yet: it loads while this thread goes on. */
  start(): void {
    if (!this.#broken) this.#worker ??= this.#launch();
  }

  /** Starts the worker if need be; true once it is ready for work, false when it cannot run (or failed, or the pool closed). */
  whenReady(): Promise<boolean> {
    this.start();
    if (this.#ready || this.#broken) return Promise.resolve(this.#ready);
    // Someone waits on it: the worker keeps the process alive until it is up or gone.
    this.#worker?.ref();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** Run `input` on the worker (`transfer`: buffers to move, not copy); `fallback` does the same work here if needed. */
  run(input: In, transfer: TransferListItem[], fallback: () => Promise<Out>): Promise<Out> {
    this.start();
    const worker = this.#worker;
    if (worker === null) return fallback();
    const id = this.#nextId++;
    return new Promise<Out>((resolve, reject) => {
      // Keep the process alive only while the worker holds work.
      if (this.#inFlight.size === 0) worker.ref();
      this.#inFlight.set(id, { resolve, reject, fallback });
      if (this.#outbox.length === 0) setImmediate(() => this.#send());
      this.#outbox.push({ id, input });
      for (const t of transfer) this.#transfers.push(t);
      if (this.#outbox.length >= this.#maxBatch) this.#send();
    });
  }

  /** Stop the worker; what it still held runs on its fallbacks, as does anything asked later. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#broken = true;
    this.#settleReady(false);
    this.#fallBackAll();
    if (worker !== null) await worker.terminate();
  }

  #launch(): Worker | null {
    let worker: Worker | null;
    try {
      worker = this.#start();
    } catch {
      worker = null;
    }
    if (worker === null) {
      this.#broken = true;
      this.#settleReady(false);
      return null;
    }
    const w = worker;
    w.on('message', (replies: Reply<Out>[] | typeof WORKER_READY) => {
      if (replies === WORKER_READY) this.#settleReady(true);
      else for (const reply of replies) this.#answer(reply);
    });
    w.on('error', () => this.#fail(w));
    w.on('exit', () => this.#fail(w));
    // After the listeners: a 'message' listener refs the worker's port again, and a worker
    // started ahead of its work (start()) that is never given any must not keep the process alive.
    w.unref();
    return w;
  }

  #send(): void {
    const batch = this.#outbox;
    const transfers = this.#transfers;
    this.#outbox = [];
    this.#transfers = [];
    // The worker may have failed meanwhile: #fallBackAll already took these requests.
    if (this.#worker === null || batch.length === 0) return;
    this.#worker.postMessage(batch, transfers);
  }

  #answer(reply: Reply<Out>): void {
    const pending = this.#inFlight.get(reply.id);
    if (pending === undefined) return;
    this.#inFlight.delete(reply.id);
    // Let the process go when nothing is asked of the worker: no work, and nobody waiting for it to be ready.
    if (this.#inFlight.size === 0 && this.#readyWaiters.length === 0) this.#worker?.unref();
    if (reply.error === undefined) pending.resolve(reply.output as Out);
    else pending.fallback().then(pending.resolve, pending.reject);
  }

  /** The worker died or failed: what it held, and everything after, runs here. */
  #fail(worker: Worker): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    this.#broken = true;
    this.#settleReady(false);
    this.#fallBackAll();
  }

  #settleReady(up: boolean): void {
    this.#ready = up;
    if (this.#readyWaiters.length > 0 && this.#inFlight.size === 0) this.#worker?.unref();
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const w of waiters) w(up);
  }

  #fallBackAll(): void {
    const held = [...this.#inFlight.values()];
    this.#inFlight.clear();
    this.#outbox = [];
    this.#transfers = [];
    for (const pending of held) pending.fallback().then(pending.resolve, pending.reject);
  }
}

/**
 * A `start` for BatchedWorker: the compiled worker module at `url`, or null
 * when it is not there — running from the TypeScript sources under tsx,
 * whose loader does not reach worker threads, so the work stays in-thread.
 * `resourceLimits`: the worker's heap limits (node's Worker option); a
 * young generation limit is also its size from the start (crawl-heap.ts).
 * `workerData`: node's Worker option, as given.
 */
export function compiledWorker(url: URL, resourceLimits?: ResourceLimits, workerData?: unknown): () => Worker | null {
  return () => {
    if (!existsSync(url)) return null;
    const heap = startWorkerHeap(resourceLimits?.maxYoungGenerationSizeMb);
    let worker: Worker;
    try {
      worker = new Worker(url, { ...(resourceLimits !== undefined ? { resourceLimits } : {}), ...(workerData !== undefined ? { workerData } : {}) });
    } catch (err) {
      heap.started();
      throw err;
    }
    worker.once('online', heap.started);
    worker.once('exit', heap.started);
    return worker;
  };
}
