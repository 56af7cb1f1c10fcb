/**
 * crawl.log in Heritrix's format, one line per URI that reached a final
 * disposition (fetched, refused, failed), so existing crawl.log tools read
 * ours:
 *
 *   2026-11-29T12:00:00.123Z   200       5123 http://h/p LLE http://h/ text/html #003 20261129120000100+23 sha1:ABC… - 3t
 *
 * log time; status (width 5); size (width 10, or -); URI; hop path; via;
 * mime up to `;`; worker; fetch start (17 digits) `+` duration ms; payload
 * digest; source tag; annotations comma-separated. Empty fields are `-`.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FatalCrawlError } from '../core/errors.js';
import { timestamp17 } from './warc-naming.js';
import { closeStream, corkForTurn, waitDrain } from './write-stream.js';

export interface CrawlLogEntry {
  /** When the line is logged. */
  time: Date;
  /** HTTP status, or Heritrix's negative fetch status. */
  status: number;
  /** Stored body bytes; null when nothing was fetched. */
  size: number | null;
  url: string;
  /** Hop letters from the seed; "" for a seed. */
  hopPath: string;
  via: string | null;
  /** Content-Type (parameters are cut at `;`); null or "" when unknown. */
  mime: string | null;
  /** Worker number, printed `#003`; null when no worker handled the URI (printed `-`). */
  worker: number | null;
  fetchStart: Date | null;
  durationMs: number | null;
  /** Payload digest, `sha1:BASE32`. */
  digest: string | null;
  sourceTag?: string | null;
  annotations: readonly string[];
}

const NA = '-';

function orNa(s: string | null | undefined): string {
  return s === null || s === undefined || s === '' ? NA : s;
}

/** One crawl.log line, newline included. */
export function formatCrawlLogLine(e: CrawlLogEntry): string {
  const mime = e.mime === null ? '' : (e.mime.split(';')[0] ?? '').trim();
  const fetched =
    e.fetchStart !== null && e.durationMs !== null ? `${timestamp17(e.fetchStart)}+${Math.max(0, Math.round(e.durationMs))}` : NA;
  const fields = [
    e.time.toISOString(),
    String(e.status).padStart(5),
    (e.size === null ? NA : String(e.size)).padStart(10),
    e.url,
    orNa(e.hopPath),
    orNa(e.via),
    orNa(mime),
    e.worker === null ? NA : `#${String(e.worker).padStart(3, '0')}`,
    fetched,
    orNa(e.digest),
    orNa(e.sourceTag),
    e.annotations.length > 0 ? e.annotations.join(',') : NA,
  ];
  return fields.join(' ') + '\n';
}

/**
 * An append-only crawl.log. Opening appends, so a resumed crawl continues
 * the same log. write() is synchronous for callers that only fire and
 * forget; the promise it returns resolves when the stream has room again
 * (await it for back-pressure) and never rejects. A failed write makes the
 * next write() and close() throw FatalCrawlError(ARCHIVER_LOG_WRITE).
 */
export class CrawlLog {
  readonly path: string;
  readonly #stream: WriteStream;
  #failure: FatalCrawlError | null = null;
  #closed = false;
  #drained: Promise<void> | null = null;

  private constructor(file: string, stream: WriteStream) {
    this.path = file;
    this.#stream = stream;
    stream.on('error', (err) => {
      this.#failure ??= new FatalCrawlError('ARCHIVER_LOG_WRITE', `crawl.log write failed: ${err.message}`, { cause: err });
    });
  }

  static async open(file: string): Promise<CrawlLog> {
    await mkdir(path.dirname(file), { recursive: true });
    const stream = createWriteStream(file, { flags: 'a' });
    try {
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      });
    } catch (err) {
      throw new FatalCrawlError('ARCHIVER_LOG_WRITE', `cannot open ${file}`, { cause: err });
    }
    return new CrawlLog(file, stream);
  }

  write(entry: CrawlLogEntry): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (this.#closed) throw new FatalCrawlError('ARCHIVER_LOG_WRITE', 'crawl.log is closed');
    corkForTurn(this.#stream);
    if (this.#stream.write(formatCrawlLogLine(entry))) return Promise.resolve();
    // One shared wait per full buffer: a listener per write would make a
    // burst of lines (a page's 100k refused links) quadratic.
    this.#drained ??= waitDrain(this.#stream).then(() => {
      this.#drained = null;
    });
    return this.#drained;
  }

  /** Flush and close; throws the write failure if one happened. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      await closeStream(this.#stream, 'end');
    }
    if (this.#failure) throw this.#failure;
  }
}
