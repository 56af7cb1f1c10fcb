/**
 * Streams WARC files (gzipped or not, ours or any other tool's) through
 * warcio's WARCParser and reports each capture that matters to the link
 * graph to a CaptureSink: HTML pages with their links, redirects with their
 * targets, and revisits. Everything else is skipped without reading its body.
 *
 * Bad input never stops the run: a file that is not a WARC, a record with a
 * broken HTTP head, a body that cannot be decoded, or a truncated/corrupt
 * stream gives one warning naming the file and offset, is counted, and the
 * reader moves on (to the next record, or to the next file when the stream
 * itself cannot be resynchronised).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { LimitReader, WARCParser, type WARCRecord } from 'warcio';
import { dechunk, decodeContent, decodeText, sniffHtmlCharset, DEFAULT_BODY_DECODE } from './body-decode.js';
import { normalizeCaptureUrl, resolveLinks } from './link-extract.js';
import { pageLinksHere, type PageLinks } from './page-links.js';
import { BodyDecodeError, BrokenRecordError } from './errors.js';

/** Receives the captures; the graph builder implements it. */
export interface CaptureSink {
  /** Any http(s) response or revisit, page or not: tells uncaptured link targets from captured non-pages. */
  captured(url: string): void;
  /** A 2xx HTML capture and its resolved http(s) links (duplicates possible). */
  page(url: string, title: string, links: string[]): void;
  /** A 3xx capture with a Location, resolved against the URL. */
  redirect(url: string, location: string): void;
  /**
   * A revisit. `isPage` true: its HTTP head says 2xx HTML; null: no usable
   * head, so it is a page exactly when what it refers to is.
   */
  revisit(url: string, refersTo: string | null, isPage: boolean | null): void;
}

export interface ReadStats {
  files: number;
  /** Files given or found that are not WARCs. */
  skippedFiles: number;
  records: number;
  /** Records that could not be read (broken head, undecodable body, corrupt stream). */
  skippedRecords: number;
  bytesRead: number;
}

export interface ReaderHooks {
  warn(message: string): void;
  progress?(records: number, bytesRead: number, file: string): void;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Pages whose links may be being extracted at once before reading waits for the oldest. */
const EXTRACT_WINDOW = 256;

/** Extracts a page's title and links, here or elsewhere (PageLinksPool). */
export type PageLinksFn = (html: string, url: string) => Promise<PageLinks>;

/** A sink call waiting for the pages before it: calls reach the sink in record order. */
interface Ordered {
  ready: boolean;
  apply: () => void;
  settled: Promise<void>;
}

function mimeOf(contentType: string | null): string | null {
  if (contentType === null) return null;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** For a record without Content-Type: does the body start like an HTML document? */
function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 256))
    .toString('latin1')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

export class WarcReader {
  readonly stats: ReadStats = { files: 0, skippedFiles: 0, records: 0, skippedRecords: 0, bytesRead: 0 };
  /** Sink calls held back behind a page still being extracted, oldest first. */
  readonly #ordered: Ordered[] = [];

  /** `extract`: where pages' links are extracted (a PageLinksPool); default this thread. */
  constructor(
    private readonly sink: CaptureSink,
    private readonly hooks: ReaderHooks,
    private readonly extract: PageLinksFn | null = null,
  ) {}

  async readFiles(files: readonly string[]): Promise<ReadStats> {
    for (const file of files) await this.readFile(file);
    await this.#drain(0);
    return this.stats;
  }

  /** Call the sink now, or after the calls queued before it. */
  #emit(apply: () => void): void {
    if (this.#ordered.length === 0) apply();
    else this.#ordered.push({ ready: true, apply, settled: Promise.resolve() });
  }

  /** Run the ready calls at the head; then wait while more than `window` are held. */
  async #drain(window: number): Promise<void> {
    for (;;) {
      while (this.#ordered[0]?.ready === true) (this.#ordered.shift() as Ordered).apply();
      const head = this.#ordered[0];
      if (head === undefined || this.#ordered.length <= window) return;
      await head.settled;
    }
  }

  async readFile(file: string): Promise<void> {
    const stream = createReadStream(file, { highWaterMark: 1 << 16 });
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
      let first: IteratorResult<Buffer>;
      try {
        first = await chunks.next();
      } catch (err) {
        this.hooks.warn(`${file}: cannot read: ${(err as Error).message}; file skipped`);
        this.stats.skippedFiles++;
        return;
      }
      if (first.done || !isWarcStart(first.value)) {
        this.hooks.warn(`${file}: not a WARC file (offset 0); file skipped`);
        this.stats.skippedFiles++;
        return;
      }
      this.stats.files++;
      const counted = this.countBytes(first.value, chunks);
      await this.readRecords(file, (await stat(file)).size, counted);
    } finally {
      stream.destroy();
    }
  }

