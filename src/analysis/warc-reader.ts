/**
 * Reads WARC files (gzipped or not, ours or any other tool's; records from
 * warc/warc-records.ts) and reports each capture that matters to the link
 * graph to a CaptureSink: HTML pages with their links, redirects with their
 * targets, and revisits. Everything else is skipped as it goes by.
 *
 * Bad input never stops the run: a file that is not a WARC, a record with a
 * broken HTTP head, a body that cannot be decoded, or a cut or corrupt
 * stretch of a file gives one warning naming the file and offset (damage in
 * the words of warc/warc-damage.ts, as every command gives it), is counted,
 * and the reader moves on (to the next record, or past the damage).
 */
import { normalizeCaptureUrl, resolveLinks } from './link-extract.js';
import { pageLinksHere, type PageBody, type PageLinks } from './page-links.js';
import { BodyDecodeError } from '../core/errors.js';
import { BrokenRecordError } from './errors.js';
import { describeWarcDamage, type WarcDamage } from '../warc/warc-damage.js';
import { parseHttpHead, readWarcRecords, WARC_RECORDS_DEFAULTS, warcSource, type WarcRecord, type WarcSource } from '../warc/warc-records.js';

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
   * head (or no Content-Type), so it is a page exactly when what it refers
   * to is. `digest`: its WARC-Payload-Digest.
   */
  revisit(url: string, refersTo: string | null, isPage: boolean | null, digest: string | null): void;
}

/** Told where each 2xx response that may be a page is, so a revisit's original can be read again (revisit-originals.ts). */
export interface ResponseLocations {
  response(url: string, source: number, offset: number): void;
}

export interface ReadStats {
  files: number;
  /** Files given or found that are not WARCs. */
  skippedFiles: number;
  records: number;
  /** Records that could not be read (broken head, undecodable body, cut short). */
  skippedRecords: number;
  /** Cut or corrupt stretches of WARC files, skipped (each one warned about). */
  damaged: number;
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
  readonly stats: ReadStats = { files: 0, skippedFiles: 0, records: 0, skippedRecords: 0, damaged: 0, bytesRead: 0 };
  /** Sink calls held back behind a page still being extracted, oldest first. */
  readonly #ordered: Ordered[] = [];
  /** Index in readFiles' list of the file being read. */
  #source = 0;

  /** `extract`: where pages' links are extracted (a PageLinksPool); default this thread. */
  constructor(
    private readonly sink: CaptureSink,
    private readonly hooks: ReaderHooks,
    private readonly extract: PageLinksFn | null = null,
    private readonly locations: ResponseLocations | null = null,
  ) {}

  async readFiles(files: readonly (string | WarcSource)[]): Promise<ReadStats> {
    for (const [i, file] of files.entries()) {
      this.#source = i;
      await this.readFile(file);
    }
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

  async readFile(file: string | WarcSource): Promise<void> {
    const source = warcSource(file);
    let isWarc = true;
    const onDamage = (damage: WarcDamage): void => {
      if (damage.problem === 'not-a-warc') {
        isWarc = false;
        this.stats.skippedFiles++;
      } else {
        this.stats.damaged++;
      }
      this.hooks.warn(describeWarcDamage(damage));
    };
    try {
      await this.readRecords(source, onDamage);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || !code.startsWith('E')) throw err;
      this.hooks.warn(`${source.name}: cannot read (${code}); file skipped`);
      this.stats.skippedFiles++;
      return;
    }
    if (isWarc) this.stats.files++;
  }

  private async readRecords(source: WarcSource, onDamage: (damage: WarcDamage) => void): Promise<void> {
    const file = source.name;
    const records = readWarcRecords(source, {
      ...WARC_RECORDS_DEFAULTS,
      keepBlockOf: KEPT_BLOCKS,
      onBytesRead: (bytes) => void (this.stats.bytesRead += bytes),
      onDamage,
    });
    for await (const record of records) {
      this.stats.records++;
      // Reported as damage by the reader; what it holds is not the whole record.
      if (record.truncated) {
        this.stats.skippedRecords++;
        continue;
      }
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
    const refersTo = record.headers.get('warc-refers-to-target-uri') ?? null;
    const digest = record.headers.get('warc-payload-digest') ?? null;
    if (type === 'revisit' && http === null) {
      this.#emit(() => this.sink.revisit(href, refersTo, null, digest));
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
      this.#emit(() => this.sink.revisit(href, refersTo, mime === null ? null : true, digest));
      return;
    }
    this.locations?.response(href, this.#source, record.offset);
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
