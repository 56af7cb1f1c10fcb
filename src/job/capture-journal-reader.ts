/**
 * The capture journal read at the end of a crawl (finalize, `archiver
 * index`): a first pass over the whole file learns what the journal
 * covers and which WARC files must be read from their bytes instead; then
 * its captures are streamed, as often as asked, never held. Lines are read
 * as bytes and a page's text is not decoded unless asked for
 * (journal-bytes.ts): it is most of the file.
 */
import { open, stat } from 'node:fs/promises';
import {
  CaptureJournalError,
  RESCAN_WINDOW_LINES,
  readJournalLine,
  type JournaledCapture,
  type RawJournaledCapture,
  type RawJournalLine,
} from './capture-journal.js';
import { fileLineBuffers } from '../core/file-lines.js';
import { decodeTextJson } from './journal-bytes.js';
import type { JournalSummary } from './journal-summary.js';

/**
 * A journal opened for the end of a crawl: what a first pass over the whole
 * file learned (the rescan set depends on its tail and on `rescan` lines
 * anywhere), and passes that stream the captures, so a journal of any size
 * is read without holding its captures.
 */
export interface JournalReader {
  /** WARC files to index from their bytes instead (a run ended without closing the journal). */
  readonly rescan: ReadonlySet<string>;
  /** Files at least one kept capture points into (in `warcSizes`, member within the file). */
  readonly covered: ReadonlySet<string>;
  /** Lines dropped: unreadable, or pointing past the end (or at a missing file) in `warcSizes`. */
  readonly dropped: number;
  /** The closing summary that stood for the first read (see openCaptureJournal), or null when the journal was read. */
  readonly summary: JournalSummary | null;
  /** Captures whose record is still in its file, in journal order; reads the file again on each call. */
  captures(): AsyncGenerator<JournaledCapture, void, undefined>;
  /** The same captures with their text as the journal's JSON string (`textJson`), not decoded: its bytes hold until the next capture is asked for. */
  rawCaptures(): AsyncGenerator<RawJournaledCapture, void, undefined>;
}

/**
 * Open a journal for the end of a crawl, or null when there is none: one
 * pass computes `rescan`, `covered` and `dropped` keeping no capture.
 * `warcSizes`: file name → size in bytes of the job's WARCs now; a capture
 * in a file not listed, or whose member ends past the file's end, is
 * dropped. A journal still open (the crawl was killed and never resumed)
 * asks for a rescan of its tail's files, like a reopen would. `onCapture`
 * sees each capture that pass keeps, in journal order, its text undecoded
 * (the bytes hold for the call only). With `onSummary`, a journal closed
 * with a summary of its run (journal-summary.ts) whose files are all whole
 * is not read at all: `onSummary` gets what the pass would have learned
 * instead, and `onCapture` is not called.
 */
export async function openCaptureJournal(
  file: string,
  warcSizes: ReadonlyMap<string, number>,
  onCapture?: (c: RawJournaledCapture) => void,
  onSummary?: (s: JournalSummary) => void,
): Promise<JournalReader | null> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return null;
  }
  async function* rawCaptures(): AsyncGenerator<RawJournaledCapture, void, undefined> {
    for await (const parsed of parsedLines(file)) {
      if (parsed?.kind === 'capture' && inFile(parsed.capture, warcSizes)) yield parsed.capture;
    }
  }
  const reader = (rescan: Set<string>, covered: Set<string>, dropped: number, summary: JournalSummary | null): JournalReader => ({
    rescan,
    covered,
    dropped,
    summary,
    rawCaptures,
    async *captures() {
      for await (const c of rawCaptures()) yield withText(c);
    },
  });
  // A journal its run closed with a summary, every file still whole: the summary stands for the first read.
  const summary = onSummary === undefined ? null : await closingSummary(file, size);
  if (summary !== null && summary.files.every(([f, end]) => end <= (warcSizes.get(f) ?? -1))) {
    onSummary!(summary);
    return reader(new Set(), new Set(summary.files.map(([f]) => f)), 0, summary);
  }
  const rescan = new Set<string>();
  const covered = new Set<string>();
  let dropped = 0;
  const recent: string[] = [];
  let closed = true;
  for await (const parsed of parsedLines(file)) {
    if (parsed === null) {
      dropped++;
      continue;
    }
    if (parsed.kind === 'closed') {
      closed = true;
      continue;
    }
    if (parsed.kind === 'rescan') {
      for (const f of parsed.files) rescan.add(f);
      continue;
    }
    closed = false;
    const c = parsed.capture;
    recent.push(c.filename);
    if (recent.length > RESCAN_WINDOW_LINES) recent.shift();
    if (inFile(c, warcSizes)) {
      covered.add(c.filename);
      onCapture?.(c);
    } else dropped++;
  }
  if (!closed) for (const f of recent) rescan.add(f);
  return reader(rescan, covered, dropped, null);
}

