/**
 * The WARC sink of the crawl. Each capture becomes a `response` (or an
 * identical-payload-digest `revisit`), its `request` right after it (viewers
 * pair them only when adjacent) and a `metadata` record, all through one
 * serial queue so records of different workers never interleave. Files are
 * rotated between captures once they reach `rotateBytes`, each opening with a
 * `warcinfo`. A failed write is fatal: the file is cut back to the last
 * complete capture, so it stays valid, and every later write is refused.
 *
 * Records are built, hashed and compressed off the main thread (the capture
 * thread, capture-thread.ts; in-process on libuv's pool when it cannot take
 * a capture), several captures at once and ahead of the queue, which then
 * appends finished gzip members in the order the captures were queued. `compressAheadCaptures` bounds how many captures
 * may be compressed or compressing but not yet written, which bounds memory
 * (each holds at most its compressed records, large bodies being streamed
 * inside the queue instead).
 */
import { mkdir, unlink } from 'node:fs/promises';
import os from 'node:os';
import { systemClock, type Clock } from '../core/clock.js';
import { ArchiverError, FatalCrawlError } from '../core/errors.js';
import type { HttpExchange } from '../core/exchange.js';
import { WarcFile } from './warc-file.js';
import type { ContentSums } from '../core/content-digest.js';
import { warcFileName } from './warc-naming.js';
import { warcInfoMember, type CaptureMembers } from './capture-members.js';
import { CaptureThread } from './capture-thread.js';
import { FifoSlots } from './fifo-slots.js';
import type { WarcInfoInput, WarcVersion } from './warc-records.js';
import { inProcessGzip } from './gzip-member.js';

/** Makes the gzip member of a file's warcinfo record. */
export type WarcInfoMaker = (w: WarcInfoInput) => Promise<Buffer>;

/** The default WarcInfoMaker: in this thread, which loads warcio for it. */
const warcInfoHere: WarcInfoMaker = (w) => warcInfoMember(w, inProcessGzip);

/** Default of WarcWriterOptions.compressAheadCaptures: enough to keep the capture thread (or libuv's 4-thread pool) busy. */
export const COMPRESS_AHEAD_CAPTURES = 8;

export interface WarcWriterOptions {
  /** Directory for the WARC files (created if missing). */
  dir: string;
  /** File name prefix, e.g. "WEB". */
  prefix: string;
  warcVersion: WarcVersion;
  /** A file is closed and the next one opened before a capture once it holds this many bytes. */
  rotateBytes: number;
  /** warcinfo `software`, e.g. "archiver/0.1.0". */
  software: string;
  /** Default: os.hostname(). */
  hostname?: string;
  /** A node of a crawl of several processes: its id goes into the file names (warc-naming.ts). */
  node?: string;
  info: { userAgent: string; from?: string; robotsPolicy: string; operator?: string; description?: string; jobName: string };
  /** Serial of the first file (a resumed crawl continues numbering). Default 0. */
  firstSerial?: number;
  /** Clock for file names and warcinfo dates. Default: the wall clock. */
  clock?: Clock;
  /**
   * At most this many queued captures are compressed or compressing ahead
   * of the one being written. Default COMPRESS_AHEAD_CAPTURES (8). Each holds
   * its three compressed records, a few MiB at worst (a record over 1 MiB is
   * streamed inside the queue, never held).
   */
  compressAheadCaptures?: number;
  /**
   * Makes each file's warcinfo member elsewhere: a crawl's page thread, which
   * has warcio loaded for its captures, so that this thread never loads it
   * (~20 ms of CPU at every start). Default: made in this thread.
   */
  warcInfo?: WarcInfoMaker;
  /**
   * Take each file's SHA-256 and CRC-32 as it is written, and hand them
   * over once it is closed whole (a file cut back after a failure has
   * none), for the package made at the end of the crawl. Default: none taken.
   */
  onSummed?: (file: string, sums: ContentSums) => void;
}

export interface CaptureToWrite {
  exchange: HttpExchange;
  hopPath: string;
  via: string | null;
  outlinks: ReadonlyArray<{ url: string; hop: string; context: string }>;
  /**
   * Set when the payload digest was already archived: write a revisit instead
   * of the body. `container` (an earlier crawl's WACZ file name) becomes
   * WARC-Refers-To-Container.
   */
  revisitOf?: { url: string; date: string /* ISO */; container?: string };
}

