/**
 * What the console needs of a full-text search engine over a job's
 * archive. The engine itself lives elsewhere (src/search/); the console is
 * given one, or none — then /api/search answers 503.
 *
 * Snippets hold `<mark>` around the matches and have every other piece of
 * HTML escaped: the page inserts them as HTML as they are.
 */
export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
  score: number;
  /** ISO 8601, UTC. */
  timestamp: string;
  status: number;
  mime: string;
}

export interface SearchResult {
  total: number;
  tookMs: number;
  hits: SearchHit[];
}

export interface SearchOptions {
  limit: number;
  offset: number;
  host?: string;
  mime?: string;
  status?: number;
}

export interface ArchiveSearch {
  search(jobDir: string, query: string, opts: SearchOptions): Promise<SearchResult>;
}
