/**
 * The page list written straight from the capture journal, when the
 * journal already gives the captures in package order — one crawl process
 * that was never killed, every WARC covered by its journal: then the
 * journal's order is the order the records were appended, file after file.
 * PageCollector's external sort (every page's text serialised into it,
 * sorted, parsed back) is then work for nothing, and its buffer the largest
 * memory at the end of a crawl.
 *
 * What PageList must know before its one pass — the URLs marked as seeds
 * and, per digest, how many text-less revisits will borrow an original's
 * text — is gathered by JournalPageOrder during the journal's first read
 * (openCaptureJournals' `onCapture`), which also checks the order. The
 * second read then feeds PageList directly and writes pages.jsonl as it
 * goes; the result is the one the sorted path gives.
 *
 * Neither read decodes a page's text: PageList carries it as the JSON
 * string the journal holds, and it goes into the page's line as those
 * bytes — JSON.stringify of the decoded text would give them back
 * unchanged, since the journal wrote them with JSON.stringify. Only a text
 * longer than the cap (a journal of another version) is decoded and cut.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { RawJournaledCapture } from '../job/capture-journal.js';
import type { JournalSummary } from '../job/journal-summary.js';
import { copyText, decodeTextJson } from '../job/journal-bytes.js';
import { PAGES_HEADER, PageList, type OrderedCandidate, type PageEntry } from './page-list.js';
import type { WrittenPages } from './pages.js';

/** A page's text as its JSON string's UTF-8 bytes (quotes included). */
export type TextJson = Buffer;

const WRITE_CHUNK_BYTES = 1024 * 1024;

export class JournalPageOrder {
  readonly #rank: ReadonlyMap<string, number>;
  readonly #maxTextChars: number;
  readonly markedSeeds = new Set<string>();
  readonly borrowers = new Map<string, number>();
  #lastRank = -1;
  #lastOffset = -1;
  #ordered = true;

  /** `files`: the package's WARC file names in package order; `maxTextChars`: PageCollector's cap. */
  constructor(files: readonly string[], maxTextChars: number) {
    this.#rank = new Map(files.map((f, i) => [f, i]));
    this.#maxTextChars = maxTextChars;
  }

