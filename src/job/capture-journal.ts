/**
 * The capture journal (`<job>/indexes/captures.jsonl`): one JSON line per
 * response or revisit the crawl wrote, with what its CDXJ line and its
 * pages.jsonl line need (position in the WARC, digest, and for a page its
 * title and text, taken from the parse the crawl already made for links).
 * With it the end of a crawl builds the index and the page list without
 * re-reading and re-inflating every WARC.
 *
 * Written after the WARC bytes, so after a kill -9 the journal may lack the
 * last few captures, or end in a cut line; never the reverse. Reopening
 * drops a cut line and, when the previous run did not close the journal,
 * appends a `rescan` line naming the WARC files its last lines point into:
 * the end of the crawl reads those files from the WARCs instead (see
 * openCaptureJournal). A line whose record is no longer in its file (the
 * resume's repair cut the file back) is dropped when read.
 *
 * Each line is appended with one synchronous write (writer/append-file.ts):
 * on the CPU-bound 2-CPU bench machine an async fs write costs ~40-50 µs of
 * process CPU, a writeSync of a line a few µs. A line is in the OS when
 * append() returns, so the order WARC bytes → journal line holds in the
 * file as in the code; the price is that a slow disk stalls the event loop,
 * which the page cache normally absorbs.
 */
import { mkdir, open, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { ArchiverError } from '../core/errors.js';
import { fileLineBuffers } from '../core/file-lines.js';
import { splitTextField } from './journal-bytes.js';
import { AppendFile } from '../writer/append-file.js';
import { JournalSummaryBuilder, summaryOf, type JournalSummary } from './journal-summary.js';
import { isHtmlMime } from '../core/html-mime.js';

/** Cap on the text kept per page, in characters (the same cap as the WARC-read path). */
export const JOURNAL_MAX_TEXT_CHARS = 100_000;

/** A page's text as the journal keeps it: its first JOURNAL_MAX_TEXT_CHARS characters. */
export function journalText(text: string): string {
  return text.length > JOURNAL_MAX_TEXT_CHARS ? text.slice(0, JOURNAL_MAX_TEXT_CHARS) : text;
}

const CLOSING_BRACE_NEWLINE = Buffer.from('}\n', 'utf8');

/**
 * How many trailing lines of an unclosed journal are suspected of having
 * missed captures: a capture reaches the WARC before its line, and at most
 * one capture per worker is between the two at any moment.
 */
export const RESCAN_WINDOW_LINES = 4096;

/**
 * The journal's `page` flag for a capture: a 2xx HTML response (or revisit
 * of one) whose meta robots / X-Robots-Tag do not say noindex — the rule
 * the WARC-read path applies too, so both build the same page list.
 */
export function isPageCapture(status: number, mime: string, noindex: boolean): boolean {
  return status >= 200 && status < 300 && isHtmlMime(mime) && !noindex;
}

export interface JournaledCapture {
  /** WARC-Target-URI. */
  url: string;
  /** WARC-Date exactly as written. */
  date: string;
  /** HTTP status. */
  status: number;
  /** Media type of the response, no parameters, lower case ('' when none). */
  mime: string;
  /** WARC-Payload-Digest (a revisit's is the original's). */
  digest: string | null;
  /** Body bytes as stored (what crawl.log's size column says); absent in journals of older versions. */
  size?: number;
  /** WARC file name (final, no `.open`), offset and length of the record's gzip member. */
  filename: string;
  offset: number;
  length: number;
  revisit: boolean;
  /** A seed of the crawl (its metadata record says `seed: true`). */
  seed: boolean;
  /** Belongs in pages.jsonl: a 2xx HTML page not marked noindex. */
  page: boolean;
  title?: string;
  /** Visible text, at most JOURNAL_MAX_TEXT_CHARS characters. */
  text?: string;
  /** A focused crawl's relevance of the page to its topic (3 decimals), for pages.jsonl. */
  relevance?: number;
  /**
   * A POST a rendered page made (src/browser/): its method and its body as
   * query parameters, the form wabac looks a replayed POST up by; the
   * index key carries them (warcio's `__wb_method=POST&…`).
   */
  method?: 'POST';
  requestBody?: string;
}

/** Told of a capture once its line is written: the capture as written (no text, no empty title) and its text's JSON string bytes, or null. */
export type JournalFollower = (line: JournaledCapture, textJson: Uint8Array | null) => void;

/** The journal could not be written or read. */
export class CaptureJournalError extends ArchiverError {
  constructor(code: 'ARCHIVER_JOURNAL_WRITE' | 'ARCHIVER_JOURNAL_READ', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The line that ends a cleanly closed run. */
const CLOSED_LINE = '{"closed":true}';

export class CaptureJournal {
  readonly #file: string;
  /** Holds the write failure (a CaptureJournalError) once there is one. */
  readonly #out: AppendFile;
  #closing: Promise<void> | null = null;

  /** What the end of the crawl's first read would learn (journal-summary.ts): kept for a journal this run began. */
  readonly #summary: JournalSummaryBuilder | null;
  /** Told of every capture appended (follow()). */
  #follower: JournalFollower | null = null;

  private constructor(file: string, out: AppendFile, fresh: boolean) {
    this.#file = file;
    this.#out = out;
    this.#summary = fresh ? new JournalSummaryBuilder() : null;
  }

  /**
   * Open for appending (created if missing). A cut last line is removed; a
   * journal the previous run did not close gets a `rescan` line first.
   */
  static async open(file: string): Promise<CaptureJournal> {
    await mkdir(path.dirname(file), { recursive: true });
    const fresh = ((await stat(file).catch(() => null))?.size ?? 0) === 0;
    const rescan = await repairTail(file);
    let out: AppendFile;
    try {
      out = await AppendFile.open(file, {
        asFailure: (err) => new CaptureJournalError('ARCHIVER_JOURNAL_WRITE', `${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
      });
    } catch (err) {
      throw new CaptureJournalError('ARCHIVER_JOURNAL_WRITE', `cannot open ${file}`, { cause: err });
    }
    const journal = new CaptureJournal(file, out, fresh);
    if (rescan !== null) {
      // On disk before this run writes anything: a second kill must not lose it.
      try {
        journal.#writeLine(JSON.stringify({ rescan }));
      } catch (err) {
        await journal.close().catch(() => {});
        throw err;
      }
    }
    return journal;
  }

  get path(): string {
    return this.#file;
  }

  /** This run began the journal (it was empty or missing): every line of it is this run's. */
  get fresh(): boolean {
    return this.#summary !== null;
  }

  /** Tell `follower` of every capture from now on, once its line is written (wacz/live-package.ts); it must not throw. */
  follow(follower: JournalFollower): void {
    this.#follower = follower;
  }

  /**
   * Append one capture, in the OS before this settles; rejects if it could
   * not be written, and once the file failed. `textJson`: the capture's text
   * already encoded as a JSON string (journalText's, as UTF-8 bytes) by the
   * page thread, taken as is instead of `c.text`.
   */
  async append(c: JournaledCapture, textJson?: Uint8Array): Promise<void> {
    if (this.#closing) throw new CaptureJournalError('ARCHIVER_JOURNAL_WRITE', `${this.#file}: journal is closed`);
    const text = textBytesOf(c, textJson);
    // Most captures come without text (the page thread sends it apart) and without an empty title: written as they are.
    const line = c.text === undefined && c.title !== '' ? c : withoutTextOrEmptyTitle(c);
    const json = JSON.stringify(line);
    this.#summary?.add(line, line.title !== undefined, text !== null);
    // The text goes last, where the end of the crawl finds it without decoding it (journal-bytes.ts).
    if (text === null) this.#writeLine(json);
    else this.#out.append([Buffer.from(json.slice(0, -1) + ',"text":', 'utf8'), text, CLOSING_BRACE_NEWLINE]);
    this.#follower?.(line, text);
  }

  /** Mark the run as cleanly ended and close. Idempotent; rejects with the write failure if one happened. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        const summary = this.#summary?.summary() ?? null;
        if (this.#out.failure === null) this.#writeLine(summary === null ? CLOSED_LINE : JSON.stringify({ closed: true, summary }));
      } catch {
        // Kept as the file's failure; thrown below, once the descriptor is released.
      }
      try {
        this.#out.close();
      } catch {
        // Kept as the file's failure (unless an earlier one is).
      }
      if (this.#out.failure !== null) throw this.#out.failure;
    })();
    return this.#closing;
  }

  #writeLine(line: string): void {
    this.#out.append([Buffer.from(line + '\n', 'utf8')]);
  }
}

/**
 * Cut a partial last line; return null when the journal is new or was
 * closed, else the files its last RESCAN_WINDOW_LINES captures point into.
 */
async function repairTail(file: string): Promise<string[] | null> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return null;
  }
  if (size === 0) return null;
  const keep = await lastNewlineEnd(file, size);
  if (keep < size) await truncate(file, keep);
  if (keep === 0) return null;
  const files = new Set<string>();
  const recent: string[] = [];
  let closed = false;
  for await (const batch of fileLineBuffers(file)) {
    for (const line of batch) {
      const parsed = readJournalLine(line);
      closed = parsed?.kind === 'closed';
      if (parsed?.kind !== 'capture') continue;
      recent.push(parsed.capture.filename);
      if (recent.length > RESCAN_WINDOW_LINES) recent.shift();
    }
  }
  if (closed) return null;
  for (const f of recent) files.add(f);
  return [...files].sort();
}

/** Byte length of the file up to and including its last newline. */
async function lastNewlineEnd(file: string, size: number): Promise<number> {
  const fh = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await fh.read(chunk, 0, end - start, start);
      const nl = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (nl >= 0) return start + nl + 1;
      end = start;
    }
    return 0;
  } finally {
    await fh.close();
  }
}

/** A closing line may carry the run's summary (journal-summary.ts). */
export type ParsedJournalLine = { kind: 'capture'; capture: JournaledCapture } | { kind: 'rescan'; files: string[] } | { kind: 'closed'; summary?: JournalSummary };
type ParsedLine = ParsedJournalLine;

/** One journal line read back, null for an unreadable one (a cut last line); also for readers of a journal still being written. */
export function parseJournalLine(line: string): ParsedLine | null {
  if (line === '') return null;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  return journalLineOf(v);
}

/** A parsed journal line's value checked: what it is, or null when it is none of the three kinds. */
export function journalLineOf(v: unknown): ParsedLine | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (o['closed'] === true) {
    const summary = summaryOf(o['summary']);
    return summary === null ? { kind: 'closed' } : { kind: 'closed', summary };
  }
  if (Array.isArray(o['rescan'])) return { kind: 'rescan', files: o['rescan'].filter((f): f is string => typeof f === 'string') };
  const ok = typeof o['url'] === 'string' && typeof o['date'] === 'string' && typeof o['status'] === 'number'
    && typeof o['mime'] === 'string' && (typeof o['digest'] === 'string' || o['digest'] === null)
    && typeof o['filename'] === 'string' && Number.isSafeInteger(o['offset']) && Number.isSafeInteger(o['length'])
    && typeof o['revisit'] === 'boolean' && typeof o['seed'] === 'boolean' && typeof o['page'] === 'boolean';
  return ok ? { kind: 'capture', capture: o as unknown as JournaledCapture } : null;
}

/**
 * The capture's text as the journal writes it, the UTF-8 bytes of its JSON
 * string: `textJson` when the page thread encoded it, else `c.text`'s;
 * null for none ('""', the empty text, the journal leaves out).
 */
function textBytesOf(c: JournaledCapture, textJson: Uint8Array | undefined): Uint8Array | null {
  if (textJson !== undefined) return textJson.length > 2 ? textJson : null;
  return c.text !== undefined && c.text !== '' ? Buffer.from(JSON.stringify(journalText(c.text)), 'utf8') : null;
}

/** A copy of `c` without its text, and without its title when that is empty: the line's fields, in their order. */
function withoutTextOrEmptyTitle(c: JournaledCapture): JournaledCapture {
  const line: JournaledCapture = { ...c };
  delete line.text;
  if (line.title === '') delete line.title;
  return line;
}

/** A capture read as bytes (readJournalLine): its text, when it has one, still the JSON string the journal holds. */
export type RawJournaledCapture = Omit<JournaledCapture, 'text'> & { textJson?: Buffer };
export type RawJournalLine = { kind: 'capture'; capture: RawJournaledCapture } | { kind: 'rescan'; files: string[] } | { kind: 'closed'; summary?: JournalSummary };

/** One journal line read from its bytes, its text left undecoded (see journal-bytes.ts); null for an unreadable one. */
export function readJournalLine(line: Buffer): RawJournalLine | null {
  const { head, textJson } = splitTextField(line);
  let v: unknown;
  try {
    v = JSON.parse(head);
  } catch {
    return null;
  }
  const parsed = journalLineOf(v) as RawJournalLine | null;
  // '""' is the empty text, which counts as none.
  if (parsed?.kind === 'capture' && textJson !== null && textJson.length > 2) parsed.capture.textJson = textJson;
  return parsed;
}
