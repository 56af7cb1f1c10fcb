/**
 * Finds a capture of a URL in a job: in the sorted CDXJ index by binary
 * search when the job is finished, or in the capture journal (a scan) while
 * it is being crawled, when the index does not exist yet or is a past run's.
 * The latest capture wins unless a 14-digit timestamp picks one.
 */
import { open } from 'node:fs/promises';
import { parseCdxjLine, REVISIT_MIME, timestamp14 } from '../index/cdxj.js';
import { parseJournalLine } from '../job/capture-journal.js';
import { surt } from '../url/surt.js';
import { linesFrom } from './line-reader.js';
import { SortedLines } from './sorted-lines.js';

export interface LocatedCapture {
  url: string;
  /** 14 digits, UTC. */
  timestamp: string;
  status: number | null;
  mime: string;
  digest: string | null;
  revisit: boolean;
  /** WARC file name (no directory), offset and length of the record's gzip member. */
  filename: string;
  offset: number;
  length: number;
  /** Known from the journal only. */
  size: number | null;
  title: string | null;
}

export async function locateInIndex(cdxjFile: string, url: string, ts: string | null): Promise<LocatedCapture | null> {
  const index = await SortedLines.open(cdxjFile);
  let best: LocatedCapture | null = null;
  try {
    for await (const line of index.withPrefix(`${surt(url)} `)) {
      const e = parseCdxjLine(line);
      // The SURT folds case and `www.`: the key's lines may be of other URLs.
      if (e.url !== url) continue;
      const revisit = e.mime === REVISIT_MIME;
      const found: LocatedCapture = { url: e.url, timestamp: e.timestamp, status: e.status, mime: revisit ? '' : e.mime, digest: e.digest, revisit, filename: e.filename, offset: e.offset, length: e.length, size: null, title: null };
      if (ts !== null && e.timestamp === ts) return found;
      best = found;
    }
  } finally {
    await index.close();
  }
  return ts === null ? best : null;
}

export async function locateInJournal(journalFile: string, url: string, ts: string | null): Promise<LocatedCapture | null> {
  let fh;
  try {
    fh = await open(journalFile, 'r');
  } catch {
    return null;
  }
  // The URL as it appears in the line's JSON: lines without it are not parsed.
  const needle = Buffer.from(JSON.stringify(url).slice(1, -1), 'utf8');
  let best: LocatedCapture | null = null;
  try {
    const size = (await fh.stat()).size;
    for await (const { bytes } of linesFrom(fh, 0, size)) {
      if (!bytes.includes(needle)) continue;
      const parsed = parseJournalLine(bytes.toString('utf8'));
      if (parsed?.kind !== 'capture' || parsed.capture.url !== url) continue;
      const c = parsed.capture;
      const found: LocatedCapture = {
        url: c.url, timestamp: timestamp14(c.date), status: c.status, mime: c.mime, digest: c.digest, revisit: c.revisit,
        filename: c.filename, offset: c.offset, length: c.length, size: typeof c.size === 'number' ? c.size : null, title: c.title ?? null,
      };
      if (ts !== null && found.timestamp === ts) return found;
      best = found;
    }
  } finally {
    await fh.close();
  }
  return ts === null ? best : null;
}
