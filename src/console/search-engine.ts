/**
 * The search engine the console commands (`run --console`, `serve`) hand to
 * the console: the job's own full-text index (src/search/, in
 * `indexes/search/`), brought up to date with the job's capture journal
 * before each query (src/search/job-search.ts), so pages a running crawl
 * has captured are found as soon as they are journaled.
 */
import path from 'node:path';
import { searchJob } from '../search/job-search.js';
import type { ArchiveSearch } from './archive-search.js';
import { ConsoleError } from './console-errors.js';

export function consoleSearch(): ArchiveSearch {
  return {
    async search(jobDir, query, opts) {
      const result = await searchJob(jobDir, query, opts);
      if (result === null) {
        throw new ConsoleError(404, 'ARCHIVER_CONSOLE_NO_SEARCH_INDEX', `${path.basename(jobDir)} has no search index and nothing to build one from`);
      }
      return result;
    },
  };
}
