/**
 * Where a response body goes while it streams in: memory until it passes
 * `memoryLimitBytes`, then a temporary file, so a large body is never wholly
 * in the heap. The SHA-1 payload digest is updated on the way through. The
 * result is a BodyStore (src/core/exchange.ts) the writer and the extractor
 * read as often as they need; whoever ends up owning it calls dispose().
 */
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
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
  #file: { path: string; stream: WriteStream } | null = null;
  #error: Error | null = null;
  #closed = false;

  constructor(opts: BodySinkOptions) {
    this.#opts = opts;
  }

  /** Bytes accepted so far. */
  get size(): number {
    return this.#size;
  }

  /** Append bytes. Returns false when the caller should wait for `drained()` before writing more. */
  write(chunk: Buffer): boolean {
    if (this.#closed) throw new Error('BodySink: write after finish/discard');
    if (chunk.length === 0) return true;
    this.#digester.update(chunk);
    this.#size += chunk.length;
    if (this.#file === null && this.#size <= this.#opts.memoryLimitBytes) {
      this.#chunks.push(chunk);
      return true;
    }
    const file = this.#file ?? this.#spill();
    return file.stream.write(chunk);
  }

  /** Resolves when the temp file has taken its buffered bytes (or failed: finish() reports that). */
  async drained(): Promise<void> {
    const file = this.#file;
    if (file === null || this.#error !== null || !file.stream.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        file.stream.off('drain', done);
        file.stream.off('close', done);
        resolve();
      };
      file.stream.on('drain', done);
      file.stream.on('close', done);
    });
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
    if (this.#error === null) {
      file.stream.end();
      await once(file.stream, 'close').catch(() => undefined);
    }
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
    file.stream.destroy();
    await once(file.stream, 'close').catch(() => undefined);
    await unlink(file.path).catch(() => undefined);
  }

  #spill(): { path: string; stream: WriteStream } {
    mkdirSync(this.#opts.tempDir, { recursive: true });
    const filePath = path.join(this.#opts.tempDir, `body-${process.pid}-${randomUUID()}.tmp`);
    const stream = createWriteStream(filePath, { flags: 'wx' });
    stream.on('error', (err) => {
      this.#error ??= err;
    });
    this.#file = { path: filePath, stream };
    // Bytes held in memory so far go first, in order.
    for (const c of this.#chunks) stream.write(c);
    this.#chunks = [];
    return this.#file;
  }
}

/** A BodyStore over a temp file of known size; dispose() deletes the file. */
export function fileBody(filePath: string, size: number): BodyStore {
  let disposed = false;
  return {
    size,
    stream() {
      if (disposed) throw new Error(`body file ${filePath} already disposed`);
      return createReadStream(filePath);
    },
    async head(maxBytes: number) {
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
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await unlink(filePath).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}
