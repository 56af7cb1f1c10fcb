/**
 * A sequential ZIP writer (PKWARE APPNOTE 6.3) for WACZ packages: entries
 * go into the file one after the other, in the order they were queued,
 * then the central directory and the end records.
 *
 * It exists because a general ZIP library (yazl, which the packages were
 * written with) must see every byte of an entry to learn its CRC-32 and
 * sizes, while the crawl can know them already: a WARC's CRC can be taken
 * as the WARC is written, an index deflated as it is made. Such an entry
 * is copied as it is here — a stored file in large reads and writes, not
 * hashed again; deflated data without inflating it — and its local header
 * is written complete. An entry whose CRC or sizes
 * are learnt only as it is written (a file not hashed yet, bytes a producer
 * streams in) has them in a data descriptor after its data.
 *
 * ZIP64 is used where it is needed (an entry or an offset past 4 GiB,
 * 65,535 entries or more) and nowhere else, or everywhere with
 * `forceZip64`, which the tests use to check that readers follow it. The
 * records' byte layouts are zip-records.ts'.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { fileChunks, Output } from './zip-output.js';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ArchiverError } from '../core/errors.js';
import {
  centralHeader,
  COMPRESSED_SIZE_AT,
  dataDescriptor,
  DEFLATED,
  dosDateTime,
  endRecords,
  FLAG_DESCRIPTOR,
  FLAG_UTF8,
  localHeader,
  MAX16,
  MAX32,
  STORED,
  zip64CompressedSizeAt,
  type DosTime,
  type ZipEntry,
} from './zip-records.js';

const CHUNK_BYTES = 1024 * 1024;
/** An addStream entry's stream holds about this much on each of its two sides before write() returns false. */
const STREAM_BUFFER_BYTES = 256 * 1024;

/** The CRC-32 and byte count of an entry's uncompressed bytes. */
export interface KnownContent {
  crc32: number;
  size: number;
}

export interface ZipWriterOptions {
  /** Every entry's modification time (as a DOS date and time, in local time). */
  mtime: Date;
  /** zlib level of the entries deflated here; default 1, which is within ~10% of level 6's size on text for a fraction of the CPU. */
  deflateLevel?: number;
  /** ZIP64 records for every entry and for the end of the package, needed or not (for the tests). */
  forceZip64?: boolean;
  /** Files are read, and the output written, in chunks this large; default 1 MiB. */
  chunkBytes?: number;
}

/** The package could not be written. */
export class ZipWriteError extends ArchiverError {
  constructor(file: string, problem: string, cause?: unknown) {
    const why = cause === undefined ? '' : ` (${cause instanceof Error ? cause.message : String(cause)})`;
    super('ARCHIVER_WACZ_WRITE', `${file}: ${problem}${why}`, cause === undefined ? undefined : { cause });
  }
}

const deflateRaw = promisify(zlib.deflateRaw);
const noop = (): void => {};

/** An entry's bytes as they are read, with what is learnt of them on the way. */
interface Measure {
  size: number;
  /** Running CRC-32; null when the CRC is known and is not taken again. */
  crc: number | null;
}

/** The most a raw deflate stream of `size` bytes can take (zlib's deflateBound, rounded up). */
function deflateBound(size: number): number {
  return size + Math.ceil(size / 4096) + Math.ceil(size / 16384) + 64;
}

export class ZipWriter {
  readonly #file: string;
  readonly #fh: FileHandle;
  readonly #out: Output;
  readonly #level: number;
  readonly #forceZip64: boolean;
  readonly #chunkBytes: number;
  readonly #dos: DosTime;
  readonly #entries: ZipEntry[] = [];
  /** Streams of addStream entries not written yet: destroyed if the writer fails or is aborted. */
  readonly #streams = new Set<PassThrough>();
  /** Settles when every entry queued so far is written or has failed; never rejects. */
  #tail: Promise<void> = Promise.resolve();
  #failure: ArchiverError | undefined;
  #reject: (err: ArchiverError) => void = noop;
  /** finish() or abort() was called: no more entries. */
  #ended = false;
  #finished: Promise<number> | undefined;
  /** finish() wrote the package whole. */
  #succeeded = false;
  #closed: Promise<void> | undefined;

