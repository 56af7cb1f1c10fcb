/** Captures and pages for the search tests. */
import type { JournaledCapture } from '../../src/job/capture-journal.js';

/** A journaled 2xx HTML capture, page `i`, with a word of its own (`uniq<i>`). */
export function testCapture(i: number): JournaledCapture {
  return {
    url: `http://h${i % 3}.test/page/${i}`,
    date: `2024-05-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
    status: 200,
    mime: 'text/html',
    digest: `sha1:D${i}`,
    filename: 'TEST-00000.warc.gz',
    offset: i * 1000,
    length: 1000,
    revisit: false,
    seed: i === 0,
    page: true,
    title: `Page ${i}`,
    text: `Common words on every page and uniq${i} on this one.`,
  };
}
