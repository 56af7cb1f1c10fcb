/**
 * The page list of a package (`pages/pages.jsonl`): one entry per captured
 * HTML page (2xx response, or a revisit of one) not marked noindex, with its
 * URL, capture time, title and visible text, in WARC order, the first
 * capture of a URL only.
 *
 * Pages come from two places: the capture journal the crawl wrote (title
 * and text already extracted), or records met while indexing WARCs (this
 * parses the HTML). A revisit without text of its own takes the title and
 * text of the capture holding its payload when that is in the package.
 *
 * Memory stays bounded whatever the job's size: candidates go through an
 * external sort (LineSorter) keyed by package order — file rank, offset,
 * then order added, as fixed-width hex so bytewise order is numeric order —
 * and the sorted stream is turned into the list in one pass (PageList) and
 * written line by line to a file.
 */
import { decodeText, detectCharset } from '../fetch/charset.js';
import { dechunk, decodeContentEncoding } from '../fetch/content-decoding.js';
import { robotsDirectivesFromHeaders } from '../fetch/robots-directives.js';
import { AtomicLineFile } from '../index/build-index.js';
import type { CdxjEntry } from '../index/cdxj.js';
import type { IndexedRecord } from '../index/warc-index.js';
import { LineSorter } from '../index/line-sorter.js';
import { loadOnce } from '../core/load-once.js';
import { DEFAULT_MAX_TEXT_CHARS, PAGES_HEADER, PageList, type Borrowed, type OrderedCandidate, type PageRef } from './page-list.js';
import type { PageText } from './page-text.js';
import { isHtmlMime } from '../core/html-mime.js';

/** parse5, loaded for the first page read from a WARC: a package made from the capture journal never needs it. */
const pageTextOf = loadOnce(async () => (await import('./page-text.js')).pageText);

export type { PageEntry } from './page-list.js';

export { PAGES_HEADER } from './page-list.js';

/** Bodies larger than this (decoded) are cut before text extraction. */
const MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** A page as found, before ordering and de-duplication. */
export interface PageCandidate extends OrderedCandidate {
  filename: string;
  offset: number;
}

export interface PageCollectorOptions {
  maxTextChars?: number;
  /** WARC file names in package order; pages are listed in this order, then by offset. */
  files?: readonly string[];
  /** Candidates held in memory before a sorted run is spilled (LineSorter's maxBufferedBytes). Default 64 MiB. */
  sortBufferBytes?: number;
  /** Where spilled runs go (a directory on the job's disk). Default os.tmpdir(). */
  tmpDir?: string;
}

export interface WrittenPages {
  /** Entries written (the header line not counted). */
  pages: number;
  /** See PageList.mainPage(). */
  main: PageRef | null;
}

/** Widths of the sort key's hex fields: file rank, offset (2^56 > any safe integer), order added. */
const RANK_HEX = 8;
const OFFSET_HEX = 14;
const SEQ_HEX = 12;
const KEY_CHARS = RANK_HEX + 1 + OFFSET_HEX + 1 + SEQ_HEX + 1;

/**
 * Lines per sorted batch: a batch holds whole candidates (up to
 * maxTextChars of text each), so it is kept short.
 */
const SORT_BATCH_LINES = 256;

/** A candidate in the sort: url, WARC-Date, digest, 1 for an original, title, text, relevance (null when absent). */
type SortedFields = [string, string, string | null, 0 | 1, string | null, string | null, number | null];

export class PageCollector {
  readonly #sorter: LineSorter;
  readonly #seeds = new Set<string>();
  readonly #maxTextChars: number;
  readonly #fileRank = new Map<string, number>();
  /** Digest → text-less revisits with it: what PageList must keep an original's text for. */
  #borrowers = new Map<string, number>();
  /**
   * Digest → title and text of the first original added after a text-less
   * revisit of it. Read from WARCs, pages are added in package order, so
   * these are the originals PageList meets after a revisit that borrows.
   */
  #lateOriginals = new Map<string, Borrowed>();
  #added = 0;

