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
 *
 * Each line is appended with one synchronous write (append-file.ts): on the
 * CPU-bound 2-CPU bench machine an async fs write costs ~40-50 µs of
 * process CPU, a writeSync of a line ~3.5 µs. The line is in the OS when
 * write() returns (a kill -9 loses none), and a failure is reported by the
 * write that failed; the price is that a slow disk stalls the event loop,
 * which the page cache normally absorbs. (Gathering a turn's lines into one
 * writev would save ~2 µs a line in bursts of refusals, but costs a
 * setImmediate per turn and defers errors to the next write; not worth it
 * for the ~6,500 lines of a bench crawl.)
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FatalCrawlError } from '../core/errors.js';
import { AppendFile } from './append-file.js';
import { timestamp17 } from './warc-naming.js';

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

/** A crawl.log line read back: its fields as written (`-` read as null). */
export interface LoggedLine {
  /** ISO 8601, UTC. */
  time: string;
  status: number;
  size: number | null;
  url: string;
  /** "" for a seed. */
  hopPath: string;
  via: string | null;
  mime: string | null;
  /** `#003`; null when no worker handled the URI. */
  worker: string | null;
  annotations: string[];
}

/** One crawl.log line as formatCrawlLogLine wrote it; null when it has too few fields (a cut last line). */
export function parseCrawlLogLine(line: string): LoggedLine | null {
  const f = line.trim().split(/\s+/);
  if (f.length < 12) return null;
  const na = (s: string): string | null => (s === '-' ? null : s);
  const size = f[2] === '-' ? null : Number(f[2]);
  return {
    time: f[0]!,
    status: Number(f[1]),
    size: size !== null && Number.isFinite(size) ? size : null,
    url: f[3]!,
    hopPath: f[4] === '-' ? '' : f[4]!,
    via: na(f[5]!),
    mime: na(f[6]!),
    worker: na(f[7]!),
    annotations: f[11] === '-' ? [] : f[11]!.split(','),
  };
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
 * the same log. write() writes the line before it returns, so callers just
 * call it; it throws FatalCrawlError(ARCHIVER_LOG_WRITE), synchronously,
 * when the line could not be written, and so do every later write() and
 * close().
 */
export class CrawlLog {
  readonly path: string;
  /** Holds the write failure (a FatalCrawlError) once there is one. */
  readonly #out: AppendFile;
  #closed = false;

  private constructor(file: string, out: AppendFile) {
    this.path = file;
    this.#out = out;
  }

  static async open(file: string): Promise<CrawlLog> {
    let out: AppendFile;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      out = await AppendFile.open(file, {
        asFailure: (err) => new FatalCrawlError('ARCHIVER_LOG_WRITE', `crawl.log write failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }),
      });
    } catch (err) {
      throw new FatalCrawlError('ARCHIVER_LOG_WRITE', `cannot open ${file}`, { cause: err });
    }
    return new CrawlLog(file, out);
  }

  write(entry: CrawlLogEntry): void {
    if (this.#out.failure !== null) throw this.#out.failure;
    if (this.#closed) throw new FatalCrawlError('ARCHIVER_LOG_WRITE', 'crawl.log is closed');
    this.#out.append([Buffer.from(formatCrawlLogLine(entry), 'utf8')]);
  }

  /** Close; throws the write failure if one happened. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      try {
        this.#out.close();
      } catch {
        // Kept as the file's failure, thrown below.
      }
    }
    if (this.#out.failure !== null) throw this.#out.failure;
  }
}
