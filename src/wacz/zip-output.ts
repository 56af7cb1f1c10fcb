/**
 * The file side of zip-writer.ts: the package written at explicit
 * positions with small writes gathered into one writev, and a source file
 * read in large chunks with the next read under way while the last chunk
 * is written.
 */
import type { FileHandle } from 'node:fs/promises';

const noop = (): void => {};

/**
 * The output file, written at explicit positions: small writes (headers,
 * a producer's short pieces) are gathered and go out with the next large
 * one in a single writev.
 */
export class Output {
  /** Bytes given so far: where the next write lands. */
  offset = 0;
  readonly #fh: FileHandle;
  readonly #flushBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(fh: FileHandle, flushBytes: number) {
    this.#fh = fh;
    this.#flushBytes = flushBytes;
  }

  async write(data: Buffer): Promise<void> {
    if (data.length === 0) return;
    this.#pending.push(data);
    this.#pendingBytes += data.length;
    this.offset += data.length;
    if (this.#pendingBytes >= this.#flushBytes) await this.flush();
  }

  async flush(): Promise<void> {
    const buffers = this.#pending;
    const position = this.offset - this.#pendingBytes;
    this.#pending = [];
    this.#pendingBytes = 0;
    await writeAll(this.#fh, buffers, position);
  }

  /** Overwrite bytes already given (once they are in the file). */
  async patch(position: number, data: Buffer): Promise<void> {
    await this.flush();
    await writeAll(this.#fh, [data], position);
  }
}

async function writeAll(fh: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  while (buffers.length > 0) {
    // A write may take less than it was given (a signal, or more buffers than the system's IOV_MAX): the rest goes again.
    let { bytesWritten } = await fh.writev(buffers, position);
    position += bytesWritten;
    while (buffers.length > 0 && bytesWritten >= buffers[0]!.length) bytesWritten -= buffers.shift()!.length;
    if (bytesWritten > 0) buffers[0] = buffers[0]!.subarray(bytesWritten);
  }
}

/**
 * A file's bytes in chunks of `chunkBytes`, every one full but the last,
 * the next read under way while the last chunk is written.
 *
 * `reuse`: two buffers take turns, so a chunk holds its bytes only until
 * the consumer asks for the next one (the read after that goes into its
 * buffer). Without, each chunk is a buffer of its own, freed only once a
 * collection finds it dropped, which a copy loop making next to no
 * JavaScript garbage seldom brings about: copying OpenJDK's WARCs into
 * their package at the end of the crawl grew the malloc heap by ~40 MB,
 * the crawl's peak RSS.
 */
export async function* fileChunks(fh: FileHandle, chunkBytes: number, reuse: boolean): AsyncGenerator<Buffer> {
  const turns = reuse ? [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] : null;
  let turn = 0;
  const readAt = async (position: number): Promise<Buffer> => {
    const buffer = turns !== null ? turns[turn]! : Buffer.allocUnsafe(chunkBytes);
    turn ^= 1;
    let filled = 0;
    while (filled < chunkBytes) {
      const { bytesRead } = await fh.read(buffer, filled, chunkBytes - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  };
  let position = 0;
  let next = readAt(0);
  // Handled where it is awaited; a read failing while the last chunk is written must not count as unhandled meanwhile.
  next.catch(noop);
  try {
    for (;;) {
      const chunk = await next;
      if (chunk.length === 0) return;
      position += chunk.length;
      next = readAt(position);
      next.catch(noop);
      yield chunk;
    }
  } finally {
    // Stopped early (the entry failed): the read under way ends before the file is closed.
    await next.catch(noop);
  }
}
