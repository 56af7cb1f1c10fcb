/**
 * Writes a WACZ 1.1.1 package with yazl: the WARCs under `archive/`
 * (stored, never deflated, so a viewer reads records by byte range), the
 * index, `pages/pages.jsonl`, then `datapackage.json` and its digest. Each
 * file taken from disk (the WARCs, index files and the page list, too large
 * to hold) is hashed as yazl streams it into the ZIP — one read per file —
 * which is why datapackage.json goes in last. Written to a temp name
 * and renamed, so a reader never opens half a package.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Transform } from 'node:stream';
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

/**
 * yazl takes each entry's CRC-32 from buffer-crc32, a byte-at-a-time loop
 * in JavaScript, over every byte of every WARC packaged; zlib's is native
 * (Node 20.15 and later). Same function, same results: yazl's one call,
 * `unsigned(chunk, crcSoFar)`, is pointed at zlib's.
 */
// Through require, not an ES import (see store/level-database.ts).
const yazl = createRequire(import.meta.url)('yazl') as typeof import('yazl');
type ZipFile = InstanceType<typeof yazl.ZipFile>;

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

export interface WaczContents {
  /** WARC files on disk; stored as `archive/<basename>`. */
  warcs: readonly string[];
  index: IndexFiles;
  /** pages.jsonl on disk: streamed in, deflated. */
  pagesFile: string;
  info: DataPackageInfo;
}

export interface WrittenWacz {
  path: string;
  /** Every file listed in datapackage.json. */
  files: PackagedFile[];
}

export async function writeWacz(outPath: string, c: WaczContents): Promise<WrittenWacz> {
  const tmp = `${outPath}.tmp-${process.pid}`;
  const mtime = new Date(c.info.created);
  const zip = new yazl.ZipFile();
  const files: PackagedFile[] = [];
  try {
    await mkdir(path.dirname(outPath), { recursive: true });
    const written = pipeline(zip.outputStream, createWriteStream(tmp));
    // Observed below; this only keeps an early failure from counting as unhandled.
    written.catch(() => {});
    const hashed: Promise<void>[] = [];
    const addFile = (p: string, file: string, compress: boolean): void => {
      const entry: PackagedFile = { path: p, hash: '', bytes: 0 };
      files.push(entry);
      hashed.push(addHashedFile(zip, entry, file, { compressionLevel: compress ? TEXT_DEFLATE_LEVEL : 0, mtime }));
    };
    const addData = (p: string, data: Buffer, compress: boolean): void => {
      files.push({ path: p, hash: `sha256:${sha256Hex(data)}`, bytes: data.length });
      zip.addBuffer(data, p, { compressionLevel: compress ? TEXT_DEFLATE_LEVEL : 0, mtime });
    };
    for (const warc of c.warcs) addFile(`archive/${path.basename(warc)}`, warc, false);
    for (const f of c.index.files) {
      if ('file' in f) addFile(f.path, f.file, f.compress);
      else addData(f.path, f.data, f.compress);
    }
    addFile('pages/pages.jsonl', c.pagesFile, true);
    await Promise.race([Promise.all(hashed), written]);
    await Promise.all(hashed);
    const dataPackage = dataPackageJson(c.info, files);
    zip.addBuffer(dataPackage, 'datapackage.json', { mtime });
    zip.addBuffer(dataPackageDigestJson(dataPackage), 'datapackage-digest.json', { mtime });
    zip.end();
    await written;
    await rename(tmp, outPath);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err instanceof ArchiverError ? err : new WaczWriteError(outPath, err);
  }
  return { path: outPath, files };
}

/**
 * Queue a file on disk into the ZIP, hashing it as yazl streams it; the
 * promise settles (filling `entry`) once the whole file went through.
 */
function addHashedFile(zip: ZipFile, entry: PackagedFile, file: string, opts: { compressionLevel: number; mtime: Date }): Promise<void> {
  return new Promise<void>((done, failed) => {
    // Lazy: a file is opened only when yazl reaches it, so many WARCs never hold many descriptors.
    zip.addReadStreamLazy(entry.path, opts, (cb) => {
      const hash = createHash('sha256');
      const source = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
      // A Transform, not a 'data' listener: that would start the flow before yazl reads.
      const tap = new Transform({
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
      source.on('error', (err) => {
        failed(err);
        tap.destroy(err);
      });
      source.pipe(tap);
      cb(null, tap);
    });
  });
}
