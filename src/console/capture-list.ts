/**
 * The captures of a job, a page at a time, newest or oldest first, all of
 * them or the HTML pages only: what the console's Archive view lists. Read
 * from the capture journal (indexes/captures.jsonl), which a running crawl
 * appends to and a finished one keeps, so the same list serves both.
 *
 * The journal is scanned once, and then only its new end on each request;
 * every STRIDE-th capture's byte position is remembered, so any page is
 * read from the nearest mark: a page costs at most STRIDE lines read,
 * whatever its depth, and memory is two numbers per STRIDE captures.
 */
import { open, stat } from 'node:fs/promises';
import { parseJournalLine, type JournaledCapture } from '../job/capture-journal.js';
import { linesFrom } from './line-reader.js';

const STRIDE = 128;
const PAGE_FLAG = Buffer.from('"page":true');
const NOT_CAPTURES = [Buffer.from('{"closed"'), Buffer.from('{"rescan"')];

export interface CaptureRow {
  url: string;
  title: string | null;
  status: number;
  mime: string;
  /** Body bytes as stored; null in journals that did not record it. */
  size: number | null;
  /** ISO 8601, UTC. */
  timestamp: string;
  digest: string | null;
  revisit: boolean;
  /** A 2xx HTML page (what search and the page list hold). */
  page: boolean;
}

export interface CapturePage {
  total: number;
  rows: CaptureRow[];
}

export interface CapturePageQuery {
  offset: number;
  limit: number;
  pagesOnly: boolean;
  newestFirst: boolean;
}

interface Marks {
  count: number;
  /** Byte position of capture number i × STRIDE. */
  at: number[];
}

export class CaptureList {
  readonly #file: string;
  #scanned = 0;
  #all: Marks = { count: 0, at: [] };
  #pages: Marks = { count: 0, at: [] };
  /** Scans run one at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(journalFile: string) {
    this.#file = journalFile;
  }

  /** Captures so far (all, pages), after reading what was appended since the last call. */
  async counts(): Promise<{ all: number; pages: number }> {
    await this.#serial(() => this.#catchUp());
    return { all: this.#all.count, pages: this.#pages.count };
  }

  async page(q: CapturePageQuery): Promise<CapturePage> {
    return this.#serial(async () => {
      await this.#catchUp();
      const marks = q.pagesOnly ? this.#pages : this.#all;
      const total = marks.count;
      const [from, to] = q.newestFirst
        ? [Math.max(0, total - q.offset - q.limit), Math.max(0, total - q.offset)]
        : [Math.min(total, q.offset), Math.min(total, q.offset + q.limit)];
      const rows = from < to ? await this.#read(marks, from, to, q.pagesOnly) : [];
      if (q.newestFirst) rows.reverse();
      return { total, rows };
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #catchUp(): Promise<void> {
    let size: number;
    try {
      size = (await stat(this.#file)).size;
    } catch {
      return;
    }
    // Shorter than what was read: another journal took its place; start over.
    if (size < this.#scanned) {
      this.#scanned = 0;
      this.#all = { count: 0, at: [] };
      this.#pages = { count: 0, at: [] };
    }
    if (size === this.#scanned) return;
    const fh = await open(this.#file, 'r');
    try {
      for await (const { bytes, start, end } of linesFrom(fh, this.#scanned, size)) {
        this.#scanned = end;
        if (bytes.length === 0 || NOT_CAPTURES.some((p) => bytes.subarray(0, p.length).equals(p))) continue;
        mark(this.#all, start);
        if (bytes.includes(PAGE_FLAG)) mark(this.#pages, start);
      }
    } finally {
      await fh.close();
    }
  }

  /** Captures number [from, to) of the list, oldest first. */
  async #read(marks: Marks, from: number, to: number, pagesOnly: boolean): Promise<CaptureRow[]> {
    const mark = Math.floor(from / STRIDE);
    let index = mark * STRIDE;
    const rows: CaptureRow[] = [];
    const fh = await open(this.#file, 'r');
    try {
      for await (const { bytes } of linesFrom(fh, marks.at[mark]!, this.#scanned)) {
        if (bytes.length === 0 || NOT_CAPTURES.some((p) => bytes.subarray(0, p.length).equals(p))) continue;
        if (pagesOnly && !bytes.includes(PAGE_FLAG)) continue;
        if (index >= from) {
          const parsed = parseJournalLine(bytes.toString('utf8'));
          if (parsed?.kind === 'capture') rows.push(rowOf(parsed.capture));
        }
        index++;
        if (index >= to) break;
      }
    } finally {
      await fh.close();
    }
    return rows;
  }
}

function mark(m: Marks, at: number): void {
  if (m.count % STRIDE === 0) m.at.push(at);
  m.count++;
}

export function rowOf(c: JournaledCapture): CaptureRow {
  return {
    url: c.url,
    title: c.title ?? null,
    status: c.status,
    mime: c.mime,
    size: typeof c.size === 'number' ? c.size : null,
    timestamp: isoDate(c.date),
    digest: c.digest,
    revisit: c.revisit,
    page: c.page,
  };
}

/** A WARC-Date (second or sub-second precision) as ISO 8601 UTC. */
export function isoDate(warcDate: string): string {
  const ms = Date.parse(warcDate);
  return Number.isNaN(ms) ? warcDate : new Date(ms).toISOString();
}
