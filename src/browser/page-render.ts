/**
 * Renders one fetched page in a tab. Every request the page makes is
 * intercepted at the request stage (playwright's route, DevTools
 * Fetch.requestPaused) and never leaves Chromium: the main document is
 * fulfilled from the bytes the crawler fetched, every other request is
 * answered through the SubrequestGate from what the crawl archived, or
 * failed. The page is done when the network has been quiet for idleMs (at
 * most one request open), or at pageTimeoutMs; behaviors then run, the
 * network quiets again, and the links are read from the live DOM of every
 * frame.
 */
import { setMaxListeners } from 'node:events';
import type { BrowserContext, Page, Route } from 'playwright-core';
import type { BrowserPageOptions } from '../config/profile.js';
import type { CrawlUri } from '../core/crawl-uri.js';
import { decodeContent } from '../fetch/content-decoding.js';
import { headerValue } from '../core/exchange.js';
import { isArchived, type ArchivedResponse } from './archived-responses.js';
import { autoscroll } from './autoscroll.js';
import { BrowserCrashedError } from './browser-errors.js';
import { NetworkIdle } from './network-idle.js';
import { DOM_LINKS } from './page-scripts.js';
import type { SubrequestGate } from './subrequest-gate.js';

export interface PageToRender {
  uri: CrawlUri;
  /** The page's response as fetched and archived (its body still content-encoded). */
  response: ArchivedResponse;
}

export interface RenderOutcome {
  /** Links read from the DOM after behaviors, http(s), without fragments, each once. */
  links: string[];
  /** Requests the page made besides its own document. */
  requests: number;
  /** Of those, the ones failed in the browser (refused, failed, past the cap, unanswered in time). */
  refused: number;
  /** Requests refused past maxRequestsPerPage. */
  overCap: number;
  /** pageTimeoutMs ended the render. */
  timedOut: boolean;
}

export interface RenderDeps {
  gate: SubrequestGate;
  /** A request the crawl cannot make for the browser (a method other than GET/HEAD/POST, a scheme it does not crawl). */
  unsupported(page: CrawlUri, url: string, method: string): void;
}

/** Listeners a render puts on its own signal besides its subrequests' waits (quiet, behaviours, their timeouts), with room to spare. */
const RENDER_OWN_LISTENERS = 8;

/** Headers the browser must not see on a body it is handed decoded. */
const DROPPED_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length', 'connection', 'keep-alive']);