  private async *countBytes(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Uint8Array> {
    this.stats.bytesRead += first.length;
    yield first;
    for (;;) {
      const r = await rest.next();
      if (r.done) return;
      this.stats.bytesRead += r.value.length;
      yield r.value;
    }
  }

  private async readRecords(file: string, fileSize: number, source: AsyncIterable<Uint8Array>): Promise<void> {
    const parser = new WARCParser(source);
    const iter = parser[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<WARCRecord>;
      try {
        next = await iter.next();
      } catch (err) {
        // The stream itself is broken (truncated or corrupt gzip, garbage between records):
        // warcio cannot find the next record boundary, so the rest of the file is lost.
        this.stats.skippedRecords++;
        this.hooks.warn(
          `${file}: unreadable WARC data at offset ${parser.offset}: ${(err as Error).message}; rest of file skipped`,
        );
        return;
      }
      if (next.done) {
        // warcio ends silently when the file ends inside a gzip member or a record head:
        // anything between where it stopped and the end of the file was lost.
        const end = parser._reader.getRawOffset();
        if (end < fileSize) {
          this.stats.skippedRecords++;
          this.hooks.warn(`${file}: truncated or unreadable data at offset ${end} (${fileSize - end} bytes to end of file); skipped`);
        }
        return;
      }
      const record = next.value;
      this.stats.records++;
      if (!(record.warcHeaders.protocol ?? '').startsWith('WARC/')) {
        this.stats.skippedRecords++;
        this.hooks.warn(`${file}: no WARC record at offset ${parser.offset}; rest of file skipped`);
        return;
      }
      const skipped = (err: unknown, offset: number): void => {
        this.stats.skippedRecords++;
        const what = err instanceof BodyDecodeError ? 'undecodable body' : 'unreadable record';
        this.hooks.warn(`${file}: ${what} at offset ${offset} (${record.warcTargetURI ?? 'no URI'}): ${(err as Error).message}; record skipped`);
      };
      try {
        await this.handle(record, skipped, parser.offset);
      } catch (err) {
        skipped(err, parser.offset);
      }
      await this.#drain(EXTRACT_WINDOW);
      if (await this.wasTruncated(record)) {
        this.stats.skippedRecords++;
        this.hooks.warn(`${file}: truncated record at offset ${parser.offset} (${record.warcTargetURI ?? 'no URI'}); rest of file skipped`);
        return;
      }
      this.hooks.progress?.(this.stats.records, this.stats.bytesRead, file);
    }
  }

  /**
   * Read what is left of the record ourselves, then tell whether the file
   * ended before its Content-Length. We never leave the skipping to warcio:
   * its LimitReader.skipFully() loops forever when the file ends inside the
   * record being skipped (skipSize returns 0 at end of stream).
   */
  private async wasTruncated(record: WARCRecord): Promise<boolean> {
    const body = record._reader;
    if (!record.consumed) {
      for await (const chunk of body) void chunk;
      record.consumed = 'skipped';
    }
    return body instanceof LimitReader && body.limit > 0;
  }

  private async handle(record: WARCRecord, skipped: (err: unknown, offset: number) => void, offset: number): Promise<void> {
    const type = record.warcType;
    if (type !== 'response' && type !== 'revisit') return;
    const url = normalizeCaptureUrl(record.warcTargetURI ?? '');
    // dns:, whois: and other non-HTTP captures are not pages; not an error.
    if (url === null) return;
    const href = url.href;
    this.#emit(() => this.sink.captured(href));
    const http = record.httpHeaders;
    if (type === 'revisit' && http === null) {
      const refersTo = record.warcHeader('WARC-Refers-To-Target-URI') ?? null;
      this.#emit(() => this.sink.revisit(href, refersTo, null));
      return;
    }
    const status = http === null ? NaN : Number(http.statusCode);
    if (http === null || !Number.isInteger(status) || status < 100 || status > 599) {
      throw new BrokenRecordError(http === null ? 'no HTTP head' : `bad HTTP status line "${http.statusline}"`);
    }
    const headers = { get: (name: string): string | null => http.headers.get(name) ?? null };
    if (status >= 300 && status < 400) {
      const location = headers.get('location');
      if (location !== null && location.trim() !== '') {
        const target = resolveLinks(url, { hrefs: [location], baseHref: null, title: '' })[0];
        if (target !== undefined) this.#emit(() => this.sink.redirect(href, target));
      }
      return;
    }
    if (status < 200 || status >= 300) return;
    const contentType = headers.get('content-type');
    const mime = mimeOf(contentType);
    if (mime !== null && !HTML_TYPES.has(mime)) return;
    if (type === 'revisit') {
      const refersTo = record.warcHeader('WARC-Refers-To-Target-URI') ?? null;
      if (mime !== null) this.#emit(() => this.sink.revisit(href, refersTo, true));
      return;
    }
    let body: Uint8Array = await record.readFully(false);
    if ((headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
    body = decodeContent(body, headers.get('content-encoding'), DEFAULT_BODY_DECODE);
    if (mime === null && !looksLikeHtml(body)) return;
    const html = decodeText(body, sniffHtmlCharset(contentType, body));
    if (this.extract === null) {
      const page = pageLinksHere(html, href);
      this.#emit(() => this.sink.page(href, page.title, page.links));
      return;
    }
    // Extracted elsewhere; the sink hears of it in record order all the same.
    const entry: Ordered = { ready: false, apply: () => {}, settled: Promise.resolve() };
    entry.settled = this.extract(html, href).then(
      (page) => {
        entry.apply = () => this.sink.page(href, page.title, page.links);
      },
      (err: unknown) => {
        entry.apply = () => skipped(err, offset);
      },
    ).finally(() => {
      entry.ready = true;
    });
    this.#ordered.push(entry);
  }
}

/** WARC files start with "WARC/" or, gzipped per record, with the gzip magic. */
function isWarcStart(chunk: Buffer): boolean {
  if (chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b) return true;
  return chunk.subarray(0, 5).toString('latin1') === 'WARC/';
}
