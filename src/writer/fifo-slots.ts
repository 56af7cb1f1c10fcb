/**
 * A counting semaphore that hands out slots strictly in the order they were
 * asked for. The WARC writer takes one per capture when the capture is
 * queued and gives it back once the capture is written, so at most `slots`
 * captures sit compressed (or compressing) ahead of the serial write queue.
 * FIFO order is what makes that safe: the holders are always the oldest
 * unwritten captures, so the queue's head never waits for a slot held by a
 * capture behind it.
 */
import { ArchiverError } from '../core/errors.js';

export class FifoSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new ArchiverError('ARCHIVER_INVALID_OPTION', `FifoSlots: slots must be an integer >= 1, got ${slots}`);
    this.#free = slots;
  }

  /** Resolves when a slot is this caller's; callers are served in call order. */
  acquire(): Promise<void> {
    if (this.#free > 0 && this.#waiting.length === 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Give a slot back: to the longest waiter if any. Call once per acquire. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
