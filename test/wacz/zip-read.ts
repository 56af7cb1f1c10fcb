/**
 * A small ZIP reader for the tests, written from the APPNOTE layout so the
 * packages are checked by code that shares nothing with the writer
 * (src/wacz/zip-writer.ts): end of central directory (and the ZIP64 one
 * when a locator points to it) → central directory (ZIP64 extra fields
 * followed) → local headers; stored and deflated entries; every CRC-32
 * verified. readZipDetails also gives each entry's headers and data
 * descriptor as they are, for tests of the writer's layout.
 */
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  data: Buffer;
}

/** An entry's 0x0001 extra field's values, or null without one. */
export type Zip64Extra = bigint[] | null;

export interface ZipEntryDetails extends ZipEntry {
  /** As the central directory says, ZIP64 values applied. */
  crc: number;
  size: number;
  compressedSize: number;
  flags: number;
  versionMadeBy: number;
  versionNeeded: number;
  externalAttributes: number;
  dosTime: number;
  dosDate: number;
  localOffset: number;
  /** Where the entry's data starts. */
  dataOffset: number;
  centralZip64: Zip64Extra;
  /** The local header's fields as they are (0xffffffff kept). */
  local: { versionNeeded: number; flags: number; method: number; crc: number; compressedSize: number; size: number; zip64: Zip64Extra };
  /** The data descriptor after the data, when flag bit 3 says there is one (8-byte sizes when the local header has a ZIP64 extra field). */
  descriptor: { signature: boolean; crc: number; compressedSize: number; size: number } | null;
}

export interface ZipDetails {
  entries: ZipEntryDetails[];
  /** The package has a ZIP64 end of central directory record (and locator). */
  zip64End: boolean;
  /** The classic end record's fields as they are. */
  end: { count: number; dirSize: number; dirOffset: number };
}

export function readZip(zip: Buffer): ZipEntry[] {
  return readZipDetails(zip).entries.map(({ name, method, data }) => ({ name, method, data }));
}

/** The 0x0001 extra field among `extra`'s, as 64-bit values. */
function zip64Extra(extra: Buffer): Zip64Extra {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const len = extra.readUInt16LE(at + 2);
    if (at + 4 + len > extra.length) throw new Error('extra field past its end');
    if (id === 0x0001) {
      const values: bigint[] = [];
      for (let v = 0; v + 8 <= len; v += 8) values.push(extra.readBigUInt64LE(at + 4 + v));
      return values;
    }
    at += 4 + len;
  }
  return null;
}

export function readZipDetails(zip: Buffer): ZipDetails {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end of central directory');
  const end = { count: zip.readUInt16LE(eocd + 10), dirSize: zip.readUInt32LE(eocd + 12), dirOffset: zip.readUInt32LE(eocd + 16) };
  let count = end.count;
  let at = end.dirOffset;
  // A ZIP64 locator just before the end record points to the ZIP64 end record, whose values replace the classic ones.
  const zip64End = eocd >= 20 && zip.readUInt32LE(eocd - 20) === 0x07064b50;
  if (zip64End) {
    const rec = Number(zip.readBigUInt64LE(eocd - 20 + 8));
    if (zip.readUInt32LE(rec) !== 0x06064b50) throw new Error('no ZIP64 end of central directory where the locator says');
    count = Number(zip.readBigUInt64LE(rec + 32));
    at = Number(zip.readBigUInt64LE(rec + 48));
  }
  const entries: ZipEntryDetails[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central header ${i}`);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    let compressed = zip.readUInt32LE(at + 20);
    let size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    let local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLen).toString('utf8');
    const centralZip64 = zip64Extra(zip.subarray(at + 46 + nameLen, at + 46 + nameLen + extraLen));
    // The ZIP64 extra field holds the values whose 32-bit fields say 0xffffffff, in this order.
    const wide = [...(centralZip64 ?? [])];
    const next = (field: string): number => {
      const v = wide.shift();
      if (v === undefined) throw new Error(`${name}: ${field} is 0xffffffff with no ZIP64 value`);
      return Number(v);
    };
    if (size === 0xffffffff) size = next('size');
    if (compressed === 0xffffffff) compressed = next('compressed size');
    if (local === 0xffffffff) local = next('local header offset');
    const central = {
      versionMadeBy: zip.readUInt16LE(at + 4),
      versionNeeded: zip.readUInt16LE(at + 6),
      flags: zip.readUInt16LE(at + 8),
      dosTime: zip.readUInt16LE(at + 12),
      dosDate: zip.readUInt16LE(at + 14),
      externalAttributes: zip.readUInt32LE(at + 38),
    };
    at += 46 + nameLen + extraLen + commentLen;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`);
    const localNameLen = zip.readUInt16LE(local + 26);
    const localExtraLen = zip.readUInt16LE(local + 28);
    const localZip64 = zip64Extra(zip.subarray(local + 30 + localNameLen, local + 30 + localNameLen + localExtraLen));
    const dataAt = local + 30 + localNameLen + localExtraLen;
    const raw = zip.subarray(dataAt, dataAt + compressed);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : null;
    if (data === null) throw new Error(`${name}: method ${method}`);
    if (data.length !== size) throw new Error(`${name}: size ${data.length} != ${size}`);
    if (crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    const localFlags = zip.readUInt16LE(local + 6);
    let descriptor: ZipEntryDetails['descriptor'] = null;
    if ((localFlags & 0x08) !== 0) {
      let d = dataAt + compressed;
      const signature = zip.readUInt32LE(d) === 0x08074b50;
      if (signature) d += 4;
      descriptor =
        localZip64 !== null
          ? { signature, crc: zip.readUInt32LE(d), compressedSize: Number(zip.readBigUInt64LE(d + 4)), size: Number(zip.readBigUInt64LE(d + 12)) }
          : { signature, crc: zip.readUInt32LE(d), compressedSize: zip.readUInt32LE(d + 4), size: zip.readUInt32LE(d + 8) };
    }
    entries.push({
      name,
      method,
      data,
      crc,
      size,
      compressedSize: compressed,
      ...central,
      localOffset: local,
      dataOffset: dataAt,
      centralZip64,
      local: {
        versionNeeded: zip.readUInt16LE(local + 4),
        flags: localFlags,
        method: zip.readUInt16LE(local + 8),
        crc: zip.readUInt32LE(local + 14),
        compressedSize: zip.readUInt32LE(local + 18),
        size: zip.readUInt32LE(local + 22),
        zip64: localZip64,
      },
      descriptor,
    });
  }
  return { entries, zip64End, end };
}
