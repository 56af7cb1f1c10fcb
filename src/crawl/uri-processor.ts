/**
 * Processes one claimed URI from start to end — the chain Heritrix spreads
 * over its processors: robots prerequisite, robots decision, fetch, link
 * extraction, dedup, WARC, crawl.log, scheduling of outlinks — and returns the
 * frontier outcome with the politeness delay for its host.
 */
import type { Clock } from '../core/clock.js';
import type { CrawlUri } from '../core/crawl-uri.js';
import { FetchError } from '../core/errors.js';
import { headerValue, type HttpExchange } from '../core/exchange.js';
import type { Profile } from '../config/profile.js';
import type { Claim, Outcome } from '../frontier/frontier.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { HtmlExtractFn } from '../fetch/html-extract-thread.js';
import { delayWithRetryAfterMs, politenessDelayMs } from '../politeness/delay.js';
import type { RobotsPolicy } from '../politeness/robots-policy.js';
import type { RobotsPrerequisites } from '../politeness/robots-prerequisite.js';
import type { CrawlLog } from '../writer/crawl-log.js';
import type { WarcWriter } from '../writer/warc-writer.js';
import { warcDate } from '../writer/warc-naming.js';
import { isPageCapture, type CaptureJournal } from '../job/capture-journal.js';
import type { CrawlStats } from './crawl-stats.js';
import { extractOutlinks } from './outlinks.js';
import type { LinkScheduler } from './link-scheduler.js';
import type { PayloadDedup } from '../dedup/payload-dedup.js';

/** Transport failures worth retrying: DNS, connect, connection lost, timeout. */
const RETRYABLE = new Set([-1, -2, -3, -4]);

export interface UriProcessorDeps {
  profile: Profile;
  fetcher: Fetcher;
  writer: WarcWriter;
  /** One line per written response/revisit: the end of the crawl indexes from it. */
  journal: CaptureJournal;
  crawlLog: CrawlLog;
  dedup: PayloadDedup;
  /** robots.txt as a prerequisite: what to do before a fetch, and where a robots.txt's answer goes. */
  robots: RobotsPrerequisites;
  policy: RobotsPolicy;
  links: LinkScheduler;
  /** HTML extraction (a worker thread in a crawl; in this thread when absent). */
  extractHtml?: HtmlExtractFn;
  stats: CrawlStats;
  clock: Clock;
  /** Aborts in-flight fetches (a hard stop). */
  abortSignal: AbortSignal;
}

export class UriProcessor {
  readonly #d: UriProcessorDeps;

  constructor(deps: UriProcessorDeps) {
    this.#d = deps;
  }

  /**
   * `release` is called once a page's fetch is over, with its host's
   * politeness delay: the frontier may then fetch the host again (after the
   * delay) while this URI's records, logs and outlinks are still being
   * written. Robots prerequisites are not released early: the URIs behind
   * them need their rules recorded first.
   */
  async process(claim: Claim, worker: number, release: (delayMs: number) => Promise<void> = async () => {}): Promise<Outcome> {
    const uri = claim.uri;
    const d = this.#d;
    const prerequisite = d.robots.isPrerequisite(uri);
    const origin = d.robots.originFor(uri);
    const robots = d.robots.check(uri, origin);
    switch (robots.kind) {
      case 'known':
        return { kind: 'done', delayMs: 0 };
      case 'defer':
        return robots;
      case 'unavailable':
        return this.#robotsUnavailable(claim, worker);
      case 'excluded':
        await this.#logFailure(uri, -9998, worker, ['robotExcluded']);
        return { kind: 'done', delayMs: 0 };
    }
    const userAgent = robots.userAgent;

    let exchange: HttpExchange;
    try {
      exchange = await d.fetcher.fetch(uri.url, userAgent ? { signal: d.abortSignal, userAgent } : { signal: d.abortSignal });
    } catch (err) {
      return this.#fetchFailed(claim, err, worker, prerequisite, origin);
    }
    try {
      return await this.#captured(uri, exchange, worker, prerequisite, origin, release);
    } finally {
      await exchange.body.dispose();
    }
  }

