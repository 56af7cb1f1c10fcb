/**
 * Writes a WACZ 1.1.1 package with our ZIP writer (zip-writer.ts): the
 * WARCs under `archive/` (stored, never deflated, so a viewer reads records
 * by byte range), the page list and the index, then `datapackage.json` and
 * its digest. Each file's SHA-256 (datapackage.json's hash) is taken as the
 * ZIP writer copies it in — one read per file — which is why
 * datapackage.json goes in last; a file whose sums the crawl took as it
 * wrote it (a WARC, the page list made during the crawl) is copied without
 * being hashed at all. Written to a temp name and renamed, so a reader
 * never opens half a package.
 *
 * The package is begun before what goes into it is known (WaczBuilder):
 * the end of a crawl starts copying the WARCs while it reads the capture
 * journal, and streams the page list in as it makes it; the ZIP writer
 * takes the entries in the order they were added, as they come.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { ArchiverError } from '../core/errors.js';
import type { ContentSums } from '../core/content-digest.js';
import { dataPackageDigestJson, dataPackageJson, sha256Hex, type DataPackageInfo, type PackagedFile } from './datapackage.js';
import { ZipWriter } from './zip-writer.js';

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
  readonly #zip: ZipWriter;
  readonly #outPath: string;
  readonly #tmp: string;
  readonly #files: PackagedFile[] = [];
  readonly #entries: Promise<void>[] = [];
  #settled = false;

  private constructor(outPath: string, tmp: string, zip: ZipWriter) {
    this.#outPath = outPath;
    this.#tmp = tmp;
    this.#zip = zip;
  }

  /** Begin `outPath` (its directory made first); `created` is every entry's mtime. */
  static async start(outPath: string, created: Date): Promise<WaczBuilder> {
    await mkdir(path.dirname(outPath), { recursive: true });
    const tmp = `${outPath}.tmp-${process.pid}`;
    return new WaczBuilder(outPath, tmp, await ZipWriter.open(tmp, { mtime: created, deflateLevel: TEXT_DEFLATE_LEVEL }));
  }

  /** Rejects once the package cannot be written (an entry or the output failed; never resolves): a producer waiting on an entry's stream races it. */
  get failed(): Promise<never> {
    return this.#zip.failed;
  }

  /**
   * Queue a file on disk, read when the ZIP writer reaches it. `known`: its
   * sums, taken as it was written — it is then copied without being hashed.
   */
  addFile(p: string, file: string, compress: boolean, known?: ContentSums): void {
    if (known !== undefined) {
      this.#files.push({ path: p, hash: `sha256:${known.sha256}`, bytes: known.size });
      this.#track(this.#zip.addFile(p, file, { compress, known: { crc32: known.crc32, size: known.size } }));
      return;
    }
    const { tap, done } = this.#hashed(p);
    this.#track(this.#zip.addFile(p, file, { compress, tap }).then(done));
  }

  /** Queue raw DEFLATE data in `file` that inflates to bytes with these sums (a page list deflated during the crawl). */
  addDeflated(p: string, file: string, sums: ContentSums): void {
    this.#files.push({ path: p, hash: `sha256:${sums.sha256}`, bytes: sums.size });
    this.#track(this.#zip.addDeflated(p, file, { crc32: sums.crc32, size: sums.size }));
  }

  /**
   * Queue an entry whose bytes are written into the returned stream (and
   * the stream ended). It buffers a little and then holds the writer back
   * until the ZIP writer reaches the entry: await 'drain', racing `failed`.
   */
  addStream(p: string, compress: boolean): Writable {
    const { tap, done } = this.#hashed(p);
    const { stream, written } = this.#zip.addStream(p, { compress, tap });
    this.#track(written.then(done));
    return stream;
  }

  /** Add a small entry held in memory. */
  addData(p: string, data: Buffer, compress: boolean): void {
    this.#files.push({ path: p, hash: `sha256:${sha256Hex(data)}`, bytes: data.length });
    this.#track(this.#zip.addBuffer(p, data, compress));
  }

  /** Once every entry went through: datapackage.json and its digest, then the package is renamed into place. */
  async finish(info: DataPackageInfo): Promise<WrittenWacz> {
    try {
      // An entry that failed (a WARC gone while read) fails the writer: its failure ends the wait.
      await Promise.race([Promise.all(this.#entries), this.#zip.failed]);
      const files = listed(this.#files);
      const dataPackage = dataPackageJson(info, files);
      this.#track(this.#zip.addBuffer('datapackage.json', dataPackage, false));
      this.#track(this.#zip.addBuffer('datapackage-digest.json', dataPackageDigestJson(dataPackage), false));
      await this.#zip.finish();
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
    await this.#zip.abort();
    await rm(this.#tmp, { force: true });
  }

  /** An entry's write, observed by finish() and `failed`: an abort before then must not leave it unhandled. */
  #track(written: Promise<void>): void {
    written.catch(() => {});
    this.#entries.push(written);
  }

  /** A listed entry whose hash and size are taken from the bytes the ZIP writer hands its tap. */
  #hashed(p: string): { tap: (chunk: Buffer) => void; done: () => void } {
    const entry: PackagedFile = { path: p, hash: '', bytes: 0 };
    this.#files.push(entry);
    const hash = createHash('sha256');
    return {
      tap: (chunk) => {
        hash.update(chunk);
        entry.bytes += chunk.length;
      },
      done: () => {
        entry.hash = `sha256:${hash.digest('hex')}`;
      },
    };
  }
}

/** datapackage.json's resources in one order whatever the order of the entries: WARCs, indexes, pages. */
function listed(files: readonly PackagedFile[]): PackagedFile[] {
  const rank = (f: PackagedFile): number => (f.path.startsWith('archive/') ? 0 : f.path.startsWith('indexes/') ? 1 : 2);
  return [...files].sort((a, b) => rank(a) - rank(b));
}
