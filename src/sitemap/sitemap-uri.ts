/**
 * Which URIs are sitemaps. A sitemap is known by how it was queued, carried
 * in its CrawlUri's `context` (kept across its redirects): `sitemap:robots`
 * (a robots.txt `Sitemap:` line), `sitemap:seed` (a seed that is one),
 * `sitemap:guess` (`/sitemap.xml` of a seed host, scope.sitemaps "seeds"),
 * `sitemap:index:N` (listed in a sitemap index, N levels of index above it).
 * What a sitemap lists is queued with the manifest hop `M` (Heritrix's),
 * the pages with context `url/loc` (`text/line` from a plain-text one).
 */
import type { CrawlUri } from '../core/crawl-uri.js';

export const SITEMAP_FROM_ROBOTS = 'sitemap:robots';
export const SITEMAP_FROM_SEED = 'sitemap:seed';
export const SITEMAP_GUESSED = 'sitemap:guess';
const INDEX_PREFIX = 'sitemap:index:';
/** Context of a page listed in an XML sitemap, and in a plain-text one. */
export const SITEMAP_PAGE = 'url/loc';
export const SITEMAP_TEXT_PAGE = 'text/line';

/**
 * Levels of sitemap index followed below the first file. The protocol
 * allows none (an index lists sitemaps, not indexes), sites nest anyway;
 * past this the entries of an index are not followed.
 */
export const MAX_SITEMAP_NESTING = 3;

export function isSitemapUri(uri: Pick<CrawlUri, 'context'>): boolean {
  return uri.context.startsWith('sitemap:');
}

/** Levels of index above a sitemap URI (0 for one from robots.txt, a seed or a guess). */
export function sitemapNesting(uri: Pick<CrawlUri, 'context'>): number {
  return uri.context.startsWith(INDEX_PREFIX) ? Number(uri.context.slice(INDEX_PREFIX.length)) || 0 : 0;
}

/** The context of a sitemap listed in an index that is `nesting` levels deep itself. */
export function indexEntryContext(nesting: number): string {
  return `${INDEX_PREFIX}${nesting + 1}`;
}

/**
 * Whether a seed's URL names a sitemap: its last path segment says
 * `sitemap` (sitemap.xml, sitemap_index.xml.gz, post-sitemap.xml,
 * sitemaps.txt…) or ends in `.xml.gz`. Seeds of XML or gzip type are read
 * as sitemaps whatever their name (sitemap-outlinks.ts).
 */
export function namesSitemap(url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  const last = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  return last.includes('sitemap') || last.endsWith('.xml.gz');
}

/** `/sitemap.xml` of the URL's origin. */
export function guessedSitemapUrl(url: string): string {
  return new URL('/sitemap.xml', url).href;
}