export async function renderPage(context: BrowserContext, target: PageToRender, settings: Readonly<BrowserPageOptions>, deps: RenderDeps, crawlSignal: AbortSignal): Promise<RenderOutcome> {
  const deadline = AbortSignal.timeout(settings.pageTimeoutMs);
  const ended = new AbortController();
  const signal = AbortSignal.any([deadline, crawlSignal, ended.signal]);
  // Every subrequest waiting for its capture listens on it (archived-responses.ts), up to the page's
  // cap at once, beside the waits for quiet and the behaviours: many listeners, none leaked (each is
  // removed when its wait ends), so Node's leak warning at 10 would be a false alarm on any real page.
  setMaxListeners(settings.maxRequestsPerPage + RENDER_OWN_LISTENERS, signal);
  const outcome: RenderOutcome = { links: [], requests: 0, refused: 0, overCap: 0, timedOut: false };
  const idle = new NetworkIdle();
  const page = await context.newPage();
  // The tab crashed or Chromium went away: the waits end now, and the render fails (it is retried on a restarted browser).
  let gone = false;
  const handlers = new Set<Promise<void>>();
  const lost = (): void => {
    gone = true;
    ended.abort();
  };
  page.once('crash', lost);
  page.once('close', lost);
  try {
    let documentServed = false;
    page.on('request', () => idle.opened());
    page.on('requestfinished', () => idle.closed());
    page.on('requestfailed', () => idle.closed());
    const handle = async (route: Route): Promise<void> => {
      const request = route.request();
      if (!documentServed && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        documentServed = true;
        return answer(route, fulfilment(target.response));
      }
      if (signal.aborted) return answer(route, null);
      outcome.requests++;
      if (outcome.requests > settings.maxRequestsPerPage) {
        outcome.overCap++;
        outcome.refused++;
        return answer(route, null);
      }
      const url = request.url();
      const method = request.method();
      if (!/^https?:/i.test(url) || (method !== 'GET' && method !== 'HEAD' && method !== 'POST')) {
        deps.unsupported(target.uri, url, method);
        outcome.refused++;
        return answer(route, null);
      }
      const got =
        method === 'POST'
          ? await deps.gate.post(target.uri, url, request.postDataBuffer() ?? Buffer.alloc(0), request.headers()['content-type'] ?? 'application/octet-stream', signal)
          : await deps.gate.get(target.uri, url, signal);
      if (got === null || !isArchived(got)) {
        outcome.refused++;
        return answer(route, null);
      }
      return answer(route, fulfilment(got, method === 'HEAD'));
    };
    await page.route('**/*', (route) => {
      // Tracked, so that the tab closes only once every intercepted request is answered:
      // closed with handlers pending, Chromium was seen sending their requests itself.
      const handling = handle(route);
      handlers.add(handling);
      void handling.finally(() => handlers.delete(handling));
      return handling;
    });
    await page.goto(target.uri.url, { waitUntil: 'load', timeout: settings.pageTimeoutMs }).catch((err: unknown) => {
      if (!deadline.aborted && !crawlSignal.aborted) throw err;
    });
    await idle.quiet(settings.idleMs, signal);
    if (settings.behaviors.includes('autoscroll') && !signal.aborted) {
      const behaviorEnd = AbortSignal.any([signal, AbortSignal.timeout(settings.behaviorTimeoutMs)]);
      await autoscroll(page, idle, settings.idleMs, behaviorEnd);
      await idle.quiet(settings.idleMs, signal);
    }
    outcome.timedOut = deadline.aborted;
    outcome.links = await domLinks(page);
    if (gone) throw new BrowserCrashedError(`the tab rendering ${target.uri.url} went away`);
    return outcome;
  } catch (err) {
    if (gone && !(err instanceof BrowserCrashedError)) throw new BrowserCrashedError(`the tab rendering ${target.uri.url} went away`, { cause: err });
    throw err;
  } finally {
    page.off('close', lost);
    ended.abort();
    // Requests arriving meanwhile are refused at once (the signal is aborted): a few rounds empty the set.
    for (let round = 0; round < 10 && handlers.size > 0; round++) await Promise.allSettled([...handlers]);
    await page.close().catch(() => undefined);
  }
}

interface Fulfilment {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the browser gets: the archived status and headers, the body decoded (Content-Encoding and length dropped). */
function fulfilment(r: ArchivedResponse, headOnly = false): Fulfilment {
  const headers: Record<string, string> = {};
  for (const [name, value] of r.headers) {
    const lower = name.toLowerCase();
    if (DROPPED_HEADERS.has(lower)) continue;
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}${lower === 'set-cookie' ? '\n' : ', '}${value}`;
  }
  let body: Buffer;
  try {
    body = headOnly ? Buffer.alloc(0) : Buffer.from(decodeContent(r.body, headerValue(r.headers, 'content-encoding') ?? null));
  } catch {
    // An encoding that does not decode: the browser gets the bytes, as it would have from the server.
    body = r.body;
  }
  return { status: r.status, headers, body };
}

/** Fulfils or fails an intercepted request; a page closed meanwhile makes either throw, which no longer matters. */
async function answer(route: Route, f: Fulfilment | null): Promise<void> {
  try {
    if (f === null) await route.abort('blockedbyclient');
    else await route.fulfill({ status: f.status, headers: f.headers, body: f.body });
  } catch {
    // The page (or Chromium) is gone.
  }
}

/** Links of every frame's live DOM, http(s), fragments removed, each once. */
async function domLinks(page: Page): Promise<string[]> {
  const found = new Set<string>();
  for (const frame of page.frames()) {
    let hrefs: unknown;
    try {
      hrefs = await frame.evaluate(DOM_LINKS);
    } catch {
      continue; // A frame detached while read.
    }
    if (!Array.isArray(hrefs)) continue;
    for (const href of hrefs) {
      if (typeof href !== 'string' || !/^https?:/i.test(href)) continue;
      const hash = href.indexOf('#');
      found.add(hash < 0 ? href : href.slice(0, hash));
    }
  }
  return [...found];
}
