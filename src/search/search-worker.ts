/**
 * The program of the search worker thread (search-index.ts): it owns the
 * index's SQLite connection in a crawl, so preparing text (NFKC, ICU
 * segmentation), FTS5's indexing and long queries never hold up the crawl's
 * main thread.
 */
import { serveBatches } from '../core/batch-server.js';
import { SearchRequestHandler, type SearchRequest } from './search-requests.js';

const handler = new SearchRequestHandler();
serveBatches('arch-search', (req: SearchRequest) => handler.handle(req));
