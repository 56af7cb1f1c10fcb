/**
 * Browser capture, as the crawl sees it (the URI processor's hooks):
 * which claims may be rendered and when (`admit`), the render of a fetched
 * 2xx HTML page with its retry on a restarted Chromium (`render`), and
 * every URI's end reported so renders waiting for it are served
 * (`archived`, `settled`). The tabs, the gate and the page's own work are
 * in tab-pool.ts, subrequest-gate.ts and page-render.ts.
 *
 * Admission: a render waits for its subrequests, which other workers
 * fetch. So that some worker is always free to fetch them, at most
 * min(tabs, workers − 1) claims that may render are under way at once;
 * another such claim is deferred (its queue snoozes briefly, its URI stays
 * queued) before its fetch, never held in a worker.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import type { Profile } from '../config/profile.js';
import type { LinkScheduler, DiscoveredLink } from '../crawl/link-scheduler.js';
import type { Scope } from '../crawl/scope.js';
import type { Overrides } from '../overrides/overrides.js';
import type { Frontier } from '../frontier/frontier.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import type { HttpExchange } from '../core/exchange.js';
import type { BrowserStatus } from '../crawl/crawl-status.js';
import { ProfileError } from '../core/errors.js';
import { ArchivedResponses, KEPT_BODY_MAX_BYTES, requestKey, type ArchivedResponse } from './archived-responses.js';
import { BrowserCrashedError, RenderFailure } from './browser-errors.js';
import { ArchivedRecords, type RecordPlace } from './archived-records.js';
import { BrowserSettings } from './browser-settings.js';
import { launchChromium, resolveExecutable } from './chromium.js';
import { renderPage, type RenderOutcome } from './page-render.js';
import { BROWSER_LINK_CONTEXT, BROWSER_REQUEST_CONTEXT, SubrequestGate } from './subrequest-gate.js';
import { TabPool } from './tab-pool.js';
import { postIndexFields } from './post-key.js';
import { isHtmlMime } from '../core/html-mime.js';

/** How long a claim that may render waits when every admission is taken. */
export const ADMISSION_WAIT_MS = 200;

export interface BrowserCaptureDeps {
  profile: Profile;
  overrides: Overrides;
  scope: Scope;
  links: LinkScheduler;
  seen: UriUniqFilter;
  frontier: Frontier;
  /** The job's WARC directory, and its capture journal when the job is resumed (earlier runs' captures are served from there). */
  warcsDir: string;
  resumedJournal: string | null;
  /** The crawl runs on a shared store (several processes): refused. */
  shared: boolean;
  /** A crawl.log line for a request the crawl cannot make for the browser, or refuses. */
  unsupported(uri: CrawlUri, status: number, annotation: string): void;
  /** A line for the operator (Chromium restarted). */
  notice?(line: string): void;
}

/** Counts for the summary and reports. */
export interface BrowserCounts {
  pagesRendered: number;
  renderFailures: number;
  subrequests: number;
  subrequestsRefused: number;
  browserRestarts: number;
}

/** A capture as the URI processor wrote it. */
export interface CapturedHow {
  mime: string;
  /** Where its record lies. */
  place: RecordPlace;
  /** The page's hyperlinks are not to be followed (meta robots or X-Robots-Tag nofollow, obeyed). */
  nofollow: boolean;
  signal: AbortSignal;
}

/** A claim admitted to render: release it when the render is over or not to be. */
export interface Admission {
  release(): void;
}

export class BrowserCapture {
  readonly settings: BrowserSettings;
  readonly archived = new ArchivedResponses();
  readonly #d: BrowserCaptureDeps;
  readonly #tabs: TabPool;
  readonly #gate: SubrequestGate;
  readonly #records: ArchivedRecords;
  readonly #maxAdmitted: number;
  /** URLs of the claims admitted to render, until their render is over or not to be. */
  readonly #admitted = new Set<string>();
  /** Aborted once the crawl is stopping: renders end now instead of waiting for subrequests nobody will fetch. */
  readonly #stopping = new AbortController();
  readonly counts: BrowserCounts = { pagesRendered: 0, renderFailures: 0, subrequests: 0, subrequestsRefused: 0, browserRestarts: 0 };

