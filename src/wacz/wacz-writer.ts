/**
 * Writes a WACZ 1.1.1 package with yazl: the WARCs under `archive/`
 * (stored, never deflated, so a viewer reads records by byte range), the
 * page list and the index, then `datapackage.json` and its digest. Each
 * file (the WARCs, index files and the page list, too large to hold) is
 * hashed as yazl streams it into the ZIP — one read per file — which is
 * why datapackage.json goes in last. Written to a temp name and renamed,
 * so a reader never opens half a package.
 *
 * The package is begun before what goes into it is known (WaczBuilder):
 * the end of a crawl starts copying the WARCs while it reads the capture
 * journal, and streams the page list in as it makes it; the ZIP writer
 * takes the entries in the order they were added, as they come.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ArchiverError } from '../core/errors.js';
import { dataPackageDigestJson, dataPackageJson, sha256Hex, type DataPackageInfo, type PackagedFile } from './datapackage.js';
import type { IndexFiles } from './cdx-blocks.js';

/**
 * WARC (and on-disk index) bytes are copied into the package in chunks this large: each chunk
 * passes four streams (file, digest tap, yazl's CRC and byte counters, the
 * output), so node's default 64 KiB made ~16 stream hops per MiB.
 */
const READ_CHUNK_BYTES = 1024 * 1024;

// Through require, not an ES import (see store/level-database.ts).
const yazl = createRequire(import.meta.url)('yazl') as typeof import('yazl');
type ZipFile = InstanceType<typeof yazl.ZipFile>;

/**
 * yazl takes each entry's CRC-32 from buffer-crc32, a byte-at-a-time loop
 * in JavaScript, over every byte of every WARC packaged; zlib's is native
 * (Node 20.15 and later). Same function, same results: yazl's one call,
 * `unsigned(chunk, crcSoFar)`, is pointed at zlib's.
 */
function useNativeCrc32(): void {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  if (native === undefined) return;
  const fromYazl = createRequire(createRequire(import.meta.url).resolve('yazl'));
  const bufferCrc32 = fromYazl('buffer-crc32') as { unsigned: (buf: Uint8Array, previous?: number) => number };
  bufferCrc32.unsigned = (buf, previous) => native(buf, previous ?? 0);
}
useNativeCrc32();

/**
 * The page list and indexes are text and deflate well at level 1 (within
 * ~10% of level 6's size) for a fraction of the CPU; a job's page list
 * holds every page's text, 7 MB for the PostgreSQL docs.
 */
const TEXT_DEFLATE_LEVEL = 1;

