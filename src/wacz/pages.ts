/**
 * The page list of a package (`pages/pages.jsonl`): one entry per captured
 * HTML page (2xx response, or a revisit of one) with its URL, capture time,
 * title and visible text. Fed record by record during the indexing pass, so
 * the WARCs are parsed once. Revisits take title and text from the capture
 * holding their payload when it is in the same package.
 */
import type { WARCRecord } from 'warcio';
import { decodeContentEncoding, decodeText, detectCharset } from '../fetch/content-decoding.js';
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

export interface PageCollectorOptions {
  maxTextChars?: number;
}

export class PageCollector {
  readonly #pages: PageEntry[] = [];
  readonly #seen = new Set<string>();
  readonly #seeds = new Set<string>();
  /** Title and text by payload digest, for revisits of pages in the same package. */
  readonly #byDigest = new Map<string, PageText>();
  readonly #maxTextChars: number;

  constructor(opts: PageCollectorOptions = {}) {
    this.#maxTextChars = opts.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  }

  /** For indexWarcs' `onIndexed`. */
  readonly onIndexed = async (record: WARCRecord, entry: CdxjEntry): Promise<void> => {
    const head = record.httpHeaders;
    if (!head || entry.status === null || entry.status < 200 || entry.status >= 300) return;
    const mime = (head.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!HTML_TYPES.has(mime)) return;
    const ts = record.warcDate ? new Date(Date.parse(record.warcDate)).toISOString() : '';
    let text: PageText | undefined;
    if (record.warcType === 'response') {
      text = await this.#extract(record);
      if (entry.digest !== null) this.#byDigest.set(entry.digest, text);
    } else if (entry.digest !== null) {
      text = this.#byDigest.get(entry.digest);
    }
    if (this.#seen.has(entry.url)) return;
    this.#seen.add(entry.url);
    const page: PageEntry = { url: entry.url, ts };
    if (text?.title) page.title = text.title;
    if (text?.text) page.text = text.text;
    this.#pages.push(page);
  };

  /** For indexWarcs' `onRecord`: a metadata record saying `seed: true` marks its URL a seed. */
  readonly onRecord = async (record: WARCRecord): Promise<void> => {
    if (record.warcType !== 'metadata') return;
    const fields = Buffer.from(await record.readFully(false)).toString('utf8');
    if (/^seed: true\r?$/m.test(fields)) this.#seeds.add((record.warcTargetURI ?? '').replace(/^<(.*)>$/, '$1'));
  };

  get pages(): readonly PageEntry[] {
    return this.#pages;
  }

  /**
   * The page a viewer opens first: the first of `seeds` (the profile's
   * order) that was captured as a page; else the earliest page the WARCs
   * mark as a seed; else the earliest page. Null for a package without pages.
   */
  mainPage(seeds: readonly string[] = []): PageEntry | null {
    for (const seed of seeds) {
      const page = this.#pages.find((p) => p.url === seed);
      if (page) return page;
    }
    const byTime = [...this.#pages].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
    return byTime.find((p) => this.#seeds.has(p.url)) ?? byTime[0] ?? null;
  }

  /** pages.jsonl: the header line, then one line per page. */
  jsonl(): string {
    return [PAGES_HEADER, ...this.#pages].map((o) => JSON.stringify(o)).join('\n') + '\n';
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
