/**
 * The live display on stderr: on a TTY a status block redrawn in place, else
 * one line every few seconds (logs stay readable).
 */
import type { Clock } from '../core/clock.js';
import type { FrontierStats } from '../frontier/frontier.js';
import type { CrawlStats } from './crawl-stats.js';

export interface ProgressOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  intervalMs?: number;
  clock: Clock;
}

export class Progress {
  readonly #o: ProgressOptions;
  #timer: NodeJS.Timeout | null = null;
  #linesDrawn = 0;
  #last = { at: 0, pages: 0, bytes: 0 };

  constructor(opts: ProgressOptions) {
    this.#o = opts;
  }

  start(read: () => { stats: CrawlStats; frontier: FrontierStats }): void {
    const tty = this.#o.out.isTTY === true;
    const every = this.#o.intervalMs ?? (tty ? 500 : 5000);
    this.#last = { at: this.#o.clock.now(), pages: 0, bytes: 0 };
    this.#timer = setInterval(() => this.#draw(read(), tty), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #draw({ stats, frontier }: { stats: CrawlStats; frontier: FrontierStats }, tty: boolean): void {
    const now = this.#o.clock.now();
    const dt = Math.max((now - this.#last.at) / 1000, 0.001);
    const pagesPerSec = (stats.succeeded - this.#last.pages) / dt;
    const kbPerSec = (stats.bytes - this.#last.bytes) / 1024 / dt;
    this.#last = { at: now, pages: stats.succeeded, bytes: stats.bytes };
    const elapsed = formatElapsed(stats.elapsedMs(now));
    const states = Object.entries(frontier.queuesByState)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    if (!tty) {
      this.#o.out.write(
        `[${elapsed}] pages ${stats.succeeded} (${pagesPerSec.toFixed(1)}/s, ${kbPerSec.toFixed(1)} KB/s) errors ${stats.failed} queued ${frontier.queued} queues: ${states || 'none'}\n`,
      );
      return;
    }
    const lines = [
      `elapsed  ${elapsed}`,
      `pages    ${stats.succeeded}   ${pagesPerSec.toFixed(1)} pages/s   ${kbPerSec.toFixed(1)} KB/s`,
      `errors   ${stats.failed}   retries ${stats.retries}   out of scope ${stats.disregarded}`,
      `queued   ${frontier.queued}   in process ${frontier.inProcess}`,
      `queues   ${states || 'none'}`,
    ];
    let text = this.#linesDrawn > 0 ? `\x1b[${this.#linesDrawn}F` : '';
    text += lines.map((l) => `\x1b[2K${l}`).join('\n') + '\n';
    this.#linesDrawn = lines.length;
    this.#o.out.write(text);
  }
}

function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
