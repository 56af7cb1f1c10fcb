/**
 * What a capture links to: decode the stored body for extraction only (the
 * archive keeps the bytes as received), pick the extractor by what the
 * response is — a sitemap when the URI is read as one (sitemap-outlinks.ts),
 * else by media type — add the redirect target of a 3xx (a sitemap's keeps
 * its sitemap context), and apply meta robots / X-Robots-Tag when the
 * robots policy honours them (nofollow drops hyperlinks, embeds stay so the
 * archived page still renders).
 */
import type { Hop } from '../core/crawl-uri.js';
import type { BodyStore, HttpExchange } from '../core/exchange.js';
import { bodyText } from '../fetch/content-decoding.js';
import { extractCss } from '../fetch/css-links.js';
import { robotsDirectivesFromHeaders } from '../fetch/robots-directives.js';
import { redirectTarget } from '../fetch/link-resolution.js';
import type { DiscoveredLink } from './link-scheduler.js';
import { sitemapOutlinks, type SitemapRole } from './sitemap-outlinks.js';
import { isHtmlMime } from '../core/html-mime.js';
import { extractStored, MAX_DECODED_BYTES, type StoredExtraction } from './extract-for.js';

export interface Outlinks {
  links: DiscoveredLink[];
  /** crawl.log annotations, e.g. "nofollow", "noindex". */
  annotations: string[];
  /** An HTML page's title, visible text and noindex, for the capture journal (pages.jsonl); a focused crawl's terms of them. */
  page?: { title: string | null; text: string; noindex: boolean; terms?: string };
  /** Links the HTML extractor met past its own cap (not taken). */
  linksBeyondCap: number;
  /** A line for the operator (a sitemap past the protocol's limits). */
  notice?: string;
}

/**
 * One stored HTML body read for its links: decoded (Content-Encoding,
 * charset) and extracted together, on the page thread or here. The stored
 * bytes go where the work is done, not the decoded text: a page's text is
 * held by the thread that parses it only.
 */
export type StoredHtmlReader = (body: BodyStore, headers: ReadonlyArray<readonly [string, string]>, url: string) => Promise<StoredExtraction>;

/** Reading in this thread, for callers without a PageThread. */
const readHere: StoredHtmlReader = (body, headers, url) => extractStored(body, headers, url, {});

/** Annotation prefix of a page whose links were cut at limits.maxOutlinks: `maxOutlinks:<links dropped>`. */
export const MAX_OUTLINKS_ANNOTATION = 'maxOutlinks';

/**
 * A page's links, cut at `maxOutlinks` in document order (Heritrix keeps the
 * first N too): a page with 300,000 links must not queue 300,000 URIs.
 * A sitemap (`sitemap` given and the body one) has the protocol's own
 * limit, 50,000, instead.
 */
export async function extractOutlinks(
  ex: HttpExchange,
  mime: string,
  obeyMetaRobots: boolean,
  readHtml: StoredHtmlReader = readHere,
  maxOutlinks = Infinity,
  sitemap: SitemapRole | null = null,
): Promise<Outlinks> {
  if (sitemap !== null) {
    const listed = await sitemapOutlinks(ex, sitemap);
    if (listed !== null) return { links: listed.links, annotations: listed.annotations, linksBeyondCap: 0, ...(listed.notice ? { notice: listed.notice } : {}) };
  }
  const found = await extractAll(ex, mime, obeyMetaRobots, readHtml, sitemap?.context ?? 'location');
  // The extractor may have stopped at the cap itself and counted what it met beyond.
  const beyond = Math.max(0, found.links.length - maxOutlinks) + found.linksBeyondCap;
  if (found.links.length > maxOutlinks) found.links.length = maxOutlinks;
  if (beyond > 0) found.annotations.push(`${MAX_OUTLINKS_ANNOTATION}:${beyond}`);
  return found;
}

async function extractAll(ex: HttpExchange, mime: string, obeyMetaRobots: boolean, readHtml: StoredHtmlReader, redirectContext: string): Promise<Outlinks> {
  const links: DiscoveredLink[] = [];
  const annotations: string[] = [];
  const target = redirectTarget(ex);
  if (target) links.push({ url: target, hop: 'R', context: redirectContext });
  const isHtml = isHtmlMime(mime);
  const isCss = mime === 'text/css';
  if ((!isHtml && !isCss) || ex.body.size === 0) return { links, annotations, linksBeyondCap: 0 };
  if (isCss) {
    const { text, capped } = await bodyText(ex.body, ex.responseHeaders, MAX_DECODED_BYTES);
    if (capped) annotations.push('extractCapped');
    for (const l of extractCss(text, ex.url)) links.push({ url: l.url, hop: l.hop as Hop, context: l.context });
    return { links, annotations, linksBeyondCap: 0 };
  }
  const { page, capped } = await readHtml(ex.body, ex.responseHeaders, ex.url);
  if (capped) annotations.push('extractCapped');
  const header = robotsDirectivesFromHeaders(ex.responseHeaders);
  const nofollow = obeyMetaRobots && (page.metaRobots.nofollow || header.nofollow);
  const noindex = page.metaRobots.noindex || header.noindex;
  if (nofollow) annotations.push('nofollow');
  if (noindex) annotations.push('noindex');
  for (const l of page.links) {
    if (nofollow && l.hop === 'L') continue;
    const link: DiscoveredLink = { url: l.url, hop: l.hop as Hop, context: l.context };
    if (l.anchorTerms !== undefined) link.anchorTerms = l.anchorTerms;
    if (l.aroundTerms !== undefined) link.aroundTerms = l.aroundTerms;
    if (l.urlTerms !== undefined) link.urlTerms = l.urlTerms;
    links.push(link);
  }
  return { links, annotations, page: { title: page.title, text: page.text, noindex, ...(page.terms !== undefined ? { terms: page.terms } : {}) }, linksBeyondCap: page.linksBeyondCap };
}
