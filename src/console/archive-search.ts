/**
 * What the console needs of a full-text search engine over a job's archive:
 * the job's own index (src/search/, wired in search-engine.ts), or none —
 * then /api/search answers 503. Hits and answers are the engine's own
 * shapes (src/search/search-types.ts), which are /api/search's contract.
 *
 * Snippets hold `<mark>` around the matches and have every other piece of
 * HTML escaped: the page inserts them as HTML as they are.
 */
import type { SearchOptions, SearchResponse } from '../search/search-types.js';

export interface ArchiveSearch {
  search(jobDir: string, query: string, opts: SearchOptions & { limit: number; offset: number }): Promise<SearchResponse>;
}
