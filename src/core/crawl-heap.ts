/**
 * How V8's heaps are sized in a crawl. Left to V8, a crawl's peak RSS is
 * mostly garbage: the main thread's semi-spaces double from 1 MB to 16 MB
 * each (33 MB of new space, whose survivors fit in one), and the old
 * generations grow to several times their live size between full GCs.
 *
 * The CLI cannot give its own process V8 flags on the command line, and
 * flags set at run time do not resize a heap already made. What V8 reads
 * again as it goes: the semi-space growth factor, at each growth (1: the
 * main thread's semi-spaces stay at 1 MB), the heap growing percent, at each
 * full GC (how far the old generation may grow past its live size before
 * the next one), and the minimum semi-space size, when a heap is made (a
 * worker's, later: its young generation starts at its full size, as fast
 * as before and never growing).
 *
 * Process-wide by nature: V8's flags are the process's. Making any heap
 * raises a growth factor under 2 back to 2 (V8's Heap::ConfigureHeap), so
 * every worker started by compiledWorker holds growth again while it starts
 * and once it is up; `held` is the one bit this module keeps, V8's own state
 * mirrored.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * How far the old generation may grow past what survived the last full GC,
 * in percent (V8 chooses 10–300% from its own speed, up to 4x on a machine
 * with memory to spare). 50: more full GCs, each small (~10 ms), and the
 * crawl's old generations stay within 1.5x of their live size.
 */
export const HEAP_GROWING_PERCENT = 50;

let held = false;

/** For a crawl: young generations held at their size, old ones kept near their live size. */
export function sizeHeapForCrawl(): void {
  held = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  holdYoungGeneration();
}

function holdYoungGeneration(): void {
  if (held) setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Around the start of a worker: one whose young generation is limited to
 * `youngMb` (its resourceLimits.maxYoungGenerationSizeMb) gets all of it from
 * the start, half to each semi-space. Call `started` once the worker is up
 * or gone: later heaps start small again, and the young generations of a
 * crawl stay held.
 */
export function startWorkerHeap(youngMb: number | undefined): { started: () => void } {
  if (youngMb !== undefined) setFlagsFromString(`--min-semi-space-size=${Math.max(1, Math.floor(youngMb / 2))}`);
  // The worker's heap is made on its own thread, some ms from now, and sets
  // the growth factor back to 2 then; until the worker is up, a scavenge here
  // would double the main thread's semi-spaces. Held again every millisecond
  // meanwhile (tens of times, once per crawl).
  const meanwhile = held ? setInterval(holdYoungGeneration, 1) : null;
  meanwhile?.unref();
  let done = false;
  return {
    started: () => {
      if (done) return;
      done = true;
      if (meanwhile !== null) clearInterval(meanwhile);
      if (youngMb !== undefined) setFlagsFromString('--min-semi-space-size=0');
      holdYoungGeneration();
    },
  };
}
