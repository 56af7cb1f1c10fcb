/**
 * The search engine the console commands (`run --console`, `serve`) hand
 * to the console: the one place src/search/ is wired in. Until it is,
 * there is none and /api/search answers 503.
 */
import type { ArchiveSearch } from './archive-search.js';

export function consoleSearch(): ArchiveSearch | undefined {
  return undefined;
}
