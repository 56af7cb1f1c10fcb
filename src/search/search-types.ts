/**
 * The shapes that cross the search engine's boundary: a page given to the
 * index, the options of a search, and its answer (the body of
 * `GET /api/search` and of `archiver search --json`).
 */

/** One captured 2xx HTML page, as the crawl (or a WARC) gives it. */
export interface SearchPage {
  url: string;
  /** WARC-Date as written (ISO 8601 UTC). With `url`, the page's identity: added twice, counted once. */
  timestamp: string;
  status: number;
  /** Media type without parameters (text/html, application/xhtml+xml). */
  mime: string;
  /** WARC-Payload-Digest, or null. */
  digest: string | null;
  title: string;
  /** Visible text (not scripts or styles). */
  text: string;
}

export interface SearchOptions {
  /** Hits returned; default 10, at most MAX_LIMIT. */
  limit?: number;
  /** Hits skipped first; default 0. */
  offset?: number;
  /** Only pages of this host name (no port; case-insensitive; subdomains not included). */
  host?: string;
  /** Only pages of this media type. */
  mime?: string;
  /** Only pages with this HTTP status. */
  status?: number;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 1000;

export interface SearchHit {
  url: string;
  title: string;
  /** HTML: the page's text escaped, the matched words in `<mark>…</mark>`; no other tags. */
  snippet: string;
  /** BM25 (k1 1.2, b 0.75; title weighted up): higher is better. */
  score: number;
  /** WARC-Date of the capture, ISO 8601 UTC. */
  timestamp: string;
  status: number;
  mime: string;
}

export interface SearchResponse {
  /** Pages matching (all of them, not only this page of hits). */
  total: number;
  /** Time the search took, in milliseconds. */
  tookMs: number;
  hits: SearchHit[];
}
