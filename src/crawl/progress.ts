/**
 * The live display on stderr, drawn from the crawl's status (the same object
 * `Crawl.status()` returns and the console serves): on a TTY a status block
 * redrawn in place, else one line every few seconds (logs stay readable).
 * Rates are the display's own, between two draws (the first draw, with no
 * draw before it, shows this run's average: a resumed crawl's first line said
 * 0.0/s after 185 fetches); a waiting host is named with why and until when,
 * so nobody has to guess why a crawl sits still; the time left is estimated
 * (eta.ts).
 */
import { describeWaiting } from '../politeness/host-health.js';
import { describeQueues, type CrawlStatus } from './crawl-status.js';
import { EtaEstimator, formatEta } from './eta.js';

export interface ProgressOptions {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  intervalMs?: number;
}

/** Waiting hosts named on the line; the rest are counted. */
const WAITING_NAMED = 2;

export class Progress {
  readonly #o: ProgressOptions;
  #timer: NodeJS.Timeout | null = null;
  #linesDrawn = 0;
  #last: { sec: number; uris: number; bytes: number } | null = null;
  #eta = new EtaEstimator();

  constructor(opts: ProgressOptions) {
    this.#o = opts;
  }

  /** `floorSec`: the least time the work queued can take (the politeness floor, eta.ts). */
  start(read: () => CrawlStatus, floorSec: () => number = () => 0): void {
    const tty = this.#o.out.isTTY === true;
    const every = this.#o.intervalMs ?? (tty ? 500 : 5000);
    this.#last = null;
    this.#eta = new EtaEstimator();
    // The run's start is the rate's first sample: the first line already has one to go by.
    const s0 = read();
    this.#eta.estimate({ sec: s0.runElapsedSec, ended: s0.uris + s0.errors, queued: s0.queued });
    this.#timer = setInterval(() => this.#draw(read(), tty, floorSec), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #draw(s: CrawlStatus, tty: boolean, floorSec: () => number): void {
    const last = this.#last;
    const dt = last === null ? 0 : Math.max(s.runElapsedSec - last.sec, 0.001);
    const urisPerSec = last === null ? s.urisPerSec : (s.uris - last.uris) / dt;
    const kbPerSec = last === null ? s.kbPerSec : (s.bytes - last.bytes) / 1024 / dt;
    this.#last = { sec: s.runElapsedSec, uris: s.uris, bytes: s.bytes };
    const etaSec = s.state === 'running' ? this.#eta.estimate({ sec: s.runElapsedSec, ended: s.uris + s.errors, queued: s.queued }, s.queued > 0 ? floorSec() : 0) : null;
    const eta = etaSec === null ? '' : ` left ${formatEta(etaSec)}`;
    const elapsed = formatElapsed(s.elapsedSec * 1000);
    const queues = describeQueues(s.queues);
    const waiting = describeWaitingHosts(s);
    const paused = s.state === 'paused' ? ' PAUSED' : '';
    if (!tty) {
      this.#o.out.write(
        `[${elapsed}]${paused} URIs ${s.uris} (${urisPerSec.toFixed(1)}/s, ${kbPerSec.toFixed(1)} KB/s) pages ${s.pages} errors ${s.errors} queued ${s.queued}${eta} queues: ${queues}${waiting ? ` waiting: ${waiting}` : ''}\n`,
      );
      return;
    }
    const lines = [
      `elapsed  ${elapsed}${paused}`,
      `URIs     ${s.uris}   ${urisPerSec.toFixed(1)} URIs/s   ${kbPerSec.toFixed(1)} KB/s   pages ${s.pages}`,
      `errors   ${s.errors}   retries ${s.retries}   out of scope ${s.disregarded}`,
      `queued   ${s.queued}   in process ${s.inProcess}${eta ? `   ${eta.trim()}` : ''}`,
      `queues   ${queues}`,
      ...(waiting ? [`waiting  ${waiting}`] : []),
    ];
    let text = this.#linesDrawn > 0 ? `\x1b[${this.#linesDrawn}F\x1b[J` : '';
    text += lines.map((l) => `\x1b[2K${l}`).join('\n') + '\n';
    this.#linesDrawn = lines.length;
    this.#o.out.write(text);
  }
}

/** `1 host (127.0.1.3:8080 robots.txt 500, retry 2/2 at 14:22:05)`, or '' when none waits. */
export function describeWaitingHosts(s: Pick<CrawlStatus, 'waiting'>): string {
  const n = s.waiting.length;
  if (n === 0) return '';
  const named = s.waiting.slice(0, WAITING_NAMED).map(describeWaiting).join('; ');
  const more = n > WAITING_NAMED ? `; ${n - WAITING_NAMED} more` : '';
  return `${n} host${n === 1 ? '' : 's'} (${named}${more})`;
}

function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}