  private constructor(deps: BrowserCaptureDeps, settings: BrowserSettings, executable: string) {
    this.#d = deps;
    this.settings = settings;
    const tabs = settings.top.tabs;
    this.#maxAdmitted = Math.max(1, Math.min(tabs, deps.profile.workers - 1));
    this.#tabs = new TabPool({
      tabs,
      launch: () => launchChromium(executable, settings.top.executable),
      onRestart: (n) => {
        this.counts.browserRestarts = n;
        deps.notice?.(`archiver: Chromium went away; started again (${n})`);
      },
    });
    this.#records = new ArchivedRecords(deps.warcsDir);
    this.#gate = new SubrequestGate({
      scope: deps.scope,
      links: deps.links,
      seen: deps.seen,
      frontier: deps.frontier,
      archived: this.archived,
      records: this.#records,
      refused: (uri, status, reason) => deps.unsupported(uri, status, reason),
    });
  }

  /**
   * Browser capture for this crawl, Chromium started; null when no part of
   * the profile renders. BrowserUnavailableError when it cannot run.
   */
  static async open(deps: BrowserCaptureDeps): Promise<BrowserCapture | null> {
    const settings = new BrowserSettings(deps.profile, deps.overrides);
    if (!settings.anyEnabled) return null;
    // A render waits for captures made in this process; another node's would never reach it.
    if (deps.shared) throw new ProfileError('/browser/enabled', 'browser capture runs in a crawl of one process, not on a shared store (redis)');
    const executable = await resolveExecutable(settings.top.executable);
    const capture = new BrowserCapture(deps, settings, executable);
    if (deps.resumedJournal !== null) await capture.#records.loadJournal(deps.resumedJournal);
    await capture.#tabs.start();
    return capture;
  }

  /** How long a claim that may render waits when every admission is taken. */
  get admissionWaitMs(): number {
    return ADMISSION_WAIT_MS;
  }

  /** The capture journal's fields of a POST a rendered page made: how its index line is keyed (post-key.ts). */
  journalFields(url: string, post: { body: string; type: string }): { method: 'POST'; requestBody: string } {
    return postIndexFields(url, post);
  }

  /** Tabs and what was rendered so far, for the crawl's status (the console shows them). */
  status(): BrowserStatus {
    return { tabs: this.settings.top.tabs, busyTabs: this.#tabs.busy, pagesRendered: this.counts.pagesRendered, subrequests: this.counts.subrequests };
  }

  /**
   * Whether `uri` may be rendered once fetched, and may start now: null when
   * it is no render candidate (an embed, a prerequisite, a subrequest, or
   * browser capture off where it lies), 'wait' when admissions are full.
   */
  admit(uri: CrawlUri): Admission | 'wait' | null {
    const hop = uri.hopPath.at(-1);
    if (hop === 'E' || hop === 'P' || uri.context === BROWSER_REQUEST_CONTEXT || uri.post !== undefined) return null;
    if (!this.settings.forUrl(uri.url).enabled) return null;
    if (this.#admitted.size >= this.#maxAdmitted || this.#admitted.has(uri.url)) return 'wait';
    this.#admitted.add(uri.url);
    return { release: () => void this.#admitted.delete(uri.url) };
  }

  /**
   * A URI's capture, as the URI processor wrote it: renders waiting for it
   * are served, and it is kept for later ones; a 2xx HTML page admitted to
   * render is rendered. Returns annotations for its crawl.log line.
   */
  async captured(uri: CrawlUri, ex: HttpExchange, how: CapturedHow): Promise<string[]> {
    const { mime, place, signal } = how;
    const notes: string[] = [];
    const mark = browserAnnotation(uri);
    if (mark !== null) notes.push(mark);
    const render = this.#admitted.has(uri.url) && ex.status >= 200 && ex.status < 300 && isHtmlMime(mime);
    const key = requestKey(uri.url, uri.post);
    this.#records.add(key, place);
    if (!render && ex.body.size > KEPT_BODY_MAX_BYTES && !this.archived.wanted(key)) return notes;
    const response: ArchivedResponse = { url: ex.url, status: ex.status, headers: ex.responseHeaders, body: await ex.body.head(ex.body.size) };
    this.archived.archived(key, response);
    if (render) notes.push(...(await this.render(uri, response, signal, !how.nofollow)));
    return notes;
  }

  /** A URI ended without a capture (refused by robots, a budget, a transport failure…): renders waiting for it fail it. */
  settledWithout(uri: CrawlUri): void {
    this.archived.failed(requestKey(uri.url, uri.post), -1);
  }

  /**
   * Renders a fetched page; its DOM links go to the frontier. Returns the
   * annotations of the page's crawl.log line. A crash of Chromium is
   * retried once on a restarted one; a render that fails keeps the plain
   * capture and says why.
   */
  async render(uri: CrawlUri, response: ArchivedResponse, crawlSignal: AbortSignal, followLinks = true): Promise<string[]> {
    const settings = this.settings.forUrl(uri.url);
    const signal = AbortSignal.any([crawlSignal, this.#stopping.signal]);
    const deps = {
      gate: this.#gate,
      unsupported: (page: CrawlUri, url: string, method: string) => {
        this.#d.unsupported({ ...page, url, hopPath: `${page.hopPath}E`, via: page.url, context: BROWSER_REQUEST_CONTEXT, seed: false }, -5010, `browserUnsupported:${method}`);
      },
    };
    let outcome: RenderOutcome | null = null;
    let failure: string | null = null;
    for (let attempt = 0; attempt < 2 && outcome === null && !signal.aborted; attempt++) {
      try {
        outcome = await this.#tabs.withTab((context) => renderPage(context, { uri, response }, settings, deps, signal));
        failure = null;
      } catch (err) {
        failure = err instanceof BrowserCrashedError ? RenderFailure.crashed : RenderFailure.failed;
        if (!(err instanceof BrowserCrashedError)) break;
      }
    }
    if (outcome === null) {
      this.counts.renderFailures++;
      return [`browserFailed:${failure ?? 'aborted'}`];
    }
    this.counts.pagesRendered++;
    this.counts.subrequests += outcome.requests;
    this.counts.subrequestsRefused += outcome.refused;
    // Under a meta robots / X-Robots-Tag nofollow the policy obeys, the DOM's hyperlinks are not followed either.
    const links: DiscoveredLink[] = !followLinks ? [] : outcome.links.slice(0, this.#d.profile.limits.maxOutlinks).map((url) => ({ url, hop: 'L', context: BROWSER_LINK_CONTEXT }));
    const fresh = links.length > 0 ? await this.#d.links.schedule(uri, links) : 0;
    const notes = [`rendered:${outcome.requests}req`, `browserLinks:${fresh}`];
    if (outcome.overCap > 0) notes.push(`browserRequestCap:${outcome.overCap}`);
    if (outcome.timedOut) notes.push('browserTimeout');
    if (this.#stopping.signal.aborted) notes.push('browserStopped');
    return notes;
  }

  /**
   * The crawl is stopping (no more claims): renders under way end at once,
   * with what they have, since no worker will fetch their subrequests.
   */
  stopRendering(): void {
    this.#stopping.abort();
  }

  async close(): Promise<void> {
    await this.#tabs.close();
  }
}

/** The crawl.log annotation of a capture the browser led to, by its URI's context; null for any other. */
export function browserAnnotation(uri: CrawlUri): string | null {
  if (uri.context === BROWSER_REQUEST_CONTEXT) return 'browserRequest';
  if (uri.context === BROWSER_LINK_CONTEXT) return 'browserLink';
  return null;
}