export interface WrittenCapture {
  /** Final file name (no directory, no `.open`), as indexes refer to it. */
  filename: string;
  /** Offset and compressed length of the response/revisit record. */
  offset: number;
  length: number;
  recordId: string;
  revisit: boolean;
}

export class WarcWriter {
  readonly #opts: WarcWriterOptions;
  readonly #hostname: string;
  readonly #clock: Clock;
  #nextSerial: number;
  #file: WarcFile | null = null;
  #closedPaths: string[] = [];
  #closedBytes = 0;
  /** Tail of the serial queue; never rejects, so one failure does not poison the chain. */
  #tail: Promise<unknown> = Promise.resolve();
  #fatal: FatalCrawlError | null = null;
  #closing: Promise<string[]> | null = null;
  /** Captures handed to the stream whose bytes are not yet known to be in the OS. */
  readonly #pending = new Set<Promise<WrittenCapture>>();
  /** One slot per capture from writeCapture() until its records are handed to the stream. */
  readonly #ahead: FifoSlots;
  /** Builds and compresses captures off the main thread, or hands them to the in-process path. */
  readonly #captureThread: CaptureThread;

  constructor(opts: WarcWriterOptions) {
    if (!opts.dir) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'WarcWriter: dir is required');
    if (!/^[^/\\\s]+$/.test(opts.prefix)) throw new ArchiverError('ARCHIVER_INVALID_OPTION', `WarcWriter: bad prefix "${opts.prefix}"`);
    if (!(opts.rotateBytes >= 0)) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'WarcWriter: rotateBytes must be >= 0');
    this.#opts = opts;
    this.#hostname = opts.hostname ?? os.hostname();
    this.#clock = opts.clock ?? systemClock;
    this.#nextSerial = opts.firstSerial ?? 0;
    const ahead = opts.compressAheadCaptures ?? COMPRESS_AHEAD_CAPTURES;
    if (!Number.isInteger(ahead) || ahead < 1) throw new ArchiverError('ARCHIVER_INVALID_OPTION', 'WarcWriter: compressAheadCaptures must be an integer >= 1');
    this.#ahead = new FifoSlots(ahead);
    this.#captureThread = new CaptureThread();
  }

  /** The serial the next file will get (what a resumed writer passes as firstSerial). */
  get serial(): number {
    return this.#nextSerial;
  }

  /** Bytes written to all files so far, compressed, warcinfo included. */
  get bytesWritten(): number {
    return this.#closedBytes + (this.#file?.size ?? 0);
  }

  /**
   * Queue one capture. Resolves once all its records are in the OS; rejects
   * with FatalCrawlError(ARCHIVER_WARC_WRITE) if they could not be written
   * (the file then ends at the last complete capture and every later call
   * rejects too), or with ArchiverError(ARCHIVER_WARC_DIGEST_MISMATCH),
   * before anything is written, if the body's digest is not the fetcher's.
   */
  writeCapture(c: CaptureToWrite): Promise<WrittenCapture> {
    // Compression starts now (once a slot is free), outside the queue; slots are taken in call order.
    return this.#queue(() => this.#captureThread.members(c, this.#opts.warcVersion));
  }

  /**
   * Queue one capture whose records were built and compressed elsewhere (the
   * crawl's page thread, with its outlinks). Resolves and rejects as
   * writeCapture does.
   */
  writeBuilt(members: CaptureMembers): Promise<WrittenCapture> {
    return this.#queue(async () => members);
  }

  #queue(build: () => Promise<CaptureMembers>): Promise<WrittenCapture> {
    if (this.#closing) return Promise.reject(new ArchiverError('ARCHIVER_WARC_CLOSED', 'WarcWriter is closed'));
    const members = this.#ahead.acquire().then(build);
    // Observed by #write; keep an early rejection from counting as unhandled.
    members.catch(() => {});
    const queued = this.#tail.then(() => this.#write(members));
    this.#tail = queued.catch(() => {});
    // The queue moves on once the bytes are handed to the stream; waiting for the
    // disk happens here, outside it, so the next capture's writes overlap this one's flush.
    const done = queued.then(async ({ written, durable }) => {
      await durable;
      return written;
    });
    this.#pending.add(done);
    const forget = (): void => {
      this.#pending.delete(done);
    };
    done.then(forget, forget);
    return done;
  }

  /**
   * Wait for queued writes, close and rename the current file. Returns the
   * paths of every file written, in order. Idempotent.
   */
  close(): Promise<string[]> {
    this.#closing ??= (async () => {
      await this.#tail;
      await Promise.allSettled([...this.#pending]);
      await this.#captureThread.close();
      const file = this.#file;
      this.#file = null;
      if (file) {
        try {
          await this.#finish(file);
        } catch (err) {
          throw this.#failed(err);
        }
      }
      return [...this.#closedPaths];
    })();
    return this.#closing;
  }

  async #write(pending: Promise<CaptureMembers>): Promise<{ written: WrittenCapture; durable: Promise<void> }> {
    let members: CaptureMembers;
    try {
      members = await pending;
    } catch (err) {
      this.#ahead.release();
      // A refusal writes nothing and is not fatal; failing to read a body is.
      if ((err as { code?: unknown }).code === 'ARCHIVER_WARC_DIGEST_MISMATCH' && !this.#fatal) throw err;
      throw await this.#failedAt(null, err);
    }
    let file: WarcFile | null = null;
    try {
      if (this.#fatal) throw this.#fatal;
      file = await this.#fileForCapture();
      const [main] = await file.writeMembers([members.main, members.request, members.metadata]);
      file.captures++;
      const target = file;
      const durable = file.flushed().catch(async (err: unknown) => {
        throw await this.#failedAt(target, err);
      });
      // Observed by writeCapture; this only keeps an early rejection from counting as unhandled.
      durable.catch(() => {});
      return {
        written: { filename: file.name, offset: main!.offset, length: main!.length, recordId: members.mainId, revisit: members.revisit },
        durable,
      };
    } catch (err) {
      throw await this.#failedAt(file, err);
    } finally {
      this.#ahead.release();
    }
  }

  /** Record the fatal failure (the first one wins) and cut the file back to its last complete capture. */
  async #failedAt(file: WarcFile | null, err: unknown): Promise<FatalCrawlError> {
    const fatal = this.#failed(err);
    if (file) await file.abort();
    return fatal;
  }

  #failed(err: unknown): FatalCrawlError {
    if (this.#fatal) return this.#fatal;
    const code = (err as { code?: unknown } | null)?.code;
    const why = err instanceof Error ? err.message : String(err);
    this.#fatal = new FatalCrawlError('ARCHIVER_WARC_WRITE', `WARC write failed${typeof code === 'string' ? ` (${code})` : ''}: ${why}`, { cause: err });
    return this.#fatal;
  }

  /** The file the next capture goes to: rotate once the current one is full, open lazily. */
  async #fileForCapture(): Promise<WarcFile> {
    const current = this.#file;
    if (current && current.captures > 0 && current.size >= this.#opts.rotateBytes) {
      this.#file = null;
      await this.#finish(current);
    }
    this.#file ??= await this.#open();
    return this.#file;
  }

  async #open(): Promise<WarcFile> {
    const o = this.#opts;
    const openedAt = new Date(this.#clock.now());
    const name = warcFileName({ prefix: o.prefix, openedAt, serial: this.#nextSerial, pid: process.pid, hostname: this.#hostname, ...(o.node !== undefined ? { node: o.node } : {}) });
    await mkdir(o.dir, { recursive: true });
    const file = await WarcFile.create(o.dir, name, { digest: o.onSummed !== undefined });
    this.#nextSerial++;
    try {
      const info = await (o.warcInfo ?? warcInfoHere)({ filename: name, openedAt, version: o.warcVersion, software: o.software, hostname: this.#hostname, info: o.info });
      await file.writeMembers([info]);
      await file.flushed();
    } catch (err) {
      // A file without its warcinfo holds nothing worth keeping.
      await file.abort();
      await unlink(file.openPath).catch(() => {});
      throw err;
    }
    return file;
  }

  /** Close and rename; if the last bytes fail to reach the disk, cut back to the last complete capture and still rename. */
  async #finish(file: WarcFile): Promise<void> {
    let finalPath: string;
    try {
      finalPath = await file.close();
    } catch (err) {
      await file.abort();
      this.#closedBytes += file.size;
      this.#closedPaths.push(await file.close());
      throw err;
    }
    this.#closedBytes += file.size;
    this.#closedPaths.push(finalPath);
    const sums = file.sums();
    if (sums !== null) this.#opts.onSummed?.(finalPath, sums);
  }
}
