/**
 * V8's optimising compiler for a crawl that turns out long.
 *
 * bin.ts starts every run with an interrupt budget 6.7× V8's default: a
 * function is handed to TurboFan only after that much of its bytecode has
 * run, so a crawl of a thousand pages, which runs a wide spread of
 * lukewarm code for seconds, compiles little of it. That pays while the
 * crawl is short and costs once it is long: the code each URI runs stays in
 * V8's baseline tier for thousands of URIs. On a web of tiny pages
 * (twenty-seventh session, alternated crawls, CPU):
 *
 * - 1,200 URIs: V8's default budget from the start +17 to +22% against
 *   bin.ts's;
 * - 6,000 URIs: the default −13 to −16%; 24,000 URIs: −14%. Past the first
 *   thousand URIs each costs ~20% less with the default (1.29 against
 *   1.61 ms of CPU).
 *
 * The budget can be lowered while the crawl runs (V8 reads the flag each
 * time it gives a function its budget again), but a function first spends
 * the budget it was given: lowered 1.5 s into the crawl it saved 3% of the
 * 6,000 URIs and 9% of the 24,000. So the budget goes back to V8's default
 * once the crawl has written LONG_CRAWL_CAPTURES captures: crawls shorter
 * than that (the bench's PostgreSQL and Python docs) run as before, long
 * ones optimise their steady work.
 */
import type { CrawlEvents } from '../crawl/crawl-events.js';

/** Captures after which a crawl counts as long. */
export const LONG_CRAWL_CAPTURES = 1500;

/** V8's own interrupt budget (node 20's V8 11.3: `node --v8-options`), the one a long crawl goes back to. */
export const V8_DEFAULT_INTERRUPT_BUDGET = 67_584;

/**
 * Set V8's default interrupt budget (through `setFlags`, v8.setFlagsFromString
 * in a crawl) once `after` captures were written. Returns what stops
 * watching (the crawl's end).
 */
export function tierUpWhenLong(events: CrawlEvents, setFlags: (flags: string) => void, after = LONG_CRAWL_CAPTURES): () => void {
  let captures = 0;
  const stop = events.on('capture', () => {
    if (++captures < after) return;
    stop();
    setFlags(`--interrupt-budget=${V8_DEFAULT_INTERRUPT_BUDGET}`);
  });
  return stop;
}
