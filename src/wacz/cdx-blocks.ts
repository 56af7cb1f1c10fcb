/**
 * The two index layouts a WACZ may carry. Small crawls: one plain
 * `indexes/index.cdx` that the viewer loads whole. Large crawls: the sorted
 * lines cut into blocks, each its own gzip member in `indexes/index.cdx.gz`,
 * and `indexes/index.idx` with the first key of each block and where the
 * block is (the "cdxj-gzip-1.0" layout), so the viewer binary-searches the
 * small idx and inflates only the block it needs.
 *
 * Both are built from a stream of sorted lines without holding them: the
 * plain index is the job's index.cdxj file itself, and the blocked one
 * appends each block's gzip member to a file as it is cut; only the idx
 * (one line per block) stays in memory.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { sha256Hex } from './datapackage.js';

const gzipAsync = promisify(gzip);

/** One file of the index inside the ZIP: its bytes in memory, or a file on disk streamed in. */
export type IndexFile = { path: string; compress: boolean } & ({ data: Buffer } | { file: string });

export interface IndexFiles {
  files: IndexFile[];
}

/** Lines per block in the compressed layout (pywb and py-wacz use 3000). */
export const DEFAULT_BLOCK_LINES = 3000;

/** The plain layout: `cdxjFile` (sorted lines, each ending in \n) packaged as index.cdx. */
export function plainIndex(cdxjFile: string): IndexFiles {
  return { files: [{ path: 'indexes/index.cdx', file: cdxjFile, compress: true }] };
}

/**
 * The blocked layout, built from sorted lines given in batches of any size:
 * a block is cut every `blockLines` lines and deflated on the thread pool
 * while the caller produces the next lines (one block in flight at most).
 * The members go to `gzFile`, which the caller removes after packaging.
 */
export class BlockedIndexBuilder {
  readonly #fh: FileHandle;
  readonly #gzFile: string;
  readonly #blockLines: number;
  readonly #idx: string[] = [`!meta 0 ${JSON.stringify({ format: 'cdxj-gzip-1.0', filename: 'index.cdx.gz' })}`];
  #block: string[] = [];
  #offset = 0;
  /** The block being deflated and appended; awaited before the next one starts, so members stay in order. */
  #inFlight: Promise<void> = Promise.resolve();

  private constructor(fh: FileHandle, gzFile: string, blockLines: number) {
    this.#fh = fh;
    this.#gzFile = gzFile;
    this.#blockLines = blockLines;
  }

  static async open(gzFile: string, blockLines = DEFAULT_BLOCK_LINES): Promise<BlockedIndexBuilder> {
    if (!(Number.isInteger(blockLines) && blockLines > 0)) throw new RangeError('blockLines must be a positive integer');
    return new BlockedIndexBuilder(await open(gzFile, 'w'), gzFile, blockLines);
  }

  /** Append sorted lines (without newlines). */
  async add(lines: readonly string[]): Promise<void> {
    for (const line of lines) {
      this.#block.push(line);
      if (this.#block.length === this.#blockLines) await this.#cut();
    }
  }

  /** The last block, then the two files; the builder is done. */
  async finish(): Promise<IndexFiles> {
    try {
      if (this.#block.length > 0) await this.#cut();
      await this.#inFlight;
      await this.#fh.close();
    } catch (err) {
      await this.abort();
      throw err;
    }
    return {
      files: [
        // Stored, not deflated: the viewer reads blocks by range straight out of the ZIP.
        { path: 'indexes/index.cdx.gz', file: this.#gzFile, compress: false },
        { path: 'indexes/index.idx', data: Buffer.from(this.#idx.join('\n') + '\n', 'utf8'), compress: true },
      ],
    };
  }

  /** Give up (after a failure, or when the plain layout is chosen after all): close and remove the file. */
  async abort(): Promise<void> {
    await this.#inFlight.catch(() => {});
    await this.#fh.close().catch(() => {});
    await rm(this.#gzFile, { force: true });
  }

  async #cut(): Promise<void> {
    const block = this.#block;
    this.#block = [];
    await this.#inFlight;
    this.#inFlight = this.#append(block);
    // Seen by the next #cut or by finish(); this only keeps it from counting as unhandled meanwhile.
    this.#inFlight.catch(() => {});
  }

  async #append(block: readonly string[]): Promise<void> {
    const member = await gzipAsync(Buffer.from(block.join('\n') + '\n', 'utf8'));
    const first = block[0]!;
    // The idx key is the first line's "<SURT> <timestamp>".
    const prefix = first.slice(0, first.indexOf(' ', first.indexOf(' ') + 1));
    this.#idx.push(`${prefix} ${JSON.stringify({ offset: this.#offset, length: member.length, digest: `sha256:${sha256Hex(member)}`, filename: 'index.cdx.gz' })}`);
    this.#offset += member.length;
    await this.#fh.write(member);
  }
}
