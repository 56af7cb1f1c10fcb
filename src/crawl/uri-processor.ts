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
import { nameNotFound, transportCause } from '../fetch/fetch-errors.js';
import { delayWithRetryAfterMs, politenessDelayMs } from '../politeness/delay.js';
import type { HostHealth } from '../politeness/host-health.js';
import type { RobotsAnswered, RobotsPrerequisites } from '../politeness/robots-prerequisite.js';
import { BUDGET_EXCEEDED, BUDGET_EXCEEDED_STATUS, type Budgets } from '../overrides/budgets.js';
import type { Overrides } from '../overrides/overrides.js';
import type { WarcWriter } from '../writer/warc-writer.js';
import { warcDate } from '../writer/warc-naming.js';
import { isPageCapture, type CaptureJournal, type JournaledCapture } from '../job/capture-journal.js';
import type { CrawlLedger } from './crawl-ledger.js';
import type { CrawlStats } from './crawl-stats.js';
import { extractOutlinks, type Outlinks } from './outlinks.js';
import type { PageThread } from './page-thread.js';
import type { CaptureMembers } from '../writer/capture-members.js';
import { THREAD_BODY_MAX_BYTES as PAGE_THREAD_BODY_MAX_BYTES } from '../writer/capture-thread.js';
import { sitemapRole } from './sitemap-outlinks.js';
import { SITEMAP_FROM_ROBOTS } from '../sitemap/sitemap-uri.js';
import type { LinkScheduler } from './link-scheduler.js';
import type { PayloadDedup } from '../dedup/payload-dedup.js';
import { DELETED_BY_OPERATOR, DELETED_BY_OPERATOR_STATUS, type OperatorExclusions } from './operator-exclusions.js';
import type { FocusCrawl } from '../focus/focus-crawl.js';
import type { BrowserCapture } from '../browser/browser-capture.js';

/** Transport failures worth retrying: DNS, connect, connection lost, timeout. */
const RETRYABLE = new Set([-1, -2, -3, -4]);

