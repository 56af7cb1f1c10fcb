/**
 * Reads WARC files (gzipped or not, ours or any other tool's; records from
 * warc-records.ts) and reports each capture that matters to the link graph
 * to a CaptureSink: HTML pages with their links, redirects with their
 * targets, and revisits. Everything else is skipped as it goes by.
 *
 * Bad input never stops the run: a file that is not a WARC, a record with a
 * broken HTTP head, a body that cannot be decoded, or a truncated/corrupt
 * stream gives one warning naming the file and offset, is counted, and the
 * reader moves on (to the next record, or to the next file when the stream
 * itself cannot be resynchronised).
 */
import { open } from 'node:fs/promises';
import { normalizeCaptureUrl, resolveLinks } from './link-extract.js';
import { pageLinksHere, type PageBody, type PageLinks } from './page-links.js';
import { BodyDecodeError, BrokenRecordError, WarcFormatError } from './errors.js';
import { parseHttpHead, readWarcRecords, WARC_RECORDS_DEFAULTS, type WarcRecord } from './warc-records.js';

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
/** Only these records' blocks are needed (the HTTP head, and the body of pages). */
const KEPT_BLOCKS: ReadonlySet<string> = new Set(['response', 'revisit']);
/** Pages whose links may be being extracted at once before reading waits for the oldest. */
const EXTRACT_WINDOW = 256;

/** Reads a page's title and links from its body, here or elsewhere (PageLinksPool); null: no HTML after all. */
export type PageLinksFn = (page: PageBody) => Promise<PageLinks | null>;

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
    let head: Buffer;
    let size: number;
    try {
      const fh = await open(file, 'r');
      try {
        size = (await fh.stat()).size;
        head = Buffer.alloc(5);
        head = head.subarray(0, (await fh.read(head, 0, 5, 0)).bytesRead);
      } finally {
        await fh.close();
      }
    } catch (err) {
      this.hooks.warn(`${file}: cannot read: ${(err as Error).message}; file skipped`);
      this.stats.skippedFiles++;
      return;
    }
    if (!isWarcStart(head)) {
      this.hooks.warn(`${file}: not a WARC file (offset 0); file skipped`);
      this.stats.skippedFiles++;
      return;
    }
    this.stats.files++;
    try {
      await this.readRecords(file);
    } catch (err) {
      if (!(err instanceof WarcFormatError)) throw err;
      // No record boundary after this point can be trusted: the rest of the file is lost.
      this.stats.skippedRecords++;
      this.hooks.warn(
        err.problem === 'truncated'
          ? `${file}: truncated or unreadable data at offset ${err.offset} (${size - err.offset} bytes to end of file); skipped`
          : err.problem === 'not-a-record'
            ? `${file}: no WARC record at offset ${err.offset}; rest of file skipped`
            : `${file}: unreadable WARC data at offset ${err.offset}: ${err.message}; rest of file skipped`,
      );
    }
  }

  private async readRecords(file: string): Promise<void> {
    const records = readWarcRecords(file, {
      ...WARC_RECORDS_DEFAULTS,
      keepBlockOf: KEPT_BLOCKS,
      onBytesRead: (bytes) => void (this.stats.bytesRead += bytes),
    });
    for await (const record of records) {
      this.stats.records++;
      const skipped = (err: unknown, offset: number): void => {
        this.stats.skippedRecords++;
        const what = err instanceof BodyDecodeError ? 'undecodable body' : 'unreadable record';
        this.hooks.warn(`${file}: ${what} at offset ${offset} (${record.targetUri ?? 'no URI'}): ${(err as Error).message}; record skipped`);
      };
      try {
        this.handle(record, skipped);
      } catch (err) {
        skipped(err, record.offset);
      }
      await this.#drain(EXTRACT_WINDOW);
      if (record.truncated) {
        this.stats.skippedRecords++;
        this.hooks.warn(`${file}: truncated record at offset ${record.offset} (${record.targetUri ?? 'no URI'}); rest of file skipped`);
        return;
      }
      this.hooks.progress?.(this.stats.records, this.stats.bytesRead, file);
    }
  }

  private handle(record: WarcRecord, skipped: (err: unknown, offset: number) => void): void {
    const type = record.type;
    if (type !== 'response' && type !== 'revisit') return;
    const url = normalizeCaptureUrl(record.targetUri ?? '');
    // dns:, whois: and other non-HTTP captures are not pages; not an error.
    if (url === null) return;
    const href = url.href;
    this.#emit(() => this.sink.captured(href));
    const http = parseHttpHead(record.block);
    if (type === 'revisit' && http === null) {
      const refersTo = record.headers.get('warc-refers-to-target-uri') ?? null;
      this.#emit(() => this.sink.revisit(href, refersTo, null));
      return;
    }
    const status = http === null ? NaN : http.status;
    if (http === null || !Number.isInteger(status) || status < 100 || status > 599) {
      throw new BrokenRecordError(http === null ? 'no HTTP head' : `bad HTTP status line "${http.statusline}"`);
    }
    const headers = http.headers;
    if (status >= 300 && status < 400) {
      const location = headers.get('location');
      if (location !== undefined && location.trim() !== '') {
        const target = resolveLinks(url, { hrefs: [location], baseHref: null, title: '' })[0];
        if (target !== undefined) this.#emit(() => this.sink.redirect(href, target));
      }
      return;
    }
    if (status < 200 || status >= 300) return;
    const contentType = headers.get('content-type') ?? null;
    const mime = mimeOf(contentType);
    if (mime !== null && !HTML_TYPES.has(mime)) return;
    if (type === 'revisit') {
      const refersTo = record.headers.get('warc-refers-to-target-uri') ?? null;
      if (mime !== null) this.#emit(() => this.sink.revisit(href, refersTo, true));
      return;
    }
    const page: PageBody = {
      body: record.block.subarray(http.bodyStart),
      url: href,
      contentType,
      contentEncoding: headers.get('content-encoding') ?? null,
      chunked: (headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked'),
      sniff: mime === null,
    };
    if (this.extract === null) {
      const found = pageLinksHere(page);
      if (found !== null) this.#emit(() => this.sink.page(href, found.title, found.links));
      return;
    }
    // Read elsewhere; the sink hears of it in record order all the same.
    const offset = record.offset;
    const entry: Ordered = { ready: false, apply: () => {}, settled: Promise.resolve() };
    entry.settled = this.extract(page).then(
      (found) => {
        if (found !== null) entry.apply = () => this.sink.page(href, found.title, found.links);
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
