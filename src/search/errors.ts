/**
 * Errors of the search index, with stable codes:
 * - ARCHIVER_SEARCH_OPEN: the index cannot be opened (missing, locked, not an index, another schema);
 * - ARCHIVER_SEARCH_WRITE: pages could not be committed (disk full…); the crawl's captures are safe, `archiver index` rebuilds;
 * - ARCHIVER_SEARCH_CLOSED: used after close().
 */
import { ArchiverError } from '../core/errors.js';

export type SearchErrorCode = 'ARCHIVER_SEARCH_OPEN' | 'ARCHIVER_SEARCH_WRITE' | 'ARCHIVER_SEARCH_CLOSED';

export class SearchIndexError extends ArchiverError {
  constructor(code: SearchErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