export interface UriProcessorDeps {
  profile: Profile;
  fetcher: Fetcher;
  writer: WarcWriter;
  /** One line per written response/revisit: the end of the crawl indexes from it. */
  journal: CaptureJournal;
  /** crawl.log, statistics and events: where each URI's disposition is entered. */
  ledger: CrawlLedger;
  dedup: PayloadDedup;
  /** robots.txt as a prerequisite: what to do before a fetch, and where a robots.txt's answer goes; each host's robots policy. */
  robots: RobotsPrerequisites;
  /** Each host's and URL's settings under the profile's overrides. */
  overrides: Overrides;
  /** The overrides' page and byte budgets. */
  budgets: Budgets;
  /** Per-host waits and closures after robots.txt or transport failures. */
  health: HostHealth;
  /** Before a decision on a host: bring in what other processes of the crawl decided of it (shared crawls). */
  catchUpHost?: (host: string) => Promise<void>;
  links: LinkScheduler;
  /** Page work (outlinks and WARC records) on the crawl's worker thread; in this thread, by the writer, when absent. */
  pages?: PageThread;
  stats: CrawlStats;
  clock: Clock;
  /** Exclusions added while the crawl ran: URIs queued before them are dropped when claimed. */
  exclusions?: OperatorExclusions;
  /** Aborts in-flight fetches (a hard stop). */
  abortSignal: AbortSignal;
  /** Where a line for the operator goes (a sitemap past the protocol's limits); nowhere when absent. */
  notice?: (line: string) => void;
  /** A topic-focused crawl: URIs wait while its topic is learnt, pages are scored, links placed. */
  focus?: FocusCrawl;
  /** Browser capture (src/browser/): pages rendered after their fetch, renders served what is archived. */
  browser?: BrowserCapture;
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
    const browser = this.#d.browser;
    if (browser === undefined) return this.#focused(claim, worker, release);
    let outcome: Outcome | null = null;
    try {
      outcome = await this.#focused(claim, worker, release);
      return outcome;
    } finally {
      // A render waiting for this URI is told it will get nothing (its capture, if any, was handed over already).
      if (outcome === null || outcome.kind === 'done') browser.settledWithout(claim.uri);
    }
  }

  async #focused(claim: Claim, worker: number, release: (delayMs: number) => Promise<void>): Promise<Outcome> {
    const focus = this.#d.focus;
    if (focus === undefined) return this.#claimed(claim, worker, release);
    // A copy queued again by a better path (src/focus/better-paths.ts) whose page was fetched meanwhile.
    if (focus.superseded(claim.uri)) return DONE;
    // A link whose region turned out off the topic since it was queued goes back lower (src/focus/region-rates.ts).
    const demoted = focus.demoted(claim.uri);
    if (demoted !== null) return this.#d.links.scheduleForced([demoted]).then(() => DONE);
    const waitMs = focus.waitMs(claim.uri, this.#d.clock.now());
    if (waitMs > 0) return { kind: 'defer', delayMs: waitMs };
    let outcome: Outcome = DONE;
    try {
      outcome = await this.#claimed(claim, worker, release);
      return outcome;
    } finally {
      // Whatever became of it, a training URL counts down to the topic: one that threw must not hold the crawl.
      await focus.settled(claim.uri, outcome);
    }
  }

  async #claimed(claim: Claim, worker: number, release: (delayMs: number) => Promise<void>): Promise<Outcome> {
    const uri = claim.uri;
    const d = this.#d;
    // A closed host's URIs are disposed of as they come, without a fetch or a wait.
    const verdict = d.health.verdict(claim.host);
    if (verdict.kind === 'closed') {
      d.ledger.failed(uri, verdict.status, worker, [verdict.annotation]);
      return DONE;
    }
    const prerequisite = d.robots.isPrerequisite(uri);
    // A robots.txt is never held back by a budget (the URIs waiting on it would wait for
    // ever), but holds a place while it is fetched, so the pages starting meanwhile count it.
    const budget = !d.budgets.any ? null : prerequisite ? { kind: 'go' as const, ...d.budgets.hold(uri.url) } : d.budgets.take(uri.url);
    if (budget?.kind === 'spent') {
      d.ledger.failed(uri, BUDGET_EXCEEDED_STATUS, worker, [BUDGET_EXCEEDED]);
      return DONE;
    }
    // Only fetches under way fill the budget: one may fail and free its place.
    if (budget?.kind === 'wait') return { kind: 'defer', delayMs: BUDGET_WAIT_MS };
    // A page that may be rendered starts only while a worker stays free for its subrequests (browser-capture.ts).
    const rendering = d.browser?.admit(uri) ?? null;
    if (rendering === 'wait') {
      if (budget?.kind === 'go') budget.release();
      return { kind: 'defer', delayMs: d.browser!.admissionWaitMs };
    }
    try {
      return await this.#process(claim, worker, prerequisite, release);
    } finally {
      if (budget?.kind === 'go') budget.release();
      rendering?.release();
    }
  }

  async #process(claim: Claim, worker: number, prerequisite: boolean, release: (delayMs: number) => Promise<void>): Promise<Outcome> {
    const uri = claim.uri;
    const d = this.#d;
    // A robots.txt is never dropped: the URIs of its host wait for its answer.
    if (!prerequisite && d.exclusions !== undefined && d.exclusions.size > 0 && d.exclusions.matches(uri.url)) {
      d.ledger.failed(uri, DELETED_BY_OPERATOR_STATUS, worker, [DELETED_BY_OPERATOR]);
      return DONE;
    }
    const origin = d.robots.originFor(uri);
    const robots = d.robots.check(uri, origin);
    // One robots.txt for the whole crawl: another node may have fetched it since this one last followed the records.
    if (prerequisite && robots.kind === 'fetch' && (await d.robots.knownElsewhere(origin))) return DONE;
    switch (robots.kind) {
      case 'known':
        return DONE;
      case 'defer':
        return robots;
      case 'wait':
        // Claimed while its host waits for robots.txt (several connections, or a queue of several hosts).
        return { kind: 'defer', delayMs: Math.max(0, robots.untilMs - d.clock.now()), hostHeld: true };
      case 'excluded':
        d.ledger.failed(uri, -9998, worker, ['robotExcluded']);
        return DONE;
    }
    const userAgent = robots.userAgent;
    const limits = d.overrides.forUrl(uri.url).limits;

    let exchange: HttpExchange;
    try {
      const post = uri.post === undefined ? {} : { post: { body: Buffer.from(uri.post.body, 'base64'), type: uri.post.type } };
      exchange = await d.fetcher.fetch(uri.url, { signal: d.abortSignal, limits, ...(userAgent ? { userAgent } : {}), ...post });
    } catch (err) {
      return this.#fetchFailed(claim, err, worker, prerequisite, origin, limits.maxRetries);
    }
    d.health.answered(claim.host);
    try {
      return await this.#captured(uri, exchange, worker, prerequisite, origin, claim.host, release);
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
    host: string,
    release: (delayMs: number) => Promise<void>,
  ): Promise<Outcome> {
    const d = this.#d;
    const mime = mimeOf(ex);
    const delayMs = prerequisite ? 0 : this.#delayAfter(ex, origin, host);
    // Counted before the host is released: the host's next fetch must see these bytes (counted
    // after the write, a maxBytes budget let a whole small host through before it noticed).
    if (d.budgets.any) d.budgets.captured(uri.url, ex.body.size);
    if (!prerequisite) await release(delayMs);
    const answered = prerequisite ? await d.robots.fetched(uri, ex, origin) : null;
    // The capture's WARC-Date, exactly as written: what revisits of it refer to.
    const date = warcDate(ex.startedAt, d.profile.output.warcVersion);
    let revisitOf: { url: string; date: string } | undefined;
    if (ex.status >= 200 && ex.status < 300 && ex.body.size > 0) {
      revisitOf = (await d.dedup.originalOf(ex.payloadDigest, ex.url, date)) ?? undefined;
    }
    const { found, members, textJson } = await this.#read(uri, ex, mime, origin, answered, revisitOf);
    if (found.notice !== undefined) d.notice?.(found.notice);
    const focused = d.focus?.page(uri, { status: ex.status, mime, ...(found.page ? { page: found.page, links: found.links } : {}) });
    // The URI is finished (deleted from the frontier) once its records are
    // written and its outlinks queued: the shorter the time between its
    // records reaching the disk and that delete, the fewer captures a crash
    // makes the resumed crawl repeat. Records built on the page thread are
    // written once the outlinks are queued (writing them takes a moment, the
    // queueing may not); records the writer still has to build and compress
    // are written while the outlinks are queued.
    const scheduling = found.links.length > 0 ? d.links.schedule(uri, found.links, focused) : Promise.resolve(0);
    // Awaited at the end; a failure while the capture is written must not count as unhandled.
    scheduling.catch(() => {});
    if (members !== null) await scheduling;
    const written = await (members !== null
      ? d.writer.writeBuilt(members)
      : d.writer.writeCapture({ exchange: ex, hopPath: uri.hopPath, via: uri.via, outlinks: found.links, ...(revisitOf ? { revisitOf } : {}) }));
    const journaled: JournaledCapture = {
      url: ex.url,
      date,
      status: ex.status,
      mime,
      digest: ex.payloadDigest,
      size: ex.body.size,
      filename: written.filename,
      offset: written.offset,
      length: written.length,
      revisit: written.revisit,
      seed: uri.via === null,
      page: isPageCapture(ex.status, mime, found.page?.noindex ?? false),
      ...(found.page?.title ? { title: found.page.title } : {}),
      // Without output.pageText the page thread gathers no text (so sends no textJson) unless a
      // focused crawl needs it to score pages: the journal keeps it only if asked.
      ...(found.page?.text && d.profile.output.pageText ? { text: found.page.text } : {}),
      ...(focused?.relevance != null ? { relevance: focused.relevance } : {}),
      ...(uri.post !== undefined ? d.browser?.journalFields(uri.url, uri.post) : {}),
    };
    await d.journal.append(journaled, textJson);
    const rendered = d.browser !== undefined && !prerequisite ? await d.browser.captured(uri, ex, { mime, place: written, nofollow: found.annotations.includes('nofollow'), signal: d.abortSignal }) : [];
    const annotations = [...found.annotations, ...(focused?.annotations ?? []), ...rendered];
    if (uri.retries > 0) annotations.push(`${uri.retries + 1}t`);
    if (ex.truncated) annotations.push(`truncated:${ex.truncated}`);
    if (revisitOf) annotations.push('duplicate:digest');
    d.ledger.captured({
      uri,
      status: ex.status,
      mime,
      size: ex.body.size,
      worker,
      fetchStart: ex.startedAt,
      durationMs: ex.durationMs,
      digest: ex.payloadDigest,
      annotations,
      duplicate: revisitOf !== undefined,
      page: isStatsPage(ex.status, mime),
      redirect: ex.status >= 300 && ex.status < 400 ? (headerValue(ex.responseHeaders, 'location') ?? null) : null,
    });
    await scheduling;
    if (answered !== null) return this.#afterRobots(answered, this.#delayAfter(ex, origin, host));
    return { kind: 'done', delayMs };
  }

  /**
   * A capture's outlinks, and its records when the page thread built them
   * (null: the writer builds them). A body held in memory goes to the page
   * thread once, for both; robots.txt and sitemaps are read here (their
   * answers feed this thread's state), their records built there; a body
   * spilled to disk is read here and its records streamed by the writer.
   */
  async #read(uri: CrawlUri, ex: HttpExchange, mime: string, origin: string, answered: RobotsAnswered | null, revisitOf: { url: string; date: string } | undefined): Promise<{ found: Outlinks; members: CaptureMembers | null; textJson?: Buffer }> {
    const d = this.#d;
    const sitemap = answered === null ? sitemapRole(uri, mime, d.profile.scope.sitemaps) : null;
    const obeyMetaRobots = d.robots.policyFor(origin).obeysMetaRobots;
    const maxOutlinks = d.profile.limits.maxOutlinks;
    const inMemory = d.pages !== undefined && ex.body.size <= PAGE_THREAD_BODY_MAX_BYTES;
    let found: Outlinks | null = null;
    if (answered !== null) {
      found = { links: answered.sitemaps.map((url) => ({ url, hop: 'M' as const, context: SITEMAP_FROM_ROBOTS })), annotations: [], linksBeyondCap: 0 };
    } else if (sitemap !== null || !inMemory) {
      found = await extractOutlinks(ex, mime, obeyMetaRobots, d.pages?.readStored, maxOutlinks, sitemap);
    }
    if (!inMemory) return { found: found!, members: null };
    const { body, requestHead, ...rest } = ex;
    const built = await d.pages!.page({
      exchange: { ...rest, requestHead },
      body: await body.head(body.size),
      hopPath: uri.hopPath,
      via: uri.via,
      ...(revisitOf ? { revisitOf } : {}),
      version: d.profile.output.warcVersion,
      extraction: found === null ? { mime, obeyMetaRobots, maxOutlinks, ...d.pages!.extractOptions } : null,
      ...(found !== null ? { outlinks: found } : {}),
    });
    return { found: found ?? built.found, members: built.members, ...(built.textJson !== undefined ? { textJson: built.textJson } : {}) };
  }

  /** A robots prerequisite is done: its host waits out the politeness delay, or a hold if robots.txt was unavailable. */
  #afterRobots(answered: RobotsAnswered, delayMs: number): Outcome {
    if (answered.holdUntilMs === null) return { kind: 'done', delayMs };
    return { kind: 'done', delayMs: Math.max(delayMs, answered.holdUntilMs - this.#d.clock.now()), hostHeld: true };
  }

  /** The politeness delay of `host` (`host:port`, the frontier's unit) after this answer, by the host's own settings. */
  #delayAfter(ex: HttpExchange, origin: string, host: string): number {
    const d = this.#d;
    const p = d.overrides.forHost(host).politeness;
    const crawlDelaySec = d.robots.policyFor(origin).crawlDelaySec(d.robots.rules(origin));
    const delay = politenessDelayMs({ durationMs: ex.durationMs, bodyBytes: ex.body.size }, crawlDelaySec, p);
    const ms = delayWithRetryAfterMs(delay, { status: ex.status, retryAfter: headerValue(ex.responseHeaders, 'retry-after') }, d.clock, p);
    // The frontier times delays on Date.now(), whole milliseconds: one more keeps the gap
    // at least the delay when the fetch ended just before a millisecond's tick.
    return ms > 0 ? ms + 1 : 0;
  }

  async #fetchFailed(claim: Claim, err: unknown, worker: number, prerequisite: boolean, origin: string, maxRetries: number): Promise<Outcome> {
    const d = this.#d;
    const uri = claim.uri;
    // Abandoned by a hard stop: not the URI's failure; it stays queued for the resume.
    if (d.abortSignal.aborted) return { kind: 'defer', delayMs: 0 };
    const status = err instanceof FetchError ? err.fetchStatus : -5;
    const code = err instanceof FetchError ? err.code : 'error';
    if (prerequisite) {
      // No answer at all: robots.txt is unavailable, which HostHealth judges per host.
      d.ledger.failed(uri, status, worker, [`${uri.retries + 1}t`, code]);
      return this.#afterRobots(await d.robots.unreachable(origin, { status, cause: transportCause(err), nameNotFound: nameNotFound(err) }), 0);
    }
    if (!RETRYABLE.has(status)) {
      d.ledger.failed(uri, status, worker, [`${uri.retries + 1}t`, code]);
      return DONE;
    }
    // The host waits, once per failed round however many URIs it has; the URI counts the attempt it made.
    await d.catchUpHost?.(claim.host);
    const decision = d.health.transportFailed(claim.host, status, d.clock.now(), transportCause(err));
    if (decision.kind === 'closed') {
      d.ledger.failed(uri, status, worker, [`${uri.retries + 1}t`, code, decision.annotation]);
      return DONE;
    }
    const holdMs = Math.max(0, decision.untilMs - d.clock.now());
    if (uri.retries < maxRetries) {
      d.stats.retries++;
      return { kind: 'retry', delayMs: holdMs, hostHeld: true };
    }
    d.ledger.failed(uri, status, worker, [`${uri.retries + 1}t`, code]);
    return { kind: 'done', delayMs: holdMs, hostHeld: true };
  }
}

const DONE: Outcome = Object.freeze({ kind: 'done', delayMs: 0 });
/** How long a URI waits when fetches under way fill its budget. */
const BUDGET_WAIT_MS = 250;

/** What the statistics count as a page: a 2xx HTML response (robots.txt, images, errors are URIs, not pages). */
export function isStatsPage(status: number, mime: string): boolean {
  return isPageCapture(status, mime, false);
}

function mimeOf(ex: HttpExchange): string {
  const type = headerValue(ex.responseHeaders, 'content-type') ?? '';
  return type.split(';')[0]?.trim().toLowerCase() ?? '';
}
