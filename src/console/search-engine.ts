/**
 * The search engine the console commands (`run --console`, `serve`) hand to
 * the console: the job's own full-text index (src/search/, in
 * `indexes/search/`). A running crawl writes it as it captures; the console
 * reads it through a connection of its own per query (SQLite's WAL lets a
 * reader see every committed batch while the crawl goes on writing).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { jobSearchDir, SearchIndex } from '../search/search-index.js';
import { SEARCH_DB_FILE } from '../search/search-store.js';
import type { ArchiveSearch } from './archive-search.js';
import { ConsoleError } from './console-errors.js';

export function consoleSearch(): ArchiveSearch {
  return {
    async search(jobDir, query, opts) {
      const dir = jobSearchDir(jobDir);
      if (!existsSync(path.join(dir, SEARCH_DB_FILE))) {
        throw new ConsoleError(404, 'ARCHIVER_CONSOLE_NO_SEARCH_INDEX', `${path.basename(jobDir)} has no search index (archiver index ${jobDir} builds one)`);
      }
      // In this thread: a query is a few milliseconds of SQLite; a worker per query would cost more.
      const index = await SearchIndex.open(dir, { worker: false });
      try {
        return await index.search(query, opts);
      } finally {
        await index.close();
      }
    },
  };
}