/** Lines longer than this are not looked for at the end of a journal (a summary is far shorter). */
const MAX_SUMMARY_LINE_BYTES = 8 * 1024 * 1024;

/** The summary in the journal's last line, when that line closes the journal and carries one. */
async function closingSummary(file: string, size: number): Promise<JournalSummary | null> {
  const fh = await open(file, 'r');
  try {
    // The last line: back from the end, a growing window until it holds the newline before it.
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const bytes = Buffer.allocUnsafe(size - start);
      const { bytesRead } = await fh.read(bytes, 0, bytes.length, start);
      const text = bytes.subarray(0, bytesRead);
      const end = text.length > 0 && text[text.length - 1] === 0x0a ? text.length - 1 : text.length;
      const nl = text.lastIndexOf(0x0a, end - 1);
      if (nl >= 0 || start === 0) {
        const parsed = readJournalLine(text.subarray(nl + 1, end));
        return parsed?.kind === 'closed' ? (parsed.summary ?? null) : null;
      }
      if (window >= MAX_SUMMARY_LINE_BYTES) return null;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Several journals read as one (the nodes of a crawl of several processes
 * write one each, about WARC files of their own): what each covers or asks
 * to rescan, their captures one journal after the other. Null when there is
 * none.
 */
export async function openCaptureJournals(
  files: readonly string[],
  warcSizes: ReadonlyMap<string, number>,
  onCapture?: (c: RawJournaledCapture) => void,
  onSummary?: (s: JournalSummary) => void,
): Promise<JournalReader | null> {
  const readers: JournalReader[] = [];
  for (const file of files) {
    // Several journals are read: a summary speaks for its own only.
    const reader = await openCaptureJournal(file, warcSizes, onCapture, files.length === 1 ? onSummary : undefined);
    if (reader !== null) readers.push(reader);
  }
  if (readers.length <= 1) return readers[0] ?? null;
  return {
    rescan: new Set(readers.flatMap((r) => [...r.rescan])),
    covered: new Set(readers.flatMap((r) => [...r.covered])),
    dropped: readers.reduce((n, r) => n + r.dropped, 0),
    summary: null,
    async *captures() {
      for (const r of readers) yield* r.captures();
    },
    async *rawCaptures() {
      for (const r of readers) yield* r.rawCaptures();
    },
  };
}

/** A capture read as bytes, its text decoded. */
export function withText(c: RawJournaledCapture): JournaledCapture {
  const { textJson, ...rest } = c;
  return textJson === undefined ? rest : { ...rest, text: decodeTextJson(textJson) };
}

/** The capture's gzip member is still whole in its file. */
function inFile(c: RawJournaledCapture, warcSizes: ReadonlyMap<string, number>): boolean {
  const size = warcSizes.get(c.filename);
  return size !== undefined && c.offset + c.length <= size;
}

/**
 * Every non-empty line read, null for an unreadable one (only a cut last
 * line can be, or garbage written by hand); read failures become
 * CaptureJournalError.
 */
async function* parsedLines(file: string): AsyncGenerator<RawJournalLine | null, void, undefined> {
  try {
    // A consumer that stops early returns this generator, which closes the file; its errors never land here.
    for await (const batch of fileLineBuffers(file)) for (const line of batch) yield readJournalLine(line);
  } catch (err) {
    throw new CaptureJournalError('ARCHIVER_JOURNAL_READ', `${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
