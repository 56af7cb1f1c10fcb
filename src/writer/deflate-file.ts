/**
 * A raw DEFLATE stream written to a file as it is made, on the calling
 * thread: each write goes through zlib's binding synchronously
 * (core/kept-zlib.ts's driving) and what comes out is appended to the file
 * with a synchronous write (append-file.ts). For output a crawl makes as
 * it goes, a chunk at a time (the package's page list, wacz/live-pages.ts):
 * a zlib stream piped to a file stream hands each chunk to libuv's threads
 * and back, and on a crawl of small pages those hand-overs cost the main
 * thread more than level 1's deflate itself (notes/performance-history.md,
 * twenty-fifth session).
 *
 * `open` gives null where node's zlib lacks the internals driven here; the
 * caller then does without. A failure (zlib's, or the file's: a full disk)
 * is thrown by the call that met it, and closes the file: nothing more can
 * be written.
 */
import { constants, createDeflateRaw } from 'node:zlib';
import { ArchiverError } from '../core/errors.js';
import { drain, zlibDriver, type ZlibDriver } from '../core/kept-zlib.js';
import { AppendFile } from './append-file.js';

/** zlib's output buffer: what one write to the file takes at most. */
const OUT_BYTES = 64 * 1024;

export class DeflateFile {
  readonly #driver: ZlibDriver;
  readonly #file: AppendFile;
  readonly #out = Buffer.allocUnsafe(OUT_BYTES);

  private constructor(driver: ZlibDriver, file: AppendFile) {
    this.#driver = driver;
    this.#file = file;
  }

  /** A stream at deflate `level` into `file` (created, or emptied), or null where node's zlib cannot be driven here. Rejects when the file cannot be opened. */
  static async open(file: string, level: number): Promise<DeflateFile | null> {
    const driver = zlibDriver(createDeflateRaw({ level }));
    if (driver === null) return null;
    try {
      return new DeflateFile(driver, await AppendFile.open(file, { replace: true }));
    } catch (e) {
      driver.stream.destroy();
      throw e;
    }
  }

  /** Deflate `bytes` onto the stream; what zlib gives out so far goes to the file. */
  write(bytes: Uint8Array): void {
    this.#pump(bytes, constants.Z_NO_FLUSH);
  }

  /** End the stream (what zlib still holds, and DEFLATE's last block) and close the file. */
  end(): void {
    this.#pump(new Uint8Array(0), constants.Z_FINISH);
    this.abandon();
  }

  /** Close the file where the stream stands (unfinished, unless `end` came first). Safe to call again. */
  abandon(): void {
    if (this.#file.closed) return;
    this.#driver.stream.destroy();
    this.#file.close();
  }

  #pump(input: Uint8Array, flush: number): void {
    // Once the file is closed (ended or abandoned), zlib's handle is gone too: nothing may reach it again.
    if (this.#file.closed) throw new ArchiverError('ARCHIVER_FILE_CLOSED', `${this.#file.path} is closed`);
    try {
      for (const piece of drain(this.#driver, input, flush, this.#out)) this.#file.append([piece]);
    } catch (e) {
      try {
        this.abandon();
      } catch {
        // The failure that brought us here is the one to report.
      }
      throw e;
    }
  }
}
