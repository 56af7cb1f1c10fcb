/** A capture-journal line for tests: page `i` of file A, with its title and no text unless `extra` gives them. */
import type { JournaledCapture } from '../../src/job/capture-journal.js';

export function journaledCapture(i: number, extra: Partial<JournaledCapture> = {}): JournaledCapture {
  return {
    url: `http://127.0.0.2/p${i}.html`,
    date: '2026-01-02T03:04:05Z',
    status: 200,
    mime: 'text/html',
    digest: `sha1:D${i}`,
    filename: 'A.warc.gz',
    offset: 1000 + i * 100,
    length: 100,
    revisit: false,
    seed: false,
    page: true,
    title: `Page ${i}`,
    ...extra,
  };
}
