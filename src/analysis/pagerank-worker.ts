/**
 * The program of PageRank's helper thread (pagerank-threads.ts): waits for
 * an iteration, takes target blocks from the shared counter until none is
 * left, says it is done, and waits again.
 */
import { workerData } from 'node:worker_threads';
import { nameThisThread } from '../core/thread-name.js';
import { rankBlock } from './pagerank-block.js';
import { CONTROL, type RankHelperData } from './pagerank-threads.js';

const { edges, vectors, control, base, blockDone } = workerData as RankHelperData;
const blockCount = blockDone.length;
nameThisThread('arch-rank');
try {
  Atomics.store(control, CONTROL.state, 1);
  Atomics.notify(control, CONTROL.state);
  for (let seen = 0; ; ) {
    Atomics.wait(control, CONTROL.command, seen);
    const iteration = Atomics.load(control, CONTROL.command);
    if (iteration < 0) break;
    if (iteration === seen) continue;
    seen = iteration;
    for (let b = Atomics.add(control, CONTROL.nextBlock, 1); b < blockCount; b = Atomics.add(control, CONTROL.nextBlock, 1)) {
      rankBlock(edges, b, iteration, base[0]!, vectors);
      Atomics.store(blockDone, b, iteration);
    }
    Atomics.store(control, CONTROL.done, iteration);
    Atomics.notify(control, CONTROL.done);
  }
} catch {
  Atomics.store(control, CONTROL.state, -1);
  Atomics.notify(control, CONTROL.done);
}