  constructor(opts: PageCollectorOptions = {}) {
    this.#maxTextChars = opts.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
    this.#sorter = new LineSorter({
      batchLines: SORT_BATCH_LINES,
      ...(opts.sortBufferBytes !== undefined ? { maxBufferedBytes: opts.sortBufferBytes } : {}),
      ...(opts.tmpDir !== undefined ? { tmpDir: opts.tmpDir } : {}),
    });
    for (const f of opts.files ?? []) this.#rank(f);
  }

  /** The cap on a page's text. */
  get maxTextChars(): number {
    return this.#maxTextChars;
  }

  /** Sorted runs spilled to disk so far. */
  get runs(): number {
    return this.#sorter.runs;
  }

  /** A page known without reading its record (the capture journal). Settles once it is buffered (or spilled). */
  async add(page: PageCandidate, seed = false): Promise<void> {
    if (seed) this.#seeds.add(page.url);
    let text = page.text;
    if (text !== undefined && text.length > this.#maxTextChars) text = text.slice(0, this.#maxTextChars);
    if (!page.original && page.title === undefined && text === undefined && page.digest !== null) {
      this.#borrowers.set(page.digest, (this.#borrowers.get(page.digest) ?? 0) + 1);
    } else if (page.original && page.digest !== null && this.#borrowers.has(page.digest) && !this.#lateOriginals.has(page.digest)) {
      this.#lateOriginals.set(page.digest, { ...(page.title !== undefined ? { title: page.title } : {}), ...(text !== undefined ? { text } : {}) });
    }
    const fields: SortedFields = [page.url, page.warcDate, page.digest, page.original ? 1 : 0, page.title ?? null, text ?? null, page.relevance ?? null];
    const key = `${hex(this.#rank(page.filename), RANK_HEX)} ${hex(page.offset, OFFSET_HEX)} ${hex(this.#added++, SEQ_HEX)}`;
    if (!this.#sorter.add(`${key} ${JSON.stringify(fields)}`)) await this.#sorter.spill();
  }

  /** A URL the crawl had as a seed (metadata `seed: true`), page or not. */
  addSeed(url: string): void {
    this.#seeds.add(url);
  }

  /** For indexWarcs' `onIndexed`. */
  readonly onIndexed = async (record: IndexedRecord, entry: CdxjEntry): Promise<void> => {
    const head = record.http;
    if (head === null || entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const mime = (head.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!isHtmlMime(mime) || record.date === null) return;
    if (robotsDirectivesFromHeaders(record.httpHeaderList()).noindex) return;
    const original = record.type === 'response';
    const page: PageCandidate = { url: entry.url, warcDate: record.date, digest: entry.digest, original, filename: entry.filename, offset: entry.offset };
    if (original) {
      const text = await this.#extract(record);
      if (text.noindex) return;
      if (text.title) page.title = text.title;
      if (text.text) page.text = text.text;
    }
    await this.add(page);
  };

  /** For indexWarcs' `onRecord`: a metadata record saying `seed: true` marks its URL a seed. */
  readonly onRecord = async (record: IndexedRecord): Promise<void> => {
    if (record.type !== 'metadata') return;
    const fields = record.payload().toString('utf8');
    if (/^seed: true\r?$/m.test(fields)) this.addSeed(record.url);
  };

  /**
   * Write pages.jsonl to `file` (the header line, then one line per page;
   * atomically) and choose the main page among `seeds` (see PageList).
   * Runs once: the sorted runs are removed as it ends.
   */
  async writeJsonl(file: string, seeds: readonly string[] = []): Promise<WrittenPages> {
    const list = new PageList({ seeds, markedSeeds: this.#seeds, borrowers: this.#borrowers, lateOriginals: this.#lateOriginals });
    this.#borrowers = new Map();
    this.#lateOriginals = new Map();
    await AtomicLineFile.write(file, async (out) => {
      await out.add([JSON.stringify(PAGES_HEADER)]);
      for await (const batch of this.#sorter.batches()) {
        const lines: string[] = [];
        for (const line of batch) {
          const page = list.next(candidateOf(line));
          if (page !== null) lines.push(JSON.stringify(page));
        }
        await out.add(lines);
      }
    });
    return { pages: list.count, main: list.mainPage() };
  }

  /** Drop what is buffered and remove spilled runs. Idempotent; writeJsonl() does it when it ends. */
  close(): Promise<void> {
    return this.#sorter.close();
  }

  #rank(filename: string): number {
    let r = this.#fileRank.get(filename);
    if (r === undefined) {
      r = this.#fileRank.size;
      this.#fileRank.set(filename, r);
    }
    return r;
  }

  #extract(record: IndexedRecord): Promise<PageText> {
    return recordPageText(record, this.#maxTextChars);
  }
}

/**
 * Title, visible text and meta-robots noindex of an HTML response record:
 * chunked framing and Content-Encoding undone, the charset detected as the
 * crawl does (BOM, Content-Type, <meta>, then UTF-8 or windows-1252). Reads
 * the record's body. Also used by the search index for WARCs.
 */
export async function recordPageText(record: IndexedRecord, maxTextChars = DEFAULT_MAX_TEXT_CHARS): Promise<PageText> {
  const head = record.http!;
  const contentType = head.headers.get('content-type') ?? undefined;
  let body: Uint8Array = record.payload();
  // Another tool's WARC may have kept the chunk framing (dechunk leaves a body that is not chunked as it is).
  if ((head.headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
  const decoded = await decodeContentEncoding(once(body), head.headers.get('content-encoding') ?? undefined, MAX_DECODED_BYTES);
  const bytes = decoded.bytes;
  const html = decodeText(bytes, detectCharset(bytes, contentType));
  return (await pageTextOf())(html, maxTextChars);
}

async function* once(chunk: Uint8Array): AsyncIterable<Uint8Array> {
  yield chunk;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** A sorted line back into the candidate it was made from. */
function candidateOf(line: string): OrderedCandidate {
  const [url, warcDate, digest, original, title, text, relevance] = JSON.parse(line.slice(KEY_CHARS)) as SortedFields;
  return {
    url,
    warcDate,
    digest,
    original: original === 1,
    ...(title !== null ? { title } : {}),
    ...(text !== null ? { text } : {}),
    ...(typeof relevance === 'number' ? { relevance } : {}),
  };
}
