/**
 * The unit of work that travels through the frontier: a URL exactly as it
 * will be fetched, plus how it was reached. Kept small and JSON-serialisable
 * because queued URIs live in LevelDB, not in the heap.
 */

/**
 * Heritrix hop letters: L link, E embed, R redirect, P prerequisite, X
 * speculative, M manifest (listed in a sitemap, or a sitemap named by
 * robots.txt or an index). M is scheduled and counted like L, and is never
 * a transclusion hop.
 */
export type Hop = 'L' | 'E' | 'R' | 'P' | 'X' | 'M';

/**
 * Scheduling directive, lower runs first inside a queue (Heritrix's
 * SchedulingConstants): prerequisites before embeds/redirects before links.
 */
export const Directive = {
  prerequisite: 0,
  high: 1,
  normal: 2,
} as const;
export type Directive = (typeof Directive)[keyof typeof Directive];

export interface CrawlUri {
  /** The URL to request, exactly as discovered (resolved, fragment removed). */
  url: string;
  /** Hop letters from the seed, e.g. "LLE"; "" for a seed. */
  hopPath: string;
  /** The URL whose capture led here; null for seeds. */
  via: string | null;
  /** Extraction context, e.g. "a/@href", "img/@src"; "" when unknown. */
  context: string;
  seed: boolean;
  directive: Directive;
  /** Transport-failure attempts so far. */
  retries: number;
  /** Redirect hops followed in a row to reach this URI. */
  redirects: number;
  /**
   * Higher goes first where a frontier policy looks at it (the `priority`
   * queue precedence, the `best-first` queue order). Absent means 0; a
   * finite number, since it is stored as JSON. A prerequisite takes the
   * priority of the URI that needs it, so that it does not hold back that
   * URI's queue.
   */
  priority?: number;
  /**
   * Topic-focused crawls (src/focus/): how many pages past the last
   * relevant one the page that linked here lies (0: a relevant page, a
   * seed or a training page); absent means 0.
   */
  focusGap?: number;
  /**
   * The `<lastmod>` a sitemap gave this URL, as written (a W3C Datetime);
   * absent when none did. It also sets `priority` (src/sitemap/lastmod.ts).
   */
  lastmod?: string;
  /**
   * A POST a rendered page made (src/browser/): fetched with this body
   * (base64) and Content-Type, archived with its request record carrying
   * the body; absent for every other URI, which is a GET.
   */
  post?: { body: string; type: string };
}

/** A URI's priority: its own when it is a finite number, else 0. */
export function priorityOf(uri: Pick<CrawlUri, 'priority'>): number {
  const p = uri.priority;
  return typeof p === 'number' && Number.isFinite(p) ? p : 0;
}

/** Number of hops from the seed. */
export function hopCount(uri: Pick<CrawlUri, 'hopPath'>): number {
  return uri.hopPath.length;
}

/** Directive implied by the last hop: P → prerequisite, E/R → high, L/X/M → normal. */
export function directiveForHop(hop: Hop): Directive {
  if (hop === 'P') return Directive.prerequisite;
  if (hop === 'E' || hop === 'R') return Directive.high;
  return Directive.normal;
}

export function seedUri(url: string): CrawlUri {
  return { url, hopPath: '', via: null, context: '', seed: true, directive: Directive.normal, retries: 0, redirects: 0 };
}

export function childUri(parent: CrawlUri, url: string, hop: Hop, context: string): CrawlUri {
  const child: CrawlUri = {
    url,
    hopPath: parent.hopPath + hop,
    via: parent.url,
    context,
    seed: false,
    directive: directiveForHop(hop),
    retries: 0,
    redirects: hop === 'R' ? parent.redirects + 1 : 0,
  };
  // A robots.txt ranks as the URI waiting for it (see `priority`).
  if (hop === 'P' && parent.priority !== undefined) child.priority = parent.priority;
  return child;
}