  readonly failed: Promise<never>;

  private constructor(file: string, fh: FileHandle, opts: ZipWriterOptions) {
    this.#file = file;
    this.#fh = fh;
    this.#level = opts.deflateLevel ?? 1;
    this.#forceZip64 = opts.forceZip64 ?? false;
    this.#chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
    this.#out = new Output(fh, this.#chunkBytes);
    this.#dos = dosDateTime(opts.mtime);
    this.failed = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    // Whoever races it sees the failure; nobody needs to for it to count as handled.
    this.failed.catch(noop);
  }

  /** Create (or truncate) `file` and begin a package in it. */
  static async open(file: string, opts: ZipWriterOptions): Promise<ZipWriter> {
    const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
    if (!Number.isInteger(chunkBytes) || chunkBytes < 1) throw new ZipWriteError(file, `chunkBytes must be a positive integer, not ${chunkBytes}`);
    try {
      return new ZipWriter(file, await open(file, 'w'), opts);
    } catch (err) {
      throw new ZipWriteError(file, 'cannot create the ZIP file', err);
    }
  }

  /**
   * Queue a file on disk, opened only when the writer reaches it; stored,
   * or deflated at the writer's level. With `known`, its local header is
   * written complete, and a stored file is copied without taking its CRC
   * (a deflated one has its compressed size filled in once written);
   * without, the CRC is taken as it is copied and goes in a data
   * descriptor. `tap` sees every chunk of its bytes, in order, during
   * its call only (a stored file's chunks take turns in two buffers).
   */
  addFile(name: string, file: string, opts: { compress: boolean; known?: KnownContent; tap?: (chunk: Buffer) => void }): Promise<void> {
    const entryName = this.#entryName(name);
    return this.#enqueue(`cannot add ${file} as ${name}`, async () => {
      const fh = await open(file, 'r');
      try {
        const { size } = await fh.stat();
        // Stored, each chunk is written before the next is read (#copy): two buffers do. Deflated, zlib may still hold one.
        await this.#writeData(entryName, fileChunks(fh, this.#chunkBytes, !opts.compress), { ...opts, sourceSize: size });
      } finally {
        await fh.close();
      }
    });
  }

  /** Queue raw DEFLATE data (a complete deflateRaw stream) in `file`, copied as it is; `known` is what it inflates to. */
  addDeflated(name: string, file: string, known: KnownContent): Promise<void> {
    const entryName = this.#entryName(name);
    return this.#enqueue(`cannot add ${file} as ${name}`, async () => {
      const fh = await open(file, 'r');
      try {
        const { size: compressedSize } = await fh.stat();
        const entry = this.#entry(entryName, DEFLATED, FLAG_UTF8, known.crc32, known.size, compressedSize);
        await this.#out.write(localHeader(entry, this.#dos));
        const copied = await this.#copy(this.#measured(fileChunks(fh, this.#chunkBytes, true), { size: 0, crc: null }));
        if (copied !== compressedSize) throw new Error(`it changed while copied (${copied} bytes, ${compressedSize} expected)`);
        this.#entries.push(entry);
      } finally {
        await fh.close();
      }
    });
  }

  /** Queue a small entry held in memory (its local header complete, no data descriptor). */
  addBuffer(name: string, data: Buffer, compress: boolean): Promise<void> {
    const entryName = this.#entryName(name);
    return this.#enqueue(`cannot add ${name}`, async () => {
      const body = compress ? await deflateRaw(data, { level: this.#level }) : data;
      const entry = this.#entry(entryName, compress ? DEFLATED : STORED, FLAG_UTF8, zlib.crc32(data), data.length, body.length);
      await this.#out.write(localHeader(entry, this.#dos));
      await this.#out.write(body);
      this.#entries.push(entry);
    });
  }

  /**
   * Queue an entry whose bytes the caller writes into `stream`, then ends.
   * The stream takes a little and then holds the caller back (write()
   * returns false; wait for 'drain', racing `failed`) until the writer
   * reaches the entry, which holds back the entries after it until the
   * stream ends. `written` resolves once the entry is in the file.
   */
  addStream(name: string, opts: { compress: boolean; tap?: (chunk: Buffer) => void }): { stream: Writable; written: Promise<void> } {
    const entryName = this.#entryName(name);
    const what = `cannot add ${name} from its stream`;
    const stream = new PassThrough({ highWaterMark: STREAM_BUFFER_BYTES });
    // A stream destroyed with an error fails the package at once, whether or not the writer has reached it.
    stream.on('error', (err) => this.#fail(err, what));
    this.#streams.add(stream);
    // Queued after a failure: nothing will read it.
    if (this.#failure !== undefined) stream.destroy(this.#failure);
    const written = this.#enqueue(what, async () => {
      try {
        await this.#writeData(entryName, stream, opts);
      } finally {
        this.#streams.delete(stream);
      }
    });
    return { stream, written };
  }

  /** Once every entry queued is written: the central directory and the end records, the file closed. Resolves with the package's size in bytes. */
  finish(): Promise<number> {
    this.#finished ??= this.#finish();
    return this.#finished;
  }

  /** Stop: streams not written yet are destroyed, `failed` rejects, the file is closed (the caller removes it). Idempotent. */
  async abort(): Promise<void> {
    this.#ended = true;
    if (this.#succeeded) return;
    this.#fail(undefined, 'writing was aborted');
    await this.#close().catch(noop);
  }

  async #finish(): Promise<number> {
    this.#ended = true;
    const written = this.#enqueue('cannot write the central directory', () => this.#writeDirectory());
    await written.catch(noop);
    await this.#close().catch((err: unknown) => this.#fail(err, 'cannot close the file'));
    if (this.#failure !== undefined) throw this.#failure;
    this.#succeeded = true;
    return this.#out.offset;
  }

  /** Run `write` once the entries queued before it are written; the first failure fails the writer, and stops every entry after it. */
  #enqueue(what: string, write: () => Promise<void>): Promise<void> {
    const done = this.#tail.then(async () => {
      if (this.#failure !== undefined) throw this.#failure;
      try {
        await write();
        // Its last bytes too are in the file before it counts as written.
        await this.#out.flush();
      } catch (err) {
        this.#fail(err, what);
        throw this.#failure;
      }
    });
    this.#tail = done.then(noop, noop);
    // The caller may not wait for every entry; the failure reaches it through `failed` and finish().
    done.catch(noop);
    return done;
  }

  #fail(cause: unknown, problem: string): void {
    if (this.#failure !== undefined) return;
    const failure = cause instanceof ArchiverError ? cause : new ZipWriteError(this.#file, problem, cause);
    this.#failure = failure;
    this.#reject(failure);
    for (const stream of this.#streams) stream.destroy(failure);
    this.#streams.clear();
    // The file is closed once the entry under way stops, whether or not finish() or abort() is called.
    this.#close().catch(noop);
  }

  /** Close the file once the entry being written, if any, has stopped. */
  #close(): Promise<void> {
    this.#closed ??= this.#tail.then(() => this.#fh.close());
    return this.#closed;
  }

  #entryName(name: string): Buffer {
    if (this.#ended) throw new ZipWriteError(this.#file, `cannot add ${name}: the package is finished or aborted`);
    const bytes = Buffer.from(name, 'utf8');
    if (bytes.length === 0 || bytes.length > MAX16 || name.startsWith('/') || name.includes('\\')) {
      throw new ZipWriteError(this.#file, `cannot add ${JSON.stringify(name)}: not a relative path with forward slashes of at most 65,535 bytes`);
    }
    return bytes;
  }

  /** A new entry at the current offset; ZIP64 when its sizes need it (or forced). */
  #entry(name: Buffer, method: number, flags: number, crc: number, size: number, compressedSize: number): ZipEntry {
    const zip64 = this.#forceZip64 || size >= MAX32 || compressedSize >= MAX32;
    return { name, method, flags, crc, size, compressedSize, offset: this.#out.offset, zip64 };
  }

  /**
   * The entry of a file or a stream, stored or deflated here: its local
   * header complete when its CRC and size are known, else followed by a
   * data descriptor. `sourceSize` (a file's) tells whether it needs ZIP64
   * before it is read.
   */
  async #writeData(
    name: Buffer,
    chunks: AsyncIterable<Buffer>,
    opts: { compress: boolean; known?: KnownContent; tap?: (chunk: Buffer) => void; sourceSize?: number },
  ): Promise<void> {
    const method = opts.compress ? DEFLATED : STORED;
    const known = opts.known;
    const bound = (size: number): number => (opts.compress ? deflateBound(size) : size);
    const expected = known?.size ?? opts.sourceSize ?? 0;
    const entry = this.#entry(name, method, FLAG_UTF8, known?.crc32 ?? 0, known?.size ?? 0, opts.compress || known === undefined ? 0 : known.size);
    entry.zip64 ||= bound(expected) >= MAX32;
    if (known === undefined) entry.flags |= FLAG_DESCRIPTOR;
    await this.#out.write(localHeader(entry, this.#dos));

    const measure: Measure = { size: 0, crc: known === undefined ? 0 : null };
    const input = this.#measured(chunks, measure, opts.tap);
    entry.compressedSize = opts.compress ? await this.#deflate(input) : await this.#copy(input);
    if (known !== undefined) {
      if (measure.size !== known.size) throw new Error(`${measure.size} bytes read, ${known.size} expected`);
      if (opts.compress) await this.#patchCompressedSize(entry);
    } else {
      entry.crc = measure.crc ?? 0;
      entry.size = measure.size;
      await this.#out.write(dataDescriptor(entry));
    }
    this.#entries.push(entry);
  }

  /** `chunks` counted, CRC'd (unless `measure.crc` is null) and shown to `tap`; stops at the next chunk once the writer has failed. */
  async *#measured(chunks: AsyncIterable<Buffer>, measure: Measure, tap?: (chunk: Buffer) => void): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      if (this.#failure !== undefined) throw this.#failure;
      measure.size += chunk.length;
      if (measure.crc !== null) measure.crc = zlib.crc32(chunk, measure.crc);
      tap?.(chunk);
      yield chunk;
    }
  }

  /**
   * Write `chunks` as they are; the byte count. Each is in the file before
   * the next is asked for (fileChunks' `reuse` counts on it): a full chunk
   * is as large as the output's flush size, and only a file's last chunk,
   * after which nothing is read, may wait in it.
   */
  async #copy(chunks: AsyncIterable<Buffer>): Promise<number> {
    const start = this.#out.offset;
    for await (const chunk of chunks) await this.#out.write(chunk);
    return this.#out.offset - start;
  }

  /** Write `chunks` deflated; the compressed byte count. */
  async #deflate(chunks: AsyncIterable<Buffer>): Promise<number> {
    const start = this.#out.offset;
    await pipeline(chunks, zlib.createDeflateRaw({ level: this.#level, chunkSize: 64 * 1024 }), async (deflated: AsyncIterable<Buffer>) => {
      for await (const chunk of deflated) await this.#out.write(chunk);
    });
    return this.#out.offset - start;
  }

  /** A deflated entry whose CRC and size were known: its compressed size, learnt once written, goes into its local header. */
  async #patchCompressedSize(entry: ZipEntry): Promise<void> {
    const field = Buffer.alloc(entry.zip64 ? 8 : 4);
    if (entry.zip64) field.writeBigUInt64LE(BigInt(entry.compressedSize));
    else if (entry.compressedSize < MAX32) field.writeUInt32LE(entry.compressedSize);
    else throw new Error(`deflated to ${entry.compressedSize} bytes, more than its local header can say`);
    await this.#out.patch(entry.offset + (entry.zip64 ? zip64CompressedSizeAt(entry) : COMPRESSED_SIZE_AT), field);
  }

  /** The central directory, then the end records (zip-records.ts). */
  async #writeDirectory(): Promise<void> {
    const start = this.#out.offset;
    for (const entry of this.#entries) await this.#out.write(centralHeader(entry, this.#dos, this.#forceZip64));
    await this.#out.write(endRecords({ count: this.#entries.length, start, size: this.#out.offset - start }, this.#forceZip64));
    await this.#out.flush();
  }
}