  /** Every capture of the first read, in journal order. */
  readonly onCapture = (c: RawJournaledCapture): void => {
    if (c.seed) this.markedSeeds.add(c.url);
    const rank = this.#rank.get(c.filename);
    if (rank === undefined || rank < this.#lastRank || (rank === this.#lastRank && c.offset <= this.#lastOffset)) this.#ordered = false;
    else {
      this.#lastRank = rank;
      this.#lastOffset = c.offset;
    }
    if (c.page && c.revisit && c.title === undefined && c.textJson === undefined && c.digest !== null) {
      this.borrowers.set(c.digest, (this.borrowers.get(c.digest) ?? 0) + 1);
    }
  };

  /** Instead of every capture: the summary the journal's writer kept of them (journal-summary.ts). */
  readonly onSummary = (s: JournalSummary): void => {
    for (const url of s.markedSeeds) this.markedSeeds.add(url);
    for (const [digest, n] of s.borrowers) this.borrowers.set(digest, (this.borrowers.get(digest) ?? 0) + n);
    // In order: offsets grew within each file, and the files came in package order, each in the package.
    let lastRank = -1;
    for (const [file] of s.files) {
      const rank = this.#rank.get(file);
      if (rank === undefined || rank <= lastRank) this.#ordered = false;
      else lastRank = rank;
    }
    if (!s.inOrder) this.#ordered = false;
  };

  /** Every capture came in package order, each in a file of the package. */
  get ordered(): boolean {
    return this.#ordered;
  }

  /**
   * The candidate PageCollector would have sorted, its text undecoded, or
   * null for a capture that is no page. `textJson`: the capture's text when
   * it comes apart from the capture (live-pages.ts).
   */
  candidateOf(c: RawJournaledCapture, textJson: TextJson | undefined = c.textJson): OrderedCandidate<TextJson> | null {
    if (!c.page) return null;
    let text = textJson === undefined ? undefined : this.#capped(textJson);
    // PageList holds this text until the revisits that borrow it pass: copied out of the journal's read chunk.
    if (text !== undefined && !c.revisit && c.digest !== null && this.borrowers.has(c.digest)) text = copyText(text);
    return {
      url: c.url,
      warcDate: c.date,
      digest: c.digest,
      original: !c.revisit,
      ...(c.title !== undefined ? { title: c.title } : {}),
      ...(text !== undefined ? { text } : {}),
      ...(typeof c.relevance === 'number' ? { relevance: c.relevance } : {}),
    };
  }

  /**
   * The text cut to the cap. A JSON string holds at least as many bytes,
   * and as many characters, as its text has UTF-16 units, plus its two
   * quotes: one within the cap either way is within it decoded, and is
   * kept as it is.
   */
  #capped(textJson: TextJson): TextJson {
    if (textJson.length - 2 <= this.#maxTextChars) return textJson;
    // Its characters before the escapes are read (natively): never fewer than the text has.
    if (textJson.toString('utf8').length - 2 <= this.#maxTextChars) return textJson;
    const text = decodeTextJson(textJson);
    return text.length <= this.#maxTextChars ? textJson : Buffer.from(JSON.stringify(text.slice(0, this.#maxTextChars)), 'utf8');
  }
}

/** A candidate with its text decoded, for PageCollector's sort. */
export function decodedCandidate(c: OrderedCandidate<TextJson>): OrderedCandidate {
  const { text, ...rest } = c;
  return text === undefined ? rest : { ...rest, text: decodeTextJson(text) };
}

/**
 * A page's pages.jsonl line (no newline) in pieces: what JSON.stringify(page)
 * gives for the decoded text, key for key, with the text's bytes as they are.
 */
export function pageLineParts(page: PageEntry<TextJson>): (string | Buffer)[] {
  const { text, relevance, ...head } = page;
  if (text === undefined) return [JSON.stringify(page)];
  const tail = relevance !== undefined ? `,"relevance":${JSON.stringify(relevance)}}` : '}';
  return [`${JSON.stringify(head).slice(0, -1)},"text":`, text, tail];
}

/** A page's pages.jsonl line, whole. */
export function pageLine(page: PageEntry<TextJson>): Buffer {
  return Buffer.concat(pageLineParts(page).map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/**
 * Parts of lines (strings, and texts as bytes) gathered into chunks of
 * `chunkBytes`, each handed to `emit` once full: a chunk costs its
 * consumer a trip (a stream write, deflate's thread), and copying into one
 * allocates nothing per line. A part larger than a chunk goes alone, copied
 * (a text's bytes may be a view of a buffer its owner reuses).
 */
export class PartChunks {
  readonly #chunkBytes: number;
  readonly #emit: (chunk: Buffer) => void;
  #chunk: Buffer;
  #used = 0;

  constructor(chunkBytes: number, emit: (chunk: Buffer) => void) {
    this.#chunkBytes = chunkBytes;
    this.#emit = emit;
    this.#chunk = Buffer.allocUnsafe(chunkBytes);
  }

  add(part: string | Buffer): void {
    const bytes = typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : part.length;
    if (this.#used + bytes > this.#chunkBytes) this.flush();
    if (bytes > this.#chunkBytes) {
      this.#emit(typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part));
      return;
    }
    if (typeof part === 'string') this.#chunk.write(part, this.#used, 'utf8');
    else part.copy(this.#chunk, this.#used);
    this.#used += bytes;
  }

  /** What is gathered goes out; the chunk is handed over and a new one begun. */
  flush(): void {
    if (this.#used === 0) return;
    const full = this.#chunk.subarray(0, this.#used);
    this.#chunk = Buffer.allocUnsafe(this.#chunkBytes);
    this.#used = 0;
    this.#emit(full);
  }
}

/** PartChunks of WRITE_CHUNK_BYTES written to `out`, waiting for 'drain' (racing `failed`) when it asks. */
class ChunkedOut {
  readonly #out: Writable;
  readonly #failed: Promise<never>;
  readonly #ready: Buffer[] = [];
  readonly #chunks = new PartChunks(WRITE_CHUNK_BYTES, (chunk) => this.#ready.push(chunk));

  constructor(out: Writable, failed: Promise<never>) {
    this.#out = out;
    this.#failed = failed;
  }

  async add(parts: readonly (string | Buffer)[]): Promise<void> {
    for (const part of parts) this.#chunks.add(part);
    await this.#write();
  }

  async flush(): Promise<void> {
    this.#chunks.flush();
    await this.#write();
  }

  async #write(): Promise<void> {
    for (const chunk of this.#ready.splice(0)) {
      if (!this.#out.write(chunk)) await Promise.race([once(this.#out, 'drain'), this.#failed]);
    }
  }
}

/**
 * pages.jsonl from captures in package order, written into `out` (the
 * package's entry), which is ended; `failed` rejects if the package can no
 * longer be written. `each` is called with a function to hand every
 * capture to, in order (the caller's pass over the journal, which does its
 * other work on the way).
 */
export async function writeOrderedPages(
  out: Writable,
  failed: Promise<never>,
  order: JournalPageOrder,
  seeds: readonly string[],
  each: (take: (c: RawJournaledCapture) => Promise<void>) => Promise<void>,
): Promise<WrittenPages> {
  const list = new PageList<TextJson>({ seeds, markedSeeds: order.markedSeeds, borrowers: order.borrowers });
  const chunks = new ChunkedOut(out, failed);
  await chunks.add([`${JSON.stringify(PAGES_HEADER)}\n`]);
  await each(async (c) => {
    const candidate = order.candidateOf(c);
    const page = candidate === null ? null : list.next(candidate);
    if (page !== null) await chunks.add([...pageLineParts(page), '\n']);
  });
  await chunks.flush();
  out.end();
  return { pages: list.count, main: list.mainPage() };
}
