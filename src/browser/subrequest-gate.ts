/**
 * One request of a rendered page, through the crawl's own gates: the
 * request becomes an embed of the page (hop E) and goes where any link
 * goes — scope (embeds as transclusions, as plain extraction allows),
 * the seen filter, the frontier. The frontier then owns its politeness
 * (one gate for plain and browser fetches: delays and connections per
 * host counted together) and the URI processor its robots check, budget,
 * fetch and records. The render waits for the URI's capture (or its
 * failure) and is served its archived bytes; a URL this crawl already
 * archived is served at once, not fetched again.
 */
import { childUri, type CrawlUri } from '../core/crawl-uri.js';
import type { LinkScheduler } from '../crawl/link-scheduler.js';
import type { Scope } from '../crawl/scope.js';
import type { Answer, ArchivedResponses } from './archived-responses.js';

/** The extraction context of a URI a rendered page requested: crawl.log marks its capture `browserRequest`. */
export const BROWSER_REQUEST_CONTEXT = 'browser:request';
/** The extraction context of a link read from a rendered page's DOM: crawl.log marks its capture `browserLink`. */
export const BROWSER_LINK_CONTEXT = 'browser:a/@href';

/** crawl.log status of a browser request the crawl does not fetch (a method other than GET/HEAD, a scheme it does not crawl). */
export const BROWSER_UNSUPPORTED_STATUS = -5010;

export interface SubrequestGateDeps {
  scope: Scope;
  links: LinkScheduler;
  archived: ArchivedResponses;
}

export class SubrequestGate {
  readonly #d: SubrequestGateDeps;

  constructor(deps: SubrequestGateDeps) {
    this.#d = deps;
  }

  /**
   * The answer for a GET of `url` by the page `page`: its archived
   * response, a refusal (status), or null when `signal` (the page's
   * deadline) ended the wait first.
   */
  async get(page: CrawlUri, url: string, signal: AbortSignal): Promise<Answer | null> {
    const d = this.#d;
    const known = d.archived.known(url);
    if (known !== undefined) return known;
    const child = childUri(page, url, 'E', BROWSER_REQUEST_CONTEXT);
    const decision = d.scope.decide(child);
    // Scheduled even when refused: the scheduler logs the refusal (once per URL) with its rule.
    await d.links.schedule(page, [{ url, hop: 'E', context: BROWSER_REQUEST_CONTEXT }]);
    if (!decision.accept) {
      // A URL the crawl has by another path is served whatever this page's hops (as plain extraction allows).
      return d.archived.known(url) ?? { status: decision.status };
    }
    return d.archived.wait(url, signal);
  }
}
