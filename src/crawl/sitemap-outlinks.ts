/**
 * What a captured sitemap lists, as outlinks: the pages of a urlset or a
 * plain-text sitemap (hop M, `<lastmod>` kept with its priority), the
 * sitemaps of an index (hop M, queued as sitemaps one level deeper, up to
 * MAX_SITEMAP_NESTING). They then pass scope, the seen filter and robots
 * like any link. A URI is read as a sitemap when it was queued as one
 * (sitemap-uri.ts), or when it is a seed served as XML or gzip.
 * The protocol's limits are honoured (sitemap-read.ts); a file past them
 * is noted in crawl.log and told to the operator in one line.
 */
import type { CrawlUri } from '../core/crawl-uri.js';
import { headerValue, type HttpExchange } from '../core/exchange.js';
import type { SitemapsMode } from '../config/profile.js';
import { lastmodPriority, lastmodTime } from '../sitemap/lastmod.js';
import { readSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS, type SitemapLimits } from '../sitemap/sitemap-read.js';
import {
  indexEntryContext,
  isSitemapUri,
  MAX_SITEMAP_NESTING,
  SITEMAP_FROM_SEED,
  SITEMAP_PAGE,
  SITEMAP_TEXT_PAGE,
  sitemapNesting,
} from '../sitemap/sitemap-uri.js';
import type { DiscoveredLink } from './link-scheduler.js';
import { escapeLonePercents } from '../fetch/link-resolution.js';

/** How a URI is read as a sitemap: the context its redirects keep, and the levels of index above it. */
export interface SitemapRole {
  context: string;
  nesting: number;
}

export interface SitemapOutlinks {
  links: DiscoveredLink[];
  /** crawl.log annotations: `sitemap:<format>:<entries>`, `sitemapLimit:urls|bytes`, `sitemapError`, `sitemapNesting`. */
  annotations: string[];
  /** One line for the operator when the file went past the protocol's limits, else null. */
  notice: string | null;
}

const SEED_SITEMAP_TYPES = /(^|[/+])xml$|^application\/(x-)?gzip$/;

/** Whether `uri` is read as a sitemap, and how; null when it is read as what its type says. */
export function sitemapRole(uri: CrawlUri, mime: string, mode: SitemapsMode): SitemapRole | null {
  if (mode === 'off') return null;
  if (isSitemapUri(uri)) return { context: uri.context, nesting: sitemapNesting(uri) };
  // A seed may itself be a sitemap: one served as XML or gzip is tried as one.
  if (uri.seed && SEED_SITEMAP_TYPES.test(mime)) return { context: SITEMAP_FROM_SEED, nesting: 0 };
  return null;
}

/**
 * The links of a sitemap capture; null when the body is no sitemap after
 * all (an HTML error page served with 200, an XML file of another kind):
 * the caller then extracts it as what its type says.
 */
export async function sitemapOutlinks(ex: HttpExchange, role: SitemapRole, limits?: SitemapLimits): Promise<SitemapOutlinks | null> {
  if (ex.status < 200 || ex.status >= 300 || ex.body.size === 0) return null;
  const read = await readSitemap(ex.body, headerValue(ex.responseHeaders, 'content-encoding'), limits);
  if (read.format === 'other') return null;
  const links: DiscoveredLink[] = [];
  const annotations = [`sitemap:${read.format}:${read.entries.length}`];
  if (read.format === 'sitemapindex') {
    if (role.nesting >= MAX_SITEMAP_NESTING) annotations.push('sitemapNesting');
    else for (const e of read.entries) pushLink(links, e.loc, ex.url, indexEntryContext(role.nesting));
  } else {
    const context = read.format === 'text' ? SITEMAP_TEXT_PAGE : SITEMAP_PAGE;
    for (const e of read.entries) {
      const lastmod = e.lastmod !== undefined && lastmodTime(e.lastmod) !== null ? e.lastmod : undefined;
      pushLink(links, e.loc, ex.url, context, lastmod);
    }
  }
  if (read.limit !== null) annotations.push(`sitemapLimit:${read.limit}`);
  if (read.error !== null) annotations.push('sitemapError');
  return { links, annotations, notice: read.limit === null ? null : limitNotice(ex.url, read.limit, limits) };
}

/** A `<loc>` resolved against the sitemap (the protocol wants it absolute; some are not), http(s) only. */
function pushLink(links: DiscoveredLink[], loc: string, base: string, context: string, lastmod?: string): void {
  let url: URL;
  try {
    url = new URL(loc, base);
  } catch {
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
  url.hash = '';
  const link: DiscoveredLink = { url: escapeLonePercents(url.href), hop: 'M', context };
  if (lastmod !== undefined) {
    link.lastmod = lastmod;
    link.priority = lastmodPriority(lastmod);
  }
  links.push(link);
}

function limitNotice(url: string, limit: 'urls' | 'bytes', limits?: SitemapLimits): string {
  const maxUrls = limits?.maxUrls ?? SITEMAP_MAX_URLS;
  const maxBytes = limits?.maxBytes ?? SITEMAP_MAX_BYTES;
  return limit === 'urls'
    ? `archiver: sitemap ${url} lists more than ${maxUrls.toLocaleString('en')} URLs, the protocol's limit: the first ${maxUrls.toLocaleString('en')} are followed, the rest ignored`
    : `archiver: sitemap ${url} is larger than ${maxBytes.toLocaleString('en')} bytes uncompressed, the protocol's limit: read up to there, the rest ignored`;
}
