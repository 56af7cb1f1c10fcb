/**
 * JSON schema of the crawl profile. Unknown keys are rejected everywhere;
 * defaults (Heritrix's) are filled in by the validator. The README's table of
 * fields and defaults is written from this file: keep the two in step.
 */

/** A name that becomes part of file and folder names (the job's, the WARCs' prefix). */
export const FILE_NAME_PATTERN = '^[A-Za-z0-9._-]+$';
/** The operator's address (`from`). */
export const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
/** Where the crawl's state lives (`store`): state-backends.ts's rows. */
export const STORE_PATTERN = '^(level|memory|redis://[^/\\s]+(/\\d{1,2})?|redis\\+cluster://[^/\\s]+)$';

const nonNegInt = { type: 'integer', minimum: 0 } as const;
const nonNegNum = { type: 'number', minimum: 0 } as const;
const stringList = { type: 'array', items: { type: 'string' }, default: [] } as const;

const limitsProperties = {
  maxPages: { ...nonNegInt, default: 0 },
  maxBytes: { ...nonNegInt, default: 0 },
  maxDurationSec: { ...nonNegNum, default: 0 },
  maxBodyBytes: { ...nonNegInt, default: 104857600 },
  fetchTimeoutMs: { type: 'integer', minimum: 1, default: 30000 },
  maxFetchDurationMs: { type: 'integer', minimum: 1, default: 1200000 },
  maxRetries: { ...nonNegInt, default: 30 },
  retryDelayMs: { ...nonNegInt, default: 900000 },
  maxRedirects: { ...nonNegInt, default: 20 },
  maxOutlinks: { type: 'integer', minimum: 1, default: 6000 },
} as const;

const politenessProperties = {
  delayFactor: { ...nonNegNum, default: 5 },
  minDelayMs: { ...nonNegInt, default: 3000 },
  maxDelayMs: { ...nonNegInt, default: 30000 },
  respectCrawlDelayUpToSeconds: { ...nonNegNum, default: 300 },
  maxConnectionsPerHost: { type: 'integer', minimum: 1, default: 1 },
  maxPerHostBandwidthKBps: { ...nonNegNum, default: 0 },
} as const;

const robotsProperties = {
  policy: {
    enum: ['obey', 'classic', 'ignore', 'robotsTxtOnly', 'mostFavored', 'mostFavoredSet', 'custom'],
    default: 'obey',
  },
  candidateUserAgents: stringList,
  masquerade: { type: 'boolean', default: false },
  custom: { type: 'string', default: '' },
  // A robots.txt answering 5xx/429 or not at all (src/politeness/host-health.ts).
  unavailable: {
    type: 'object',
    additionalProperties: false,
    default: {},
    properties: {
      policy: { enum: ['disallow', 'allow'], default: 'disallow' },
      retries: { ...nonNegInt, default: 2 },
      retryDelayMs: { ...nonNegInt, default: 60000 },
    },
  },
} as const;

// Browser capture (src/browser/): pages rendered in Chromium, every request through the crawl's gates.
const browserPageProperties = {
  enabled: { type: 'boolean', default: false },
  pageTimeoutMs: { type: 'integer', minimum: 100, default: 30000 },
  idleMs: { type: 'integer', minimum: 10, default: 500 },
  behaviors: { type: 'array', items: { enum: ['autoscroll'] }, uniqueItems: true, default: ['autoscroll'] },
  behaviorTimeoutMs: { ...nonNegInt, default: 10000 },
  maxRequestsPerPage: { type: 'integer', minimum: 1, default: 500 },
} as const;

const browserProperties = {
  ...browserPageProperties,
  // Found on the PATH when a bare name; the crawl's one Chromium, so not per override.
  executable: { type: 'string', minLength: 1, default: 'chromium' },
  tabs: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
} as const;

/** The limits an override may set (src/overrides/): per fetch, per host's retries, and budgets. */
export const OVERRIDE_LIMITS = ['maxBodyBytes', 'fetchTimeoutMs', 'maxFetchDurationMs', 'maxRetries', 'retryDelayMs', 'maxPages', 'maxBytes'] as const;

/** A schema with every `default` taken out: an override sets only what it names, the rest is inherited. */
function withoutDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDefaults);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) if (k !== 'default') out[k] = withoutDefaults(v);
  return out;
}

