/**
 * The crawl profile: the contract between operators, the CLI and every part
 * of the crawler. Loaded and validated once (see load-profile.ts), then
 * deep-frozen; everything inside trusts it. Defaults are Heritrix's.
 */

export type RobotsPolicyName = 'obey' | 'classic' | 'ignore' | 'robotsTxtOnly' | 'mostFavored' | 'mostFavoredSet' | 'custom';
export type QueueAssignmentName = 'hostname' | 'surtAuthority' | 'elfHash';
/** `best-first`: highest `CrawlUri.priority` first (what `focus` scores; src/focus/). */
export type QueueOrderName = 'breadth-first' | 'depth-first' | 'best-first';
/** Which ready queue hands out next: `fifo` (first ready, first served), `priority` (highest head `CrawlUri.priority`). */
export type QueuePrecedenceName = 'fifo' | 'priority';

export interface ScopeOptions {
  /** Hosts in scope; entries may carry a port ("127.0.0.1:8080"). Default: the seeds' hosts. */
  hosts: readonly string[];
  /** True when `hosts` was not given and came from the seeds: seeds added later bring their hosts too. */
  hostsFromSeeds?: boolean;
  /** Regexes on the URL; a URL must match one of them when any are given. */
  include: readonly string[];
  /** Regexes on the URL; a match puts the URL out of scope. */
  exclude: readonly string[];
  /** Most link hops (L) from a seed. Default 20. */
  maxHops: number;
  /** Embeds of in-scope pages are fetched off-scope up to this many trailing non-L hops. Default 1. */
  transclusionHops: number;
  /** Crawler-trap rule: most path segments (Heritrix TooManyPathSegmentsDecideRule). Default 20. */
  maxPathDepth: number;
  /** Crawler-trap rule: most consecutive repetitions of a path segment run, /a/b/a/b/… (Heritrix PathologicalPathDecideRule). Default 2. */
  maxPathRepetitions: number;
  /** Crawler-trap rule: longest URL accepted. Default 2083. */
  maxUrlLength: number;
  /** Where sitemaps come from: robots.txt `Sitemap:` lines (default), also `/sitemap.xml` of each seed host, or none. */
  sitemaps: SitemapsMode;
}

/** `robots`: robots.txt Sitemap lines (and seeds that are sitemaps); `seeds`: also /sitemap.xml of each seed host; `off`: none. */
export type SitemapsMode = 'robots' | 'seeds' | 'off';

export interface LimitOptions {
  /** Stop after this many successful fetches (0 = unlimited). */
  maxPages: number;
  /** Stop after this many body bytes were downloaded (0 = unlimited). */
  maxBytes: number;
  /** Stop after this many seconds (0 = unlimited). */
  maxDurationSec: number;
  /** Truncate bodies beyond this size, marking WARC-Truncated: length. Default 100 MiB. */
  maxBodyBytes: number;
  /** Connect/headers/body-idle timeout for one fetch. Default 30000. */
  fetchTimeoutMs: number;
  /** Whole-fetch deadline: a body still trickling in then is archived WARC-Truncated: time (Heritrix timeoutSeconds 1200). Default 1200000. */
  maxFetchDurationMs: number;
  /** Transport-failure attempts before a URI is given up (Heritrix maxRetries). Default 30. */
  maxRetries: number;
  /** Wait before retrying after a transport failure (Heritrix retryDelaySeconds 900). Default 900000. */
  retryDelayMs: number;
  /** Redirects followed in a row before the chain is abandoned. Default 20. */
  maxRedirects: number;
  /** Links taken from one page (Heritrix's default 6000); the rest are counted, not followed. */
  maxOutlinks: number;
}

export interface PolitenessOptions {
  delayFactor: number;
  minDelayMs: number;
  maxDelayMs: number;
  respectCrawlDelayUpToSeconds: number;
  maxConnectionsPerHost: number;
  /** Per-host bandwidth cap in KB/s (0 = off). */
  maxPerHostBandwidthKBps: number;
}

export interface RobotsOptions {
  policy: RobotsPolicyName;
  /** Extra user agents for mostFavored / mostFavoredSet. */
  candidateUserAgents: readonly string[];
  /** Under mostFavored, send the favoured agent's name instead of ours. */
  masquerade: boolean;
  /** robots.txt text used instead of the sites' own under the custom policy. */
  custom: string;
  /** A robots.txt that answers 5xx/429 or cannot be fetched. */
  unavailable: RobotsUnavailableOptions;
}

export interface RobotsUnavailableOptions {
  /** Once the re-fetches are spent: keep the host shut (RFC 9309) or crawl it as allowed (Heritrix). */
  policy: 'disallow' | 'allow';
  /** Re-fetches of robots.txt; the host waits once for each. */
  retries: number;
  /** Wait before the first re-fetch; doubles each time. */
  retryDelayMs: number;
}

export interface FrontierOptions {
  queueAssignment: QueueAssignmentName;
  elfHashBuckets: number;
  elfHashOf: 'url' | 'host';
  order: QueueOrderName;
  /** Which ready queue goes next (frontier/precedence.ts). Default `fifo`. */
  precedence: QueuePrecedenceName;
  /** Session budget in cost units before a queue yields to inactive ones. Default 3000. */
  balanceReplenishAmount: number;
  /** Total budget after which a queue is retired (-1 = unlimited). */
  queueTotalBudget: number;
}

