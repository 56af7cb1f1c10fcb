/**
 * Where a response body goes while it streams in: memory until it passes
 * `memoryLimitBytes`, then a temporary file, so a large body is never wholly
 * in the heap. The SHA-1 payload digest is updated on the way through. The
 * result is a BodyStore (src/core/exchange.ts) the writer and the extractor
 * read as often as they need; whoever ends up owning it calls dispose().
 *
 * `write()` takes every chunk at once and never asks the caller to wait:
 * spilled bytes go to the file with synchronous writes. That is what keeps
 * undici 7's HTTP/1 parser from ever being paused by us — a paused parser
 * whose server then closes the connection throws from undici's socket
 * handlers, where nothing can catch it (undici #5360, issue 18). Memory stays
 * bounded all the same (at most one chunk beyond the in-memory limit), and a
 * chunk of a socket read (≤ 64 KiB) costs the page cache microseconds, as the
 * WARC and log appends, also synchronous, already do.
 */
import { closeSync, createReadStream, mkdirSync, openSync, writeSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { BodyStore } from '../core/exchange.js';
import { bufferBody } from '../core/buffer-body.js';
import { PayloadDigester } from './payload-digest.js';

export interface BodySinkOptions {
  /** Directory for spilled bodies; created on first spill. */
  tempDir: string;
  /** Bodies up to this many bytes stay in memory. */
  memoryLimitBytes: number;
}

export interface FinishedBody {
  body: BodyStore;
  payloadDigest: string;
}

export class BodySink {
  readonly #opts: BodySinkOptions;
  readonly #digester = new PayloadDigester();
  #chunks: Buffer[] = [];
  #size = 0;
  #file: { path: string; fd: number | null } | null = null;
  #error: Error | null = null;
  #closed = false;

  constructor(opts: BodySinkOptions) {
    this.#opts = opts;
  }

  /** Bytes accepted so far. */
  get size(): number {
    return this.#size;
  }

  /** Append bytes; never waits. A failed spill write is kept and thrown by finish(). */
  write(chunk: Buffer): void {
    if (this.#closed) throw new Error('BodySink: write after finish/discard');
    if (chunk.length === 0) return;
    this.#digester.update(chunk);
    this.#size += chunk.length;
    if (this.#file === null && this.#size <= this.#opts.memoryLimitBytes) {
      this.#chunks.push(chunk);
      return;
    }
    if (this.#file === null) this.#spill();
    this.#writeToFile(chunk);
  }

  /** Close the sink and hand over the stored body with its digest. */
  async finish(): Promise<FinishedBody> {
    this.#closed = true;
    const payloadDigest = this.#digester.digest();
    const file = this.#file;
    if (file === null) {
      const bytes = Buffer.concat(this.#chunks, this.#size);
      this.#chunks = [];
      return { body: bufferBody(bytes), payloadDigest };
    }
    this.#closeFile();
    if (this.#error !== null) {
      await unlink(file.path).catch(() => undefined);
      throw this.#error;
    }
    return { body: fileBody(file.path, this.#size), payloadDigest };
  }

  /** Drop everything (failed fetch); removes the temp file. Idempotent. */
  async discard(): Promise<void> {
    this.#closed = true;
    this.#chunks = [];
    const file = this.#file;
    if (file === null) return;
    this.#closeFile();
    await unlink(file.path).catch(() => undefined);
  }

  #spill(): void {
    const filePath = path.join(this.#opts.tempDir, `body-${process.pid}-${randomUUID()}.tmp`);
    this.#file = { path: filePath, fd: null };
    try {
      mkdirSync(this.#opts.tempDir, { recursive: true });
      this.#file.fd = openSync(filePath, 'wx');
    } catch (err) {
      this.#error ??= err as Error;
    }
    // Bytes held in memory so far go first, in order.
    for (const c of this.#chunks) this.#writeToFile(c);
    this.#chunks = [];
  }

  #writeToFile(chunk: Buffer): void {
    const fd = this.#file?.fd ?? null;
    if (fd === null || this.#error !== null) return;
    try {
      for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done, chunk.length - done);
    } catch (err) {
      this.#error ??= err as Error;
    }
  }

  #closeFile(): void {
    const file = this.#file;
    if (file === null || file.fd === null) return;
    try {
      closeSync(file.fd);
    } catch (err) {
      this.#error ??= err as Error;
    }
    file.fd = null;
  }
}

/** A BodyStore over a temp file of known size; dispose() deletes the file. */
export function fileBody(filePath: string, size: number): BodyStore {
  let disposed = false;
  // Each call reads into a buffer of its own (Buffer.alloc never shares one): ownHead is head.
  const head = async (maxBytes: number): Promise<Buffer<ArrayBuffer>> => {
    const want = Math.max(0, Math.min(maxBytes, size));
    const buf = Buffer.alloc(want);
    if (want === 0) return buf;
    const fh = await open(filePath, 'r');
    try {
      let filled = 0;
      while (filled < want) {
        const { bytesRead } = await fh.read(buf, filled, want - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buf.subarray(0, filled);
    } finally {
      await fh.close();
    }
  };
  return {
    size,
    stream() {
      if (disposed) throw new Error(`body file ${filePath} already disposed`);
      return createReadStream(filePath);
    },
    head,
    ownHead: head,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await unlink(filePath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}
