/**
 * One request of a rendered page, through the crawl's own gates: the
 * request becomes an embed of the page (hop E) and goes where any link
 * goes — scope (embeds as transclusions, as plain extraction allows),
 * the seen filter, the frontier. The frontier then owns its politeness
 * (one gate for plain and browser fetches: delays and connections per
 * host counted together) and the URI processor its robots check, budget,
 * fetch and records. The render waits for the URI's capture (or its
 * failure) and is served its archived bytes; a request this crawl already
 * archived is served at once, not fetched again.
 *
 * A POST goes the same way as a URI carrying its body (CrawlUri.post),
 * seen-checked by URL, method and body (requestKey).
 */
import { childUri, type CrawlUri } from '../core/crawl-uri.js';
import type { Frontier } from '../frontier/frontier.js';
import type { LinkScheduler } from '../crawl/link-scheduler.js';
import type { Scope } from '../crawl/scope.js';
import type { UriUniqFilter } from '../uniq/uniq-filter.js';
import { requestKey, type Answer, type ArchivedResponses } from './archived-responses.js';
import type { ArchivedRecords } from './archived-records.js';

/** The extraction context of a URI a rendered page requested: crawl.log marks its capture `browserRequest`. */
export const BROWSER_REQUEST_CONTEXT = 'browser:request';
/** The extraction context of a link read from a rendered page's DOM: crawl.log marks its capture `browserLink`. */
export const BROWSER_LINK_CONTEXT = 'browser:a/@href';

export interface SubrequestGateDeps {
  scope: Scope;
  links: LinkScheduler;
  /** For POSTs, which the link scheduler does not know: their seen check and queueing. */
  seen: UriUniqFilter;
  frontier: Frontier;
  archived: ArchivedResponses;
  /** Where the job's captures lie in its WARCs: read back when no longer in memory. */
  records: ArchivedRecords;
  /** A refused POST's crawl.log line (GET refusals are the link scheduler's to log). */
  refused(uri: CrawlUri, status: number, reason: string): void;
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
    const key = requestKey(url);
    const known = await this.#known(key);
    if (known !== undefined) return known;
    const decision = d.scope.decide(childUri(page, url, 'E', BROWSER_REQUEST_CONTEXT));
    // Scheduled even when refused: the scheduler logs the refusal (once per URL) with its rule.
    await d.links.schedule(page, [{ url, hop: 'E', context: BROWSER_REQUEST_CONTEXT }]);
    if (!decision.accept) {
      // A URL the crawl has by another path is served whatever this page's hops (as plain extraction allows).
      return d.archived.known(key) ?? { status: decision.status };
    }
    return d.archived.wait(key, signal);
  }

  /** The answer for a POST of `body` (of Content-Type `type`) to `url` by the page `page`. */
  async post(page: CrawlUri, url: string, body: Buffer, type: string, signal: AbortSignal): Promise<Answer | null> {
    const d = this.#d;
    const child: CrawlUri = { ...childUri(page, url, 'E', BROWSER_REQUEST_CONTEXT), post: { body: body.toString('base64'), type } };
    const key = requestKey(url, child.post);
    const known = await this.#known(key);
    if (known !== undefined) return known;
    const decision = d.scope.decide(child);
    if (!decision.accept) {
      d.refused(child, decision.status, decision.reason);
      return { status: decision.status };
    }
    await d.seen.addMany([key], async (fresh) => {
      if (fresh[0]) await d.frontier.schedule([child]);
    });
    return d.archived.wait(key, signal);
  }

  /** What the crawl has of `key`: in memory, or read back from the WARC it was written to. */
  async #known(key: string): Promise<Answer | undefined> {
    const d = this.#d;
    const inMemory = d.archived.known(key);
    if (inMemory !== undefined || !d.records.has(key)) return inMemory;
    const read = await d.records.read(key);
    if (read !== undefined) d.archived.archived(key, read);
    return read;
  }
}
