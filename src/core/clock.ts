/**
 * The one time source type. Whatever reads the time takes a Clock, so tests
 * drive time with a fake one (habit 7: the clock is passed in, never read
 * from a global).
 */
export interface Clock {
  /** Milliseconds: epoch ms for systemClock; from an arbitrary origin for monotonicClock. */
  now(): number;
}

/** The wall clock, epoch ms: what is logged, stored or compared across runs. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** A clock that never steps back, for measuring intervals within one run (progress rates). */
export const monotonicClock: Clock = Object.freeze({ now: () => performance.now() });
