/**
 * Reads a captured sitemap: the stored body with its Content-Encoding
 * undone, then inflated again when it is itself a gzip file (a `.xml.gz`
 * served as application/x-gzip, or gzipped twice), decoded as UTF-8, and
 * read as XML (a urlset or a sitemap index) or, when it does not start
 * with `<`, as a plain-text list of URLs. All of it streams: nothing past
 * the protocol's limits is inflated, and the entries are the only thing
 * kept (at most `maxUrls`).
 *
 * The protocol's limits (sitemaps.org): 50,000 URLs and 50 MB (52,428,800
 * bytes) uncompressed per file. A file beyond them is read up to them; the
 * result says which was met, for the crawl to say so.
 */
import { Readable } from 'node:stream';
import type { BodyStore } from '../core/exchange.js';
import { decodingStream, peek } from '../fetch/content-decoding.js';
import { SitemapTextScanner } from './sitemap-text.js';
import { SitemapXmlScanner, type SitemapEntry } from './sitemap-xml.js';

export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 52_428_800;

export interface SitemapLimits {
  maxUrls: number;
  maxBytes: number;
}

export interface SitemapRead {
  /** What the file is: pages (`urlset`, `text`), sitemaps (`sitemapindex`), or none of these (`other`: read it as what its type says). */
  format: 'urlset' | 'sitemapindex' | 'text' | 'other';
  entries: SitemapEntry[];
  /** The protocol limit the file went past (`urls`, `bytes`); null when within them. */
  limit: 'urls' | 'bytes' | null;
  /** Why the XML stopped being read (malformed, cut short), or the compression was corrupt; null when it read whole. */
  error: string | null;
  /** Entries or lines that were not usable (no loc, not a URL, too long). */
  skipped: number;
}

const DEFAULT_LIMITS: SitemapLimits = Object.freeze({ maxUrls: SITEMAP_MAX_URLS, maxBytes: SITEMAP_MAX_BYTES });

export async function readSitemap(body: BodyStore, contentEncoding: string | undefined, limits: SitemapLimits = DEFAULT_LIMITS): Promise<SitemapRead> {
  const decoded = await decodingStream(body.stream(), contentEncoding);
  if (decoded === null) return { format: 'other', entries: [], limit: null, error: `unknown content-encoding ${contentEncoding ?? ''}`.trim(), skipped: 0 };
  const file = await unwrapGzipFile(decoded.stream);
  const source = file.stream;
  const entries: SitemapEntry[] = [];
  let limit: SitemapRead['limit'] = null;
  const onEntry = (e: SitemapEntry): boolean => {
    if (entries.length >= limits.maxUrls) {
      limit = 'urls';
      return false;
    }
    entries.push(e);
    return true;
  };
  let scanner: SitemapXmlScanner | SitemapTextScanner | null = null;
  const utf8 = new TextDecoder('utf-8');
  let bytes = 0;
  const it = source[Symbol.asyncIterator]();
  try {
    for (let next = await it.next(); !next.done; next = await it.next()) {
      let chunk = next.value;
      if (bytes + chunk.length > limits.maxBytes) {
        chunk = chunk.subarray(0, limits.maxBytes - bytes);
        limit = 'bytes';
      }
      bytes += chunk.length;
      let text = utf8.decode(chunk, { stream: true });
      if (scanner === null) {
        // The first character that is not white space says which grammar: `<` for XML.
        const first = text.search(/\S/);
        if (first < 0) {
          if (limit !== null) break;
          continue;
        }
        text = text.slice(first);
        scanner = text[0] === '<' ? new SitemapXmlScanner(onEntry) : new SitemapTextScanner(onEntry);
      }
      scanner.write(text);
      if (scanner.done || limit !== null) break;
    }
  } finally {
    // Stopping early destroys the inflaters: nothing past this point is decompressed.
    await it.return?.();
  }
  if (scanner === null) return { format: 'other', entries, limit, error: null, skipped: 0 };
  // A file cut at the byte limit is not malformed: what was complete stands.
  if (limit === null && !scanner.done) {
    scanner.write(utf8.decode());
    scanner.end();
  }
  const broken = decoded.broken() || file.broken() ? 'corrupt or truncated compression' : null;
  if (scanner instanceof SitemapTextScanner) return { format: 'text', entries, limit, error: broken, skipped: scanner.skipped };
  const format = scanner.kind === 'urlset' || scanner.kind === 'sitemapindex' ? scanner.kind : 'other';
  return { format, entries, limit, error: scanner.error ?? broken, skipped: scanner.skipped };
}

/** The stream inflated once more when it starts with gzip's magic bytes (1f 8b), else as it is. */
async function unwrapGzipFile(source: AsyncIterable<Uint8Array>): Promise<{ stream: AsyncIterable<Uint8Array>; broken: () => boolean }> {
  const [first, rest] = await peek(Readable.from(source, { objectMode: false }));
  if (first[0] !== 0x1f || first[1] !== 0x8b) return { stream: rest, broken: () => false };
  return (await decodingStream(rest, 'gzip'))!;
}