export interface UniqOptions {
  /**
   * Seen-filter keys kept in memory, per filter (about 11 bytes each). Up to
   * this many discovered URLs, the already-seen check never reads LevelDB;
   * beyond it, unknown keys are confirmed there. Default 12,000,000 (128 MiB).
   * Was `frontier.seenMemoryKeys`, still accepted with a warning.
   */
  memoryKeys: number;
}

/** The limits an override may set: per fetch, a host's retries, and budgets for what it covers. */
export type OverrideLimits = Pick<LimitOptions, 'maxBodyBytes' | 'fetchTimeoutMs' | 'maxFetchDurationMs' | 'maxRetries' | 'retryDelayMs' | 'maxPages' | 'maxBytes'>;

/**
 * One entry of `overrides` (Heritrix's sheets): the settings of what
 * `match` covers — a host (`example.org`, `127.0.0.1:8080`; subdomains
 * included) or a SURT prefix (`http://(org,example,)/blog`). Only the fields
 * named are changed; the longest matching prefix wins, field by field.
 * `politeness` and `robots` act per host, so only host-level matches carry them.
 */
export interface ProfileOverride {
  match: string;
  politeness?: Partial<PolitenessOptions>;
  limits?: Partial<OverrideLimits>;
  robots?: Partial<Omit<RobotsOptions, 'unavailable'>> & { unavailable?: Partial<RobotsUnavailableOptions> };
  scope?: { exclude?: readonly string[] };
  browser?: Partial<BrowserPageOptions>;
}

/** A page behavior run in the browser before its links are read. */
export type BrowserBehaviorName = 'autoscroll';

/** Browser capture settings that may differ per host or prefix (src/browser/). */
export interface BrowserPageOptions {
  /** Render every 2xx HTML page in scope after its fetch. Default false: no browser starts. */
  enabled: boolean;
  /** A page's render ends here at the latest. Default 30000. */
  pageTimeoutMs: number;
  /** Network quiet (at most one request open) this long ends a render. Default 500. */
  idleMs: number;
  /** Default ["autoscroll"]. */
  behaviors: readonly BrowserBehaviorName[];
  /** Behaviors stop here. Default 10000. */
  behaviorTimeoutMs: number;
  /** Requests of one page past this are refused (and noted). Default 500. */
  maxRequestsPerPage: number;
}

/** The profile's `browser` block. */
export interface BrowserOptions extends BrowserPageOptions {
  /** Chromium's path, or a name looked up on the PATH. Default "chromium". */
  executable: string;
  /** Pages rendered at once. Default 2. */
  tabs: number;
}

/** How the topic's terms are weighed: `seed` = the seed document's formula, `tfidf` = smoothed tf-idf. */
export type FocusWeightingName = 'seed' | 'tfidf';

/**
 * Topic-focused crawling (src/focus/): the topic, learnt from keywords
 * and/or training pages, scores each page (cosine similarity) and each link,
 * and the frontier serves the most promising URIs first (`frontier.order`
 * best-first, `frontier.precedence` priority, both implied).
 */
export interface FocusOptions {
  /** Words of the topic. */
  keywords: readonly string[];
  /** http(s) URLs fetched first (as seeds, archived), or job directories / WARC files read (absolute paths once loaded). */
  training: readonly string[];
  /** Default `tfidf`. */
  weighting: FocusWeightingName;
  /** A page whose relevance is at or above it is relevant. Default 0.2. */
  threshold: number;
  /** Links are followed at most this many hops past the last relevant page (0 = only from relevant pages). Default 2. */
  restrictHops: number;
  /** Relevance feedback: the topic widens with terms of the pages judged relevant (src/focus/relevance-feedback.ts). Default false. */
  feedback: boolean;
}

export interface OutputOptions {
  dir: string;
  prefix: string;
  warcVersion: '1.0' | '1.1';
  rotateBytes: number;
  /**
   * Package the job as `<name>.wacz` at the end of each run (default true).
   * False: the end writes the CDXJ index only; `archiver wacz` packages
   * later. A package holds a copy of every WARC.
   */
  wacz: boolean;
  /**
   * Keep each page's visible text (default true): in the capture journal,
   * so in the WACZ's page list and the search index. False: pages are
   * found by title and URL only, and the page thread does not gather the
   * text (a focused crawl still reads it to score pages, and drops it).
   */
  pageText: boolean;
}

export interface DedupOptions {
  /** Earlier job directories whose captures count as already archived (revisits point at them). */
  against: readonly string[];
}

export interface Profile {
  name: string;
  seeds: readonly string[];
  userAgent: string;
  from?: string;
  scope: ScopeOptions;
  limits: LimitOptions;
  politeness: PolitenessOptions;
  robots: RobotsOptions;
  frontier: FrontierOptions;
  uniq: UniqOptions;
  dedup: DedupOptions;
  /** Per-host and per-prefix settings, in the order given (src/overrides/). Default none. */
  overrides: readonly ProfileOverride[];
  /** Topic-focused crawling; absent: none (nothing changes). */
  focus?: FocusOptions;
  /** Browser capture (src/browser/); filled in by the loader, `enabled` false by default; absent (a profile built in code) is off. */
  browser?: BrowserOptions;
  workers: number;
  /** State backend name (`level`). */
  store: string;
  output: OutputOptions;
}
