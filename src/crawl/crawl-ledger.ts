/**
 * Where every URI's final disposition is entered, once: a crawl.log line,
 * the statistics, and an event for whoever watches (a capture, a failure, a
 * refusal). Before, each part of the crawl wrote crawl.log and bumped its
 * counters on its own; the progress display and the summary now read the
 * same figures the log was written from.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import type { CrawlLog } from '../writer/crawl-log.js';
import type { CrawlEvents } from './crawl-events.js';
import type { CrawlStats } from './crawl-stats.js';
import { MAX_OUTLINKS_ANNOTATION } from './outlinks.js';
import { hostOf } from '../url/hosts.js';

export interface CaptureEntry {
  uri: CrawlUri;
  status: number;
  mime: string;
  size: number;
  worker: number;
  fetchStart: Date;
  durationMs: number;
  digest: string;
  annotations: readonly string[];
  duplicate: boolean;
  /** A 2xx HTML page (what "pages" counts). */
  page: boolean;
  /** The Location of a seed's redirect, for the seeds report. */
  redirect: string | null;
}

export class CrawlLedger {
  readonly #log: CrawlLog;
  readonly #stats: CrawlStats;
  readonly #events: CrawlEvents;
  readonly #now: () => number;

  constructor(deps: { log: CrawlLog; stats: CrawlStats; events: CrawlEvents; now: () => number }) {
    this.#log = deps.log;
    this.#stats = deps.stats;
    this.#events = deps.events;
    this.#now = deps.now;
  }

  captured(e: CaptureEntry): void {
    const time = this.#now();
    const { uri } = e;
    this.#log.write({
      time: new Date(time),
      status: e.status,
      size: e.size,
      url: uri.url,
      hopPath: uri.hopPath,
      via: uri.via,
      mime: e.mime,
      worker: e.worker,
      fetchStart: e.fetchStart,
      durationMs: e.durationMs,
      digest: e.digest,
      annotations: e.annotations,
    });
    this.#stats.captured(hostOf(uri.url) ?? '-', e.status, e.mime || 'unknown', e.size, e.duplicate, e.page);
    const capped = droppedOutlinks(e.annotations);
    if (capped > 0) this.#stats.outlinksCapped(capped);
    if (uri.seed) this.#stats.seeds.set(uri.url, { url: uri.url, status: e.status, redirect: e.redirect });
    if (this.#events.has('capture')) {
      const rendered = e.annotations.some((a) => a.startsWith('rendered:'));
      this.#events.emit('capture', { url: uri.url, status: e.status, mime: e.mime, size: e.size, time, hopPath: uri.hopPath, via: uri.via, duplicate: e.duplicate, ...(rendered ? { rendered: true as const } : {}) });
    }
  }

  /** Given up on, with a negative status; `worker` null when no worker handled it (a disposal at discovery). */
  failed(uri: CrawlUri, status: number, worker: number | null, annotations: readonly string[]): void {
    const time = this.#now();
    this.#log.write({ time: new Date(time), status, size: null, url: uri.url, hopPath: uri.hopPath, via: uri.via, mime: null, worker, fetchStart: null, durationMs: null, digest: null, annotations });
    this.#stats.gaveUp(hostOf(uri.url) ?? '-', status);
    if (uri.seed) this.#stats.seeds.set(uri.url, { url: uri.url, status, redirect: null });
    if (this.#events.has('failure')) this.#events.emit('failure', { url: uri.url, status, time, hopPath: uri.hopPath, via: uri.via, annotations });
  }

  /** Refused by scope at discovery (logged once per URL by the caller). */
  refused(uri: CrawlUri, status: number, reason: string): void {
    const time = this.#now();
    this.#log.write({ time: new Date(time), status, size: null, url: uri.url, hopPath: uri.hopPath, via: uri.via, mime: null, worker: null, fetchStart: null, durationMs: null, digest: null, annotations: [reason] });
    this.#stats.rejected(status);
    if (this.#events.has('refusal')) this.#events.emit('refusal', { url: uri.url, status, reason, time, hopPath: uri.hopPath, via: uri.via });
  }
}

/** Links dropped at limits.maxOutlinks, from a capture's annotations (0 when none). */
export function droppedOutlinks(annotations: readonly string[]): number {
  for (const a of annotations) if (a.startsWith(`${MAX_OUTLINKS_ANNOTATION}:`)) return Number(a.slice(MAX_OUTLINKS_ANNOTATION.length + 1)) || 0;
  return 0;
}
