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
 * mirrored (with, for a busy crawl, the size its young generation may grow to).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * How far the old generation may grow past what survived the last full GC,
 * in percent (V8 chooses 10–300% from its own speed, up to 4x on a machine
 * with memory to spare). 50: more full GCs, each small (~10 ms), and the
 * crawl's old generations stay within 1.5x of their live size.
 */
export const HEAP_GROWING_PERCENT = 50;

let held = false;

/** The size V8 gives a semi-space when a heap is made, in MB (64-bit, no pointer compression). */
const INITIAL_SEMI_SPACE_MB = 1;

/**
 * The main thread's new space (as V8 reports it: both semi-spaces, 4 MB
 * each) a busy crawl lets it grow to, once (growYoungGenerationWhenBusy);
 * 0 until then: held at 1 MB a semi-space.
 */
const BUSY_NEW_SPACE_BYTES = 8 * 1024 * 1024;
let target = 0;

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * A crawl with many hosts in hand at once allocates on the main thread fast
 * enough that 1 MB semi-spaces made its garbage collection a fifth of that
 * thread's CPU: its young generation may grow to BUSY_NEW_SPACE_BYTES, and
 * is held there. A crawl of one host never gets here, and keeps its small
 * young generation. Once per process.
 *
 * V8 grows the semi-spaces during a scavenge, and JavaScript learns of it
 * only afterwards: growth is held again at the first look that finds the
 * target reached — after each GC (an observer) and at each claim the crawl
 * handles (checkYoungGeneration). A burst of long-lived allocations between
 * two looks can still grow it once more, to 16 MB.
 */
export function growYoungGenerationWhenBusy(): void {
  if (!held || target > 0) return;
  target = BUSY_NEW_SPACE_BYTES;
  gcs = new PerformanceObserver(checkYoungGeneration);
  gcs.observe({ entryTypes: ['gc'] });
  checkYoungGeneration();
}

let gcs: PerformanceObserver | null = null;

/** While the young generation grows to its target: hold it once there. Cheap otherwise. */
export function checkYoungGeneration(): void {
  if (gcs === null) return;
  holdYoungGeneration();
  if (newSpaceBytes() < target) return;
  gcs.disconnect();
  gcs = null;
}

/** For a crawl: young generations held at their size, old ones kept near their live size. */
export function sizeHeapForCrawl(): void {
  held = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  holdYoungGeneration();
}

function holdYoungGeneration(): void {
  if (held) setFlagsFromString(`--semi-space-growth-factor=${target > 0 && newSpaceBytes() < target ? 2 : 1}`);
}

/**
 * Around the start of a worker: one whose young generation is limited to
 * `youngMb` (its resourceLimits.maxYoungGenerationSizeMb) gets all of it from
 * the start, half to each semi-space. Call `started` once the worker is up
 * or gone: later heaps start small again, and the young generations of a
 * crawl stay held.
 */
export function startWorkerHeap(youngMb: number | undefined): { started: () => void } {
  // V8 starts a semi-space at 1 MB (64-bit, no pointer compression, as node is built): a flag asking
  // for that is left unset, so that a worker started before any flag (cli/page-thread-first.ts) keeps
  // node's compiled modules (linked-signal.ts).
  const semiMb = youngMb === undefined ? 0 : Math.floor(youngMb / 2);
  const minSemi = semiMb > INITIAL_SEMI_SPACE_MB;
  if (minSemi) setFlagsFromString(`--min-semi-space-size=${semiMb}`);
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
      if (minSemi) setFlagsFromString('--min-semi-space-size=0');
      holdYoungGeneration();
    },
  };
}
