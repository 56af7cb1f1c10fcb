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
 */
import type { WARCRecord } from 'warcio';
import { decodeContentEncoding, decodeText, detectCharset } from '../fetch/content-decoding.js';
import { robotsDirectivesFromHeaders } from '../fetch/robots-directives.js';
import type { CdxjEntry } from '../index/cdxj.js';
import { DEFAULT_MAX_TEXT_CHARS, pageText, type PageText } from './page-text.js';

export interface PageEntry {
  url: string;
  /** ISO 8601, the capture's WARC-Date. */
  ts: string;
  title?: string;
  text?: string;
}

export const PAGES_HEADER = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true } as const;

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Bodies larger than this (decoded) are cut before text extraction. */
const MAX_DECODED_BYTES = 8 * 1024 * 1024;

/** A page as found, before ordering and de-duplication. */
export interface PageCandidate {
  url: string;
  /** WARC-Date as written. */
  warcDate: string;
  digest: string | null;
  /** A response (its text is the payload's; revisits may borrow it). */
  original: boolean;
  filename: string;
  offset: number;
  title?: string;
  text?: string;
}

export interface PageCollectorOptions {
  maxTextChars?: number;
  /** WARC file names in package order; pages are listed in this order, then by offset. */
  files?: readonly string[];
}

export class PageCollector {
  readonly #candidates: PageCandidate[] = [];
  readonly #seeds = new Set<string>();
  readonly #maxTextChars: number;
  readonly #fileRank = new Map<string, number>();
  #pages: PageEntry[] | null = null;

  constructor(opts: PageCollectorOptions = {}) {
    this.#maxTextChars = opts.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
    for (const f of opts.files ?? []) this.#rank(f);
  }

  /** A page known without reading its record (the capture journal). */
  add(page: PageCandidate, seed = false): void {
    this.#rank(page.filename);
    this.#candidates.push(page);
    this.#pages = null;
    if (seed) this.#seeds.add(page.url);
  }

  /** A URL the crawl had as a seed (metadata `seed: true`), page or not. */
  addSeed(url: string): void {
    this.#seeds.add(url);
  }

  /** For indexWarcs' `onIndexed`. */
  readonly onIndexed = async (record: WARCRecord, entry: CdxjEntry): Promise<void> => {
    const head = record.httpHeaders;
    if (!head || entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const mime = (head.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!HTML_TYPES.has(mime) || !record.warcDate) return;
    if (robotsDirectivesFromHeaders([...head.headers]).noindex) return;
    const original = record.warcType === 'response';
    const page: PageCandidate = { url: entry.url, warcDate: record.warcDate, digest: entry.digest, original, filename: entry.filename, offset: entry.offset };
    if (original) {
      const text = await this.#extract(record);
      if (text.noindex) return;
      if (text.title) page.title = text.title;
      if (text.text) page.text = text.text;
    }
    this.add(page);
  };

  /** For indexWarcs' `onRecord`: a metadata record saying `seed: true` marks its URL a seed. */
  readonly onRecord = async (record: WARCRecord): Promise<void> => {
    if (record.warcType !== 'metadata') return;
    const fields = Buffer.from(await record.readFully(false)).toString('utf8');
    if (/^seed: true\r?$/m.test(fields)) this.addSeed((record.warcTargetURI ?? '').replace(/^<(.*)>$/, '$1'));
  };

  get pages(): readonly PageEntry[] {
    this.#pages ??= this.#build();
    return this.#pages;
  }

  /**
   * The page a viewer opens first: the first of `seeds` (the profile's
   * order) that was captured as a page; else the earliest page the WARCs
   * mark as a seed; else the earliest page. Null for a package without pages.
   */
  mainPage(seeds: readonly string[] = []): PageEntry | null {
    const pages = this.pages;
    for (const seed of seeds) {
      const page = pages.find((p) => p.url === seed);
      if (page) return page;
    }
    const byTime = [...pages].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    return byTime.find((p) => this.#seeds.has(p.url)) ?? byTime[0] ?? null;
  }

  /** pages.jsonl: the header line, then one line per page. */
  jsonl(): string {
    return [PAGES_HEADER, ...this.pages].map((o) => JSON.stringify(o)).join('\n') + '\n';
  }

  #rank(filename: string): number {
    let r = this.#fileRank.get(filename);
    if (r === undefined) {
      r = this.#fileRank.size;
      this.#fileRank.set(filename, r);
    }
    return r;
  }

  #build(): PageEntry[] {
    const ordered = [...this.#candidates].sort((a, b) => this.#rank(a.filename) - this.#rank(b.filename) || a.offset - b.offset);
    const byDigest = new Map<string, PageCandidate>();
    for (const c of ordered) if (c.original && c.digest !== null && !byDigest.has(c.digest)) byDigest.set(c.digest, c);
    const seen = new Set<string>();
    const pages: PageEntry[] = [];
    for (const c of ordered) {
      if (seen.has(c.url)) continue;
      seen.add(c.url);
      const source = c.original || c.title !== undefined || c.text !== undefined ? c : (c.digest !== null ? byDigest.get(c.digest) : undefined);
      const page: PageEntry = { url: c.url, ts: new Date(Date.parse(c.warcDate)).toISOString() };
      if (source?.title) page.title = source.title;
      if (source?.text) page.text = source.text.length > this.#maxTextChars ? source.text.slice(0, this.#maxTextChars) : source.text;
      pages.push(page);
    }
    return pages;
  }

  async #extract(record: WARCRecord): Promise<PageText> {
    const head = record.httpHeaders!;
    const contentType = head.headers.get('content-type') ?? undefined;
    let bytes: Uint8Array;
    if ((head.headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) {
      // Another tool's WARC that kept chunk framing: warcio de-chunks (and inflates gzip/deflate).
      bytes = await record.readFully(true);
    } else {
      const decoded = await decodeContentEncoding(asAsync(record.reader), head.headers.get('content-encoding') ?? undefined, MAX_DECODED_BYTES);
      bytes = decoded.bytes;
    }
    const html = decodeText(bytes, detectCharset(bytes, contentType));
    return pageText(html, this.#maxTextChars);
  }
}

async function* asAsync(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const chunk of chunks) yield chunk;
}
