/**
 * Where pages for the search index come from besides the live crawl: the
 * capture journal (`indexes/captures.jsonl`, title and text already
 * extracted) and WARC files (bodies decoded as the WACZ page list decodes
 * them). One rule for both, searchPageOf: a 2xx HTML response not marked
 * noindex — the journal's `page` flag — and not a revisit (its payload is
 * indexed at the original capture; the WARC holds no text for it). So an
 * index built while crawling, from the journal, or from the WARCs holds the
 * same pages.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import { robotsDirectivesFromHeaders } from '../fetch/robots-directives.js';
import type { CdxjEntry } from '../index/cdxj.js';
import { indexWarcFile, type IndexedRecord } from '../index/warc-index.js';
import type { WarcDamage } from '../warc/warc-damage.js';
import { parseJournalLine, type JournaledCapture, type ParsedJournalLine } from '../job/capture-journal.js';
import { jobDir as jobDirOf } from '../job/job-dir.js';
import { recordPageText } from '../wacz/pages.js';
import type { SearchPage } from './search-types.js';
import { isHtmlMime } from '../core/html-mime.js';

/** The page a journaled capture gives the index, or null (not a page, or a revisit). */
export function searchPageOf(c: JournaledCapture): SearchPage | null {
  if (!c.page || c.revisit) return null;
  return { url: c.url, timestamp: c.date, status: c.status, mime: c.mime, digest: c.digest, title: c.title ?? '', text: c.text ?? '' };
}

/**
 * The pages of one WARC file, in file order, each handed to `visit` before
 * the reader moves on. `onDamage`: as indexWarcFile takes it (without it, a
 * damaged file throws once read).
 */
export async function warcPages(file: string, visit: (page: SearchPage) => Promise<void>, onDamage?: (damage: WarcDamage) => void): Promise<void> {
  await indexWarcFile(file, {
    ...(onDamage !== undefined ? { onDamage } : {}),
    onIndexed: async (record: IndexedRecord, entry: CdxjEntry) => {
      const head = record.http;
      if (record.type !== 'response' || head === null || record.date === null) return;
      if (entry.status === null || entry.status < 200 || entry.status >= 300) return;
      const mime = (head.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (!isHtmlMime(mime)) return;
      if (robotsDirectivesFromHeaders(record.httpHeaderList()).noindex) return;
      const text = await recordPageText(record);
      if (text.noindex) return;
      await visit({ url: entry.url, timestamp: record.date, status: entry.status, mime, digest: entry.digest, title: text.title ?? '', text: text.text });
    },
  });
}

/** A chunk of journal lines, all complete; `end` is the byte offset just past the last one. */
export interface JournalChunk {
  lines: ParsedJournalLine[];
  end: number;
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * The complete lines of the journal from byte `start` (a line boundary) to
 * its end, parsed; a last line without its newline (being written, or cut
 * by a kill) is left for later. Unreadable lines are skipped.
 */
export async function* journalFrom(file: string, start: number): AsyncGenerator<JournalChunk, void, undefined> {
  let fh;
  try {
    fh = await open(file, 'r');
  } catch {
    return;
  }
  try {
    let pos = start;
    let carry = Buffer.alloc(0);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, CHUNK_BYTES, pos + carry.length);
      if (bytesRead === 0) return;
      const nl = chunk.lastIndexOf(0x0a, bytesRead - 1);
      if (nl < 0) {
        carry = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
        continue;
      }
      const text = Buffer.concat([carry, chunk.subarray(0, nl)]).toString('utf8');
      pos += carry.length + nl + 1;
      carry = Buffer.from(chunk.subarray(nl + 1, bytesRead));
      const lines: ParsedJournalLine[] = [];
      for (const line of text.split('\n')) {
        const parsed = line === '' ? null : parseJournalLine(line);
        if (parsed !== null) lines.push(parsed);
      }
      yield { lines, end: pos };
    }
  } finally {
    await fh.close();
  }
}

/** The WARC files a `rescan` line names, as paths in the job's warcs/. */
export function rescanPaths(jobDir: string, files: readonly string[]): string[] {
  return files.map((f) => path.join(jobDirOf(jobDir).warcs, path.basename(f)));
}
