/**
 * Running statistics of a crawl: what the reports and the live display show.
 * Counters only; no URLs are kept, so memory stays flat however long the crawl.
 */

export interface HostStats {
  urls: number;
  bytes: number;
  robotsBlocked: number;
  novelUrls: number;
  novelBytes: number;
  dupUrls: number;
  dupBytes: number;
  errors: number;
}

export interface SeedStatus {
  url: string;
  status: number | null;
  redirect: string | null;
  /** Why a seed that was not crawled was not: its host's closing cause (`connection refused fetching robots.txt`). Reports only. */
  reason?: string;
}

export class CrawlStats {
  readonly startedAt: number;
  /** URIs that got an HTTP response (any status). */
  fetched = 0;
  /** 2xx/3xx/4xx/5xx responses written, i.e. captures ("URIs" in what the crawl prints). */
  succeeded = 0;
  /** Of those, 2xx HTML pages ("pages"). */
  pages = 0;
  /** URIs given up on (negative status after retries, robots, limits). */
  failed = 0;
  /** URIs dropped by scope (logged once each). */
  disregarded = 0;
  /** Body bytes downloaded (stored lengths). */
  bytes = 0;
  novelUrls = 0;
  novelBytes = 0;
  dupUrls = 0;
  dupBytes = 0;
  retries = 0;
  /** Pages whose links were cut at limits.maxOutlinks, and the links dropped from them. */
  pagesCapped = 0;
  outlinksDropped = 0;
  readonly byStatus = new Map<number, number>();
  readonly byMime = new Map<string, { urls: number; bytes: number }>();
  readonly byHost = new Map<string, HostStats>();
  readonly seeds = new Map<string, SeedStatus>();

  constructor(now: number) {
    this.startedAt = now;
  }

  host(host: string): HostStats {
    let h = this.byHost.get(host);
    if (!h) {
      h = { urls: 0, bytes: 0, robotsBlocked: 0, novelUrls: 0, novelBytes: 0, dupUrls: 0, dupBytes: 0, errors: 0 };
      this.byHost.set(host, h);
    }
    return h;
  }

  countStatus(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** A response captured and written. */
  captured(host: string, status: number, mime: string, bytes: number, duplicate: boolean, page: boolean): void {
    this.fetched++;
    this.succeeded++;
    if (page) this.pages++;
    this.bytes += bytes;
    this.countStatus(status);
    const m = this.byMime.get(mime) ?? { urls: 0, bytes: 0 };
    m.urls++;
    m.bytes += bytes;
    this.byMime.set(mime, m);
    const h = this.host(host);
    h.urls++;
    h.bytes += bytes;
    if (duplicate) {
      this.dupUrls++;
      this.dupBytes += bytes;
      h.dupUrls++;
      h.dupBytes += bytes;
    } else {
      this.novelUrls++;
      this.novelBytes += bytes;
      h.novelUrls++;
      h.novelBytes += bytes;
    }
  }

  /** A URI that ended without a capture (negative status). */
  gaveUp(host: string, status: number): void {
    this.failed++;
    this.countStatus(status);
    const h = this.host(host);
    h.errors++;
    if (status === -9998) h.robotsBlocked++;
  }

  /** Links of a page dropped at limits.maxOutlinks. */
  outlinksCapped(dropped: number): void {
    this.pagesCapped++;
    this.outlinksDropped += dropped;
  }

  rejected(status: number): void {
    this.disregarded++;
    this.countStatus(status);
  }

  elapsedMs(now: number): number {
    return Math.max(0, now - this.startedAt);
  }
}
