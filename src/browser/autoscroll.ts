/**
 * The autoscroll behavior: scroll a viewport at a time, letting the network
 * quiet after each step, until the bottom is reached and the height stops
 * growing (infinite-scroll content and IntersectionObserver lazy images
 * load on the way), or until `signal` (behaviorTimeoutMs, the page's
 * deadline) ends it.
 */
import type { Page } from 'playwright-core';
import type { NetworkIdle } from './network-idle.js';
import { SCROLL_STATE, SCROLL_STEP } from './page-scripts.js';

/** Bounded: a page growing for ever is stopped by the signal, this only guards the loop. */
const MAX_STEPS = 500;

interface ScrollState {
  height: number;
  bottom: boolean;
}

export async function autoscroll(page: Page, idle: NetworkIdle, idleMs: number, signal: AbortSignal): Promise<void> {
  let last = -1;
  for (let i = 0; i < MAX_STEPS && !signal.aborted; i++) {
    const before = (await page.evaluate(SCROLL_STATE)) as ScrollState;
    if (before.bottom && before.height === last) return;
    last = before.height;
    await page.evaluate(SCROLL_STEP);
    // Observers fire after the scroll, their requests within the quiet time.
    await idle.quiet(idleMs, signal);
  }
}