/**
 * One entry of `overrides` (Heritrix's sheets): a match and the fields it
 * changes, named and checked as at the top of the profile. Which fields a
 * match may carry (politeness and robots only at host level; no
 * maxDurationSec) is checked in check-overrides.ts, with clearer words than
 * a schema gives.
 */
const overrideSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['match'],
  properties: {
    match: { type: 'string', minLength: 1 },
    politeness: { type: 'object', additionalProperties: false, properties: withoutDefaults(politenessProperties) },
    // Every key of the top-level limits is let through here so that check-overrides.ts names the forbidden ones.
    limits: { type: 'object', additionalProperties: false, properties: withoutDefaults(limitsProperties) },
    robots: { type: 'object', additionalProperties: false, properties: withoutDefaults(robotsProperties) },
    scope: { type: 'object', additionalProperties: false, properties: { exclude: { type: 'array', items: { type: 'string' } } } },
    browser: { type: 'object', additionalProperties: false, properties: withoutDefaults(browserPageProperties) },
  },
} as const;

export const profileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'seeds', 'userAgent'],
  properties: {
    name: { type: 'string', minLength: 1, pattern: FILE_NAME_PATTERN },
    seeds: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    userAgent: { type: 'string', minLength: 1 },
    from: { type: 'string', pattern: EMAIL_PATTERN },
    scope: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        hosts: { type: 'array', items: { type: 'string', minLength: 1 } },
        include: stringList,
        exclude: stringList,
        maxHops: { ...nonNegInt, default: 20 },
        transclusionHops: { ...nonNegInt, default: 1 },
        maxPathDepth: { ...nonNegInt, default: 20 },
        maxPathRepetitions: { ...nonNegInt, default: 2 },
        maxUrlLength: { type: 'integer', minimum: 16, default: 2083 },
        // Where sitemaps come from (src/sitemap/): robots.txt Sitemap lines, also /sitemap.xml of each seed host, or none.
        sitemaps: { enum: ['robots', 'seeds', 'off'], default: 'robots' },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: limitsProperties,
    },
    politeness: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: politenessProperties,
    },
    robots: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: robotsProperties,
    },
    frontier: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        queueAssignment: { enum: ['hostname', 'surtAuthority', 'elfHash'], default: 'hostname' },
        elfHashBuckets: { type: 'integer', minimum: 1, default: 100 },
        elfHashOf: { enum: ['url', 'host'], default: 'url' },
        order: { enum: ['breadth-first', 'depth-first', 'best-first'], default: 'breadth-first' },
        precedence: { enum: ['fifo', 'priority'], default: 'fifo' },
        balanceReplenishAmount: { type: 'integer', minimum: 1, default: 3000 },
        queueTotalBudget: { type: 'integer', minimum: -1, default: -1 },
        /** Deprecated: uniq.memoryKeys (load-profile.ts moves it there). No default, so its absence shows. */
        seenMemoryKeys: { type: 'integer', minimum: 0, maximum: 100_000_000 },
      },
    },
    uniq: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        memoryKeys: { type: 'integer', minimum: 0, maximum: 100_000_000, default: 12_000_000 },
      },
    },
    dedup: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        against: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
      },
    },
    // Per-host and per-prefix settings (src/overrides/), longest match first, field by field.
    overrides: { type: 'array', items: overrideSchema, default: [] },
    // Topic-focused crawling (src/focus/); check-focus.ts checks what a schema cannot say.
    focus: {
      type: 'object',
      additionalProperties: false,
      properties: {
        keywords: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        training: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        weighting: { enum: ['seed', 'tfidf'], default: 'tfidf' },
        threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.2 },
        restrictHops: { ...nonNegInt, default: 2 },
        feedback: { type: 'boolean', default: false },
      },
    },
    browser: { type: 'object', additionalProperties: false, default: {}, properties: browserProperties },
    workers: { type: 'integer', minimum: 1, maximum: 1000, default: 25 },
    // Where the crawl keeps its state (src/backends/state-backends.ts): one LevelDB per job, or Redis shared by several processes.
    store: { type: 'string', pattern: STORE_PATTERN, default: 'level' },
    output: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        dir: { type: 'string', minLength: 1 },
        prefix: { type: 'string', minLength: 1, pattern: FILE_NAME_PATTERN, default: 'WEB' },
        warcVersion: { enum: ['1.0', '1.1'], default: '1.1' },
        rotateBytes: { type: 'integer', minimum: 1024, default: 1000000000 },
        wacz: { type: 'boolean', default: true },
        pageText: { type: 'boolean', default: true },
      },
    },
  },
} as const;
