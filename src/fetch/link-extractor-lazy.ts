/**
 * link-extractor.ts, and with it parse5 and entities (~20 modules), loaded
 * when a crawl reads its first page rather than before its first request
 * goes out (which is robots.txt's, read without them).
 */
type LinkExtractorModule = typeof import('./link-extractor.js');

let loading: Promise<LinkExtractorModule> | null = null;

export function linkExtractor(): Promise<LinkExtractorModule> {
  loading ??= import('./link-extractor.js');
  return loading;
}