  async #captured(
    uri: CrawlUri,
    ex: HttpExchange,
    worker: number,
    prerequisite: boolean,
    origin: string,
    release: (delayMs: number) => Promise<void>,
  ): Promise<Outcome> {
    const d = this.#d;
    const mime = mimeOf(ex);
    const delayMs = prerequisite ? 0 : this.#delayAfter(ex, origin);
    if (!prerequisite) await release(delayMs);
    if (prerequisite) await d.robots.fetched(uri, ex, origin);
    const found = prerequisite ? { links: [], annotations: [] } : await extractOutlinks(ex, mime, d.policy.obeysMetaRobots, d.extractHtml);
    // The capture's WARC-Date, exactly as written: what revisits of it refer to.
    const date = warcDate(ex.startedAt, d.profile.output.warcVersion);
    let revisitOf: { url: string; date: string } | undefined;
    if (ex.status >= 200 && ex.status < 300 && ex.body.size > 0) {
      revisitOf = (await d.dedup.originalOf(ex.payloadDigest, ex.url, date)) ?? undefined;
    }
    // Outlinks are queued while the records are written, not after: the URI
    // is finished (deleted from the frontier) only once both are done, and
    // the shorter the time between its records reaching the disk and that
    // delete, the fewer captures a crash makes the resumed crawl repeat.
    const scheduling = found.links.length > 0 ? d.links.schedule(uri, found.links) : Promise.resolve(0);
    // Awaited at the end; a failure while the capture is written must not count as unhandled.
    scheduling.catch(() => {});
    const written = await d.writer.writeCapture({
      exchange: ex,
      hopPath: uri.hopPath,
      via: uri.via,
      outlinks: found.links,
      ...(revisitOf ? { revisitOf } : {}),
    });
    await d.journal.append({
      url: ex.url,
      date,
      status: ex.status,
      mime,
      digest: ex.payloadDigest,
      filename: written.filename,
      offset: written.offset,
      length: written.length,
      revisit: written.revisit,
      seed: uri.via === null,
      page: isPageCapture(ex.status, mime, found.page?.noindex ?? false),
      ...(found.page?.title ? { title: found.page.title } : {}),
      ...(found.page?.text ? { text: found.page.text } : {}),
    });
    const annotations = [...found.annotations];
    if (uri.retries > 0) annotations.push(`${uri.retries + 1}t`);
    if (ex.truncated) annotations.push(`truncated:${ex.truncated}`);
    if (revisitOf) annotations.push('duplicate:digest');
    d.crawlLog.write({
      time: new Date(d.clock.now()),
      status: ex.status,
      size: ex.body.size,
      url: uri.url,
      hopPath: uri.hopPath,
      via: uri.via,
      mime,
      worker,
      fetchStart: ex.startedAt,
      durationMs: ex.durationMs,
      digest: ex.payloadDigest,
      annotations,
    });
    d.stats.captured(hostOf(uri.url), ex.status, mime || 'unknown', ex.body.size, revisitOf !== undefined);
    this.#seedStatus(uri, ex);
    await scheduling;
    return { kind: 'done', delayMs: prerequisite ? this.#delayAfter(ex, origin) : delayMs };
  }

  #delayAfter(ex: HttpExchange, origin: string): number {
    const d = this.#d;
    const p = d.profile.politeness;
    const crawlDelaySec = d.policy.crawlDelaySec(d.robots.rules(origin));
    const delay = politenessDelayMs({ durationMs: ex.durationMs, bodyBytes: ex.body.size }, crawlDelaySec, p);
    return delayWithRetryAfterMs(delay, { status: ex.status, retryAfter: headerValue(ex.responseHeaders, 'retry-after') }, d.clock, p);
  }

  async #fetchFailed(claim: Claim, err: unknown, worker: number, prerequisite: boolean, origin: string): Promise<Outcome> {
    const d = this.#d;
    const uri = claim.uri;
    const status = err instanceof FetchError ? err.fetchStatus : -5;
    const limits = d.profile.limits;
    if (RETRYABLE.has(status) && uri.retries < limits.maxRetries && !d.abortSignal.aborted) {
      d.stats.retries++;
      return { kind: 'retry', delayMs: limits.retryDelayMs };
    }
    if (prerequisite) await d.robots.unreachable(origin);
    const code = err instanceof FetchError ? err.code : 'error';
    await this.#logFailure(uri, status, worker, [`${uri.retries + 1}t`, code]);
    return { kind: 'done', delayMs: 0 };
  }

  /** robots.txt answered 5xx or could not be fetched: wait for it like a transport failure (RFC 9309). */
  async #robotsUnavailable(claim: Claim, worker: number): Promise<Outcome> {
    const limits = this.#d.profile.limits;
    if (claim.uri.retries < limits.maxRetries) return { kind: 'retry', delayMs: limits.retryDelayMs };
    await this.#logFailure(claim.uri, -61, worker, ['robotsUnavailable']);
    return { kind: 'done', delayMs: 0 };
  }

  async #logFailure(uri: CrawlUri, status: number, worker: number, annotations: string[]): Promise<void> {
    const d = this.#d;
    d.crawlLog.write({
      time: new Date(d.clock.now()),
      status,
      size: null,
      url: uri.url,
      hopPath: uri.hopPath,
      via: uri.via,
      mime: null,
      worker,
      fetchStart: null,
      durationMs: null,
      digest: null,
      annotations,
    });
    d.stats.gaveUp(hostOf(uri.url), status);
    if (uri.seed) d.stats.seeds.set(uri.url, { url: uri.url, status, redirect: null });
  }

  #seedStatus(uri: CrawlUri, ex: HttpExchange): void {
    if (!uri.seed) return;
    const location = ex.status >= 300 && ex.status < 400 ? (headerValue(ex.responseHeaders, 'location') ?? null) : null;
    this.#d.stats.seeds.set(uri.url, { url: uri.url, status: ex.status, redirect: location });
  }
}

function mimeOf(ex: HttpExchange): string {
  const type = headerValue(ex.responseHeaders, 'content-type') ?? '';
  return type.split(';')[0]?.trim().toLowerCase() ?? '';
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '-';
  }
}
