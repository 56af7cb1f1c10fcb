/**
 * Child process of search-index.test.ts: journals and indexes `total` pages
 * as a crawl would, commits the first `committed`, queues the rest and is
 * killed (SIGKILL) before they are committed.
 * argv: <indexDir> <journalFile> <total> <committed>
 */
import { CaptureJournal } from '../../src/job/capture-journal.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { testCapture } from './search-fixtures.js';

const [dir, journalFile, total, committed] = process.argv.slice(2) as [string, string, string, string];
// `node --test dist/test/` loads every file, this one too: without arguments it does nothing.
if (committed === undefined) process.exit(0);
const journal = await CaptureJournal.open(journalFile);
const index = await SearchIndex.open(dir, { commitMs: 600_000, batchPages: 100_000 });
for (let i = 0; i < Number(total); i++) {
  const c = testCapture(i);
  await journal.append(c);
  index.add({ url: c.url, timestamp: c.date, status: c.status, mime: c.mime, digest: c.digest, title: c.title ?? '', text: c.text ?? '' });
  if (i + 1 === Number(committed)) await index.flush();
}
process.kill(process.pid, 'SIGKILL');
