/**
 * A second thread for PageRank's iterations. The edge layout and the score
 * arrays live in SharedArrayBuffers; each iteration, this thread and the
 * helper take target blocks from a shared counter until none is left
 * (pagerank-block.ts), so a thread the machine slows down simply takes
 * fewer. The threads meet through Atomics.wait/notify on a small control
 * array, not messages: an iteration is ~50 ms and the calling thread stays
 * synchronous. If the helper cannot start (no compiled worker, as under
 * tsx) there is none, and if it fails, this thread does its blocks.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { EdgeLayout } from './edge-layout.js';
import type { RankVectors } from './pagerank-block.js';

/** Slots of the control array. */
export const CONTROL = {
  /** The iteration to run; -1: stop. */
  command: 0,
  /** The next block to take (Atomics.add). */
  nextBlock: 1,
  /** The last iteration the helper finished. */
  done: 2,
  /** 1 once the helper runs, -1 once it failed. */
  state: 3,
} as const;

/** What the helper is started with. */
export interface RankHelperData {
  edges: EdgeLayout;
  vectors: RankVectors;
  control: Int32Array;
  /** [base] of the current iteration. */
  base: Float64Array;
  /** Per block: the last iteration it was finished for. */
  blockDone: Int32Array;
}

/** How long to wait for the helper to start before going on alone. */
const START_TIMEOUT_MS = 10_000;

export class RankHelper {
  private constructor(
    private readonly worker: Worker,
    private readonly data: RankHelperData,
  ) {}

  /** A running helper over these shared arrays, or null when none can run here. */
  static start(edges: EdgeLayout, vectors: RankVectors): RankHelper | null {
    const url = new URL('./pagerank-worker.js', import.meta.url);
    if (!existsSync(url)) return null;
    const blockCount = edges.farBlockStart.length - 1;
    const data: RankHelperData = {
      edges,
      vectors,
      control: new Int32Array(new SharedArrayBuffer(4 * 4)),
      base: new Float64Array(new SharedArrayBuffer(8)),
      blockDone: new Int32Array(new SharedArrayBuffer(4 * blockCount)),
    };
    let worker: Worker;
    try {
      worker = new Worker(url, { workerData: data });
    } catch {
      return null;
    }
    worker.unref();
    worker.on('error', () => {}); // its failure is seen through the control array
    const { control } = data;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Atomics.load(control, CONTROL.state) === 0 && Date.now() < deadline) {
      Atomics.wait(control, CONTROL.state, 0, Math.max(1, deadline - Date.now()));
    }
    if (Atomics.load(control, CONTROL.state) !== 1) {
      void worker.terminate().catch(() => {});
      return null;
    }
    return new RankHelper(worker, data);
  }

  /** Run iteration `iteration` with the helper: `runBlock(b)` runs block b on this thread. */
  iterate(iteration: number, base: number, runBlock: (b: number) => void): void {
    const { control, blockDone } = this.data;
    const blockCount = blockDone.length;
    this.data.base[0] = base;
    Atomics.store(control, CONTROL.nextBlock, 0);
    Atomics.store(control, CONTROL.command, iteration);
    Atomics.notify(control, CONTROL.command);
    for (let b = Atomics.add(control, CONTROL.nextBlock, 1); b < blockCount; b = Atomics.add(control, CONTROL.nextBlock, 1)) {
      runBlock(b);
      Atomics.store(blockDone, b, iteration);
    }
    for (;;) {
      const done = Atomics.load(control, CONTROL.done);
      if (done === iteration) return;
      if (Atomics.load(control, CONTROL.state) !== 1) break;
      Atomics.wait(control, CONTROL.done, done, 1000);
    }
    // The helper failed (it stops writing before it says so): redo what it left.
    for (let b = 0; b < blockCount; b++) if (Atomics.load(blockDone, b) !== iteration) runBlock(b);
  }

  /** False once the helper has failed: go on without it. */
  get alive(): boolean {
    return Atomics.load(this.data.control, CONTROL.state) === 1;
  }

  stop(): void {
    Atomics.store(this.data.control, CONTROL.command, -1);
    Atomics.notify(this.data.control, CONTROL.command);
    void this.worker.terminate().catch(() => {});
  }
}