/** The package could not be written. */
export class WaczWriteError extends ArchiverError {
  constructor(file: string, cause: unknown) {
    super('ARCHIVER_WACZ_WRITE', `${file}: cannot write WACZ (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}

export interface WrittenWacz {
  path: string;
  /** Every file listed in datapackage.json. */
  files: PackagedFile[];
}

/** A package being written: entries queued as they become known (a file on disk, or bytes written into a stream), datapackage.json at the end. */
export class WaczBuilder {
  readonly #zip = new yazl.ZipFile();
  readonly #outPath: string;
  readonly #tmp: string;
  readonly #mtime: Date;
  readonly #files: PackagedFile[] = [];
  readonly #hashed: Promise<void>[] = [];
  /** Every entry's tap, destroyed on abort so no source is left reading. */
  readonly #taps: Transform[] = [];
  readonly #written: Promise<void>;
  /** Rejects with the first failure of any entry or of the output; never resolves. */
  readonly #failed: Promise<never>;
  #fail: (err: unknown) => void = () => {};
  #settled = false;

  private constructor(outPath: string, mtime: Date) {
    this.#outPath = outPath;
    this.#tmp = `${outPath}.tmp-${process.pid}`;
    this.#mtime = mtime;
    this.#written = pipeline(this.#zip.outputStream, createWriteStream(this.#tmp));
    // Observed by finish(); this only keeps an early failure from counting as unhandled.
    this.#written.catch(() => {});
    this.#failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    this.#failed.catch(() => {});
    this.#written.catch((err: unknown) => this.#fail(err));
  }

  /** Begin `outPath` (its directory made first); `created` is every entry's mtime. */
  static async start(outPath: string, created: Date): Promise<WaczBuilder> {
    await mkdir(path.dirname(outPath), { recursive: true });
    return new WaczBuilder(outPath, created);
  }

  /** Rejects once the package cannot be written (an entry or the output failed; never resolves): a producer waiting on an entry's stream races it. */
  get failed(): Promise<never> {
    return this.#failed;
  }

  /** Queue a file on disk, read when the ZIP writer reaches it. */
  addFile(p: string, file: string, compress: boolean): void {
    const entry = this.#entry(p);
    this.#hash(
      new Promise<void>((done, failed) => {
        // Lazy: a file is opened only when yazl reaches it, so many WARCs never hold many descriptors.
        this.#zip.addReadStreamLazy(p, this.#opts(compress), (cb) => {
          const source = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
          const tap = this.#tap(entry, done, failed);
          source.on('error', (err) => {
            failed(err);
            tap.destroy(err);
          });
          // An abandoned package destroys the tap: the file is closed with it.
          tap.on('close', () => source.destroy());
          source.pipe(tap);
          cb(null, tap);
        });
      }),
    );
  }

  /**
   * Queue an entry whose bytes are written into the returned stream (and
   * the stream ended). It buffers a little and then holds the writer back
   * until the ZIP writer reaches the entry: await 'drain', racing `failed`.
   */
  addStream(p: string, compress: boolean): Writable {
    const entry = this.#entry(p);
    let tap!: Transform;
    this.#hash(
      new Promise<void>((done, failed) => {
        tap = this.#tap(entry, done, failed);
      }),
    );
    this.#zip.addReadStreamLazy(p, this.#opts(compress), (cb) => cb(null, tap));
    return tap;
  }

  /** Add a small entry held in memory. */
  addData(p: string, data: Buffer, compress: boolean): void {
    this.#files.push({ path: p, hash: `sha256:${sha256Hex(data)}`, bytes: data.length });
    this.#zip.addBuffer(data, p, this.#opts(compress));
  }

  /** Once every entry went through: datapackage.json and its digest, then the package is renamed into place. */
  async finish(info: DataPackageInfo): Promise<WrittenWacz> {
    try {
      // An entry that failed (a WARC gone while read) may leave the ZIP writer waiting forever: its failure ends the wait.
      await Promise.race([Promise.all(this.#hashed), this.#written, this.#failed]);
      await Promise.all(this.#hashed);
      const files = listed(this.#files);
      const dataPackage = dataPackageJson(info, files);
      this.#zip.addBuffer(dataPackage, 'datapackage.json', { mtime: this.#mtime });
      this.#zip.addBuffer(dataPackageDigestJson(dataPackage), 'datapackage-digest.json', { mtime: this.#mtime });
      this.#zip.end();
      await this.#written;
      await rename(this.#tmp, this.#outPath);
      this.#settled = true;
      return { path: this.#outPath, files };
    } catch (err) {
      await this.abort();
      throw err instanceof ArchiverError ? err : new WaczWriteError(this.#outPath, err);
    }
  }

  /** Stop writing and remove the partial package. Idempotent; a no-op once finished. */
  async abort(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    const stopped = new Error('package abandoned');
    for (const tap of this.#taps) if (!tap.destroyed) tap.destroy(stopped);
    (this.#zip.outputStream as Readable).destroy(stopped);
    await this.#written.catch(() => {});
    await rm(this.#tmp, { force: true });
  }

  #hash(hashed: Promise<void>): void {
    // Observed by finish() and `failed`; an abort before it must not leave it unhandled.
    hashed.catch((err: unknown) => this.#fail(err));
    this.#hashed.push(hashed);
  }

  #entry(p: string): PackagedFile {
    const entry: PackagedFile = { path: p, hash: '', bytes: 0 };
    this.#files.push(entry);
    return entry;
  }

  #opts(compress: boolean): { compressionLevel: number; mtime: Date } {
    return { compressionLevel: compress ? TEXT_DEFLATE_LEVEL : 0, mtime: this.#mtime };
  }

  /** A pass-through that hashes and counts an entry's bytes, filling `entry` at its end. */
  #tap(entry: PackagedFile, done: () => void, failed: (err: unknown) => void): Transform {
    const hash = createHash('sha256');
    const tap = new Transform({
      writableHighWaterMark: READ_CHUNK_BYTES,
      transform(chunk: Buffer, _enc, next) {
        hash.update(chunk);
        entry.bytes += chunk.length;
        next(null, chunk);
      },
      flush(next) {
        entry.hash = `sha256:${hash.digest('hex')}`;
        done();
        next();
      },
    });
    tap.on('error', failed);
    this.#taps.push(tap);
    return tap;
  }
}

/** datapackage.json's resources in one order whatever the order of the entries: WARCs, indexes, pages. */
function listed(files: readonly PackagedFile[]): PackagedFile[] {
  const rank = (f: PackagedFile): number => (f.path.startsWith('archive/') ? 0 : f.path.startsWith('indexes/') ? 1 : 2);
  return [...files].sort((a, b) => rank(a) - rank(b));
}
