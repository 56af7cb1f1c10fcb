/**
 * The WARC files inside a WACZ, as byte ranges of the package: a WACZ is a
 * ZIP whose `archive/` entries are stored uncompressed, so a WARC in it can
 * be read in place (warc/warc-records.ts takes a range) without unpacking.
 * Reads the end of central directory (ZIP64 included: packages pass 4 GiB),
 * the central directory, and each entry's local header for where its data
 * starts (APPNOTE 6.3, sections 4.3.6-4.3.16).
 */
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { NoInputError } from '../core/errors.js';
import { isWarcName, type WarcSource } from '../warc/warc-records.js';

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** End of central directory: 22 bytes and a comment of at most 65,535. */
const TAIL_BYTES = 22 + 0xffff;

async function readAt(fh: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

function notAZip(file: string, why: string): NoInputError {
  return new NoInputError(`${file}: not a readable WACZ (${why})`);
}

/** The `archive/*.warc(.gz)` entries of a WACZ, in the package's order, as ranges to read. */
export async function waczWarcs(file: string): Promise<WarcSource[]> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const tailStart = Math.max(0, size - TAIL_BYTES);
    const tail = await readAt(fh, tailStart, size - tailStart);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw notAZip(file, 'no end of central directory');
    let count = tail.readUInt16LE(at + 10);
    let dirSize = tail.readUInt32LE(at + 12);
    let dirOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      const loc = at - 20;
      if (loc < 0 || tail.readUInt32LE(loc) !== ZIP64_LOCATOR) throw notAZip(file, 'no ZIP64 locator');
      const eocd64 = await readAt(fh, Number(tail.readBigUInt64LE(loc + 8)), 56);
      if (eocd64.length < 56 || eocd64.readUInt32LE(0) !== ZIP64_EOCD) throw notAZip(file, 'no ZIP64 end of central directory');
      count = Number(eocd64.readBigUInt64LE(32));
      dirSize = Number(eocd64.readBigUInt64LE(40));
      dirOffset = Number(eocd64.readBigUInt64LE(48));
    }
    const dir = await readAt(fh, dirOffset, dirSize);
    const out: WarcSource[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw notAZip(file, `bad central directory entry ${n}`);
      const method = dir.readUInt16LE(p + 10);
      let compressed = dir.readUInt32LE(p + 20);
      let uncompressed = dir.readUInt32LE(p + 24);
      const nameLen = dir.readUInt16LE(p + 28);
      const extraLen = dir.readUInt16LE(p + 30);
      const commentLen = dir.readUInt16LE(p + 32);
      let local = dir.readUInt32LE(p + 42);
      const name = dir.toString('utf8', p + 46, p + 46 + nameLen);
      // ZIP64 extended information: the 64-bit values of the fields that say 0xffffffff, in this order.
      const extra = dir.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen);
      for (let e = 0; e + 4 <= extra.length; ) {
        const id = extra.readUInt16LE(e);
        const len = extra.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          const next = (): number => {
            const v = Number(extra.readBigUInt64LE(q));
            q += 8;
            return v;
          };
          if (uncompressed === 0xffffffff) uncompressed = next();
          if (compressed === 0xffffffff) compressed = next();
          if (local === 0xffffffff) local = next();
        }
        e += 4 + len;
      }
      p += 46 + nameLen + extraLen + commentLen;
      if (!name.startsWith('archive/') || !isWarcName(name)) continue;
      if (method !== 0) throw notAZip(file, `${name} is compressed in the ZIP (method ${method}); WACZ stores WARCs`);
      const head = await readAt(fh, local, 30);
      if (head.length < 30 || head.readUInt32LE(0) !== LOCAL) throw notAZip(file, `bad local header of ${name}`);
      const start = local + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
      out.push({ path: file, name: `${file}#${name}`, start, length: compressed });
    }
    return out;
  } finally {
    await fh.close();
  }
}

/** Whether a path names a WACZ package. */
export function isWaczName(file: string): boolean {
  return path.extname(file).toLowerCase() === '.wacz';
}
