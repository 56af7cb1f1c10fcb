/**
 * Progress lines on stderr while WARCs are read: records, MB read and rate,
 * at most once per interval so a terminal or log is not flooded. Small inputs
 * that finish within the first interval print nothing. The clock is injected
 * so tests can drive time.
 */
import { monotonicClock, type Clock } from '../core/clock.js';

export interface ProgressOptions {
  /** Minimum time between two lines; default 1000 ms. */
  intervalMs: number;
}

export class ProgressReporter {
  private readonly startMs: number;
  private lastPrintMs: number;
  private printed = false;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly clock: Clock = monotonicClock,
    private readonly opts: ProgressOptions = { intervalMs: 1000 },
  ) {
    this.startMs = clock.now();
    this.lastPrintMs = this.startMs;
  }

  /** Called often (every record); prints only when the interval has passed. */
  update(records: number, bytesRead: number, file: string): void {
    const now = this.clock.now();
    if (now - this.lastPrintMs < this.opts.intervalMs) return;
    this.lastPrintMs = now;
    this.printed = true;
    this.out.write(`analyze: ${this.line(records, bytesRead, now)} (${file})\n`);
  }

  /** A closing line, only if progress was shown at all. */
  finish(records: number, bytesRead: number): void {
    if (!this.printed) return;
    this.out.write(`analyze: read done, ${this.line(records, bytesRead, this.clock.now())}\n`);
  }

  private line(records: number, bytesRead: number, now: number): string {
    const mb = bytesRead / 1e6;
    const secs = Math.max((now - this.startMs) / 1000, 1e-3);
    return `${records.toLocaleString('en-US')} records, ${mb.toFixed(1)} MB read, ${(mb / secs).toFixed(1)} MB/s`;
  }
}
