/**
 * The SHA-256 and CRC-32 of bytes as they go by, and their count: what a
 * WACZ lists for each packaged file (datapackage.json's hash) and what its
 * ZIP entry carries (the CRC). Taken while a file is written, they spare
 * the end of a crawl a second read of the file to hash it.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** A file's content as a package lists it. */
export interface ContentSums {
  /** Bytes. */
  size: number;
  /** Hex SHA-256. */
  sha256: string;
  /** CRC-32 (unsigned). */
  crc32: number;
}

export class ContentDigest {
  readonly #sha = createHash('sha256');
  #crc = 0;
  #size = 0;

  update(chunk: Uint8Array): void {
    this.#sha.update(chunk);
    this.#crc = crc32(chunk, this.#crc);
    this.#size += chunk.length;
  }

  get size(): number {
    return this.#size;
  }

  /** The sums of every byte given; ends the digest (update throws after). */
  sums(): ContentSums {
    return { size: this.#size, sha256: this.#sha.digest('hex'), crc32: this.#crc };
  }
}
