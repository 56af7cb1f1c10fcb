/**
 * The byte layouts of a ZIP file (PKWARE APPNOTE 6.3) that zip-writer.ts
 * writes: an entry's local header (4.3.7) and data descriptor (4.3.9), its
 * central directory header (4.3.12), and the end records (4.3.14–4.3.16),
 * with ZIP64 fields (4.5.3) where a classic field cannot hold its value,
 * or everywhere when forced (the tests check readers follow them).
 */

export const STORED = 0;
export const DEFLATED = 8;
/** General-purpose flags: sizes and CRC in a data descriptor (bit 3); the name is UTF-8 (bit 11). */
export const FLAG_DESCRIPTOR = 1 << 3;
export const FLAG_UTF8 = 1 << 11;
export const MAX16 = 0xffff;
export const MAX32 = 0xffffffff;

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const END = 0x06054b50;
const ZIP64_EXTRA = 0x0001;
/** Version needed to extract: 2.0 (deflate, folders), 4.5 (ZIP64). Made by: 4.5 on Unix, so readers take the external attributes as a mode. */
const VERSION_NEEDED = 20;
const VERSION_ZIP64 = 45;
const VERSION_MADE_BY = (3 << 8) | 45;
/** A regular file, rw-r--r--. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;

/** What the headers say of an entry. */
export interface ZipEntry {
  name: Buffer;
  method: number;
  flags: number;
  crc: number;
  size: number;
  compressedSize: number;
  /** Where its local header starts. */
  offset: number;
  /** Its local header has a ZIP64 extra field. */
  zip64: boolean;
}

/** Every entry's modification time as MS-DOS packs it (APPNOTE 4.4.6). */
export interface DosTime {
  time: number;
  date: number;
}

/** `d` in local time, its seconds halved; years outside 1980–2107 clamped. */
export function dosDateTime(d: Date): DosTime {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Where a ZIP64 local header's compressed size lies, from the header's start (after the extra field's id, length and the size). */
export function zip64CompressedSizeAt(e: ZipEntry): number {
  return 30 + e.name.length + 12;
}

/** Where a classic local header's compressed size lies, from the header's start. */
export const COMPRESSED_SIZE_AT = 18;

/** The local header; a ZIP64 one has an extra field holding both sizes (zeros until they are known). */
export function localHeader(e: ZipEntry, dos: DosTime): Buffer {
  const extra = e.zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + e.name.length + extra);
  b.writeUInt32LE(LOCAL_HEADER, 0);
  b.writeUInt16LE(e.zip64 ? VERSION_ZIP64 : VERSION_NEEDED, 4);
  b.writeUInt16LE(e.flags, 6);
  b.writeUInt16LE(e.method, 8);
  b.writeUInt16LE(dos.time, 10);
  b.writeUInt16LE(dos.date, 12);
  b.writeUInt32LE(e.crc, 14);
  b.writeUInt32LE(e.zip64 ? MAX32 : e.compressedSize, COMPRESSED_SIZE_AT);
  b.writeUInt32LE(e.zip64 ? MAX32 : e.size, 22);
  b.writeUInt16LE(e.name.length, 26);
  b.writeUInt16LE(extra, 28);
  e.name.copy(b, 30);
  if (e.zip64) {
    const at = 30 + e.name.length;
    b.writeUInt16LE(ZIP64_EXTRA, at);
    b.writeUInt16LE(16, at + 2);
    b.writeBigUInt64LE(BigInt(e.size), at + 4);
    b.writeBigUInt64LE(BigInt(e.compressedSize), at + 12);
  }
  return b;
}

/**
 * CRC and sizes, 8-byte sizes for a ZIP64 entry. A stream that passed 4 GiB
 * without a ZIP64 local header gets 8-byte sizes too (as Java's and Go's
 * writers do): readers take them from the central directory, which has them right.
 */
export function dataDescriptor(e: ZipEntry): Buffer {
  const wide = e.zip64 || e.size >= MAX32 || e.compressedSize >= MAX32;
  const b = Buffer.alloc(wide ? 24 : 16);
  b.writeUInt32LE(DATA_DESCRIPTOR, 0);
  b.writeUInt32LE(e.crc, 4);
  if (wide) {
    b.writeBigUInt64LE(BigInt(e.compressedSize), 8);
    b.writeBigUInt64LE(BigInt(e.size), 16);
  } else {
    b.writeUInt32LE(e.compressedSize, 8);
    b.writeUInt32LE(e.size, 12);
  }
  return b;
}

/** The central directory header; its ZIP64 extra field holds exactly the values that say 0xffffffff, in this order. */
export function centralHeader(e: ZipEntry, dos: DosTime, force: boolean): Buffer {
  const wide = [e.size >= MAX32 || force, e.compressedSize >= MAX32 || force, e.offset >= MAX32 || force];
  const values = [e.size, e.compressedSize, e.offset].filter((_, i) => wide[i]);
  const extra = values.length === 0 ? 0 : 4 + 8 * values.length;
  const b = Buffer.alloc(46 + e.name.length + extra);
  b.writeUInt32LE(CENTRAL_HEADER, 0);
  b.writeUInt16LE(VERSION_MADE_BY, 4);
  b.writeUInt16LE(e.zip64 || extra > 0 ? VERSION_ZIP64 : VERSION_NEEDED, 6);
  b.writeUInt16LE(e.flags, 8);
  b.writeUInt16LE(e.method, 10);
  b.writeUInt16LE(dos.time, 12);
  b.writeUInt16LE(dos.date, 14);
  b.writeUInt32LE(e.crc, 16);
  b.writeUInt32LE(wide[1] ? MAX32 : e.compressedSize, 20);
  b.writeUInt32LE(wide[0] ? MAX32 : e.size, 24);
  b.writeUInt16LE(e.name.length, 28);
  b.writeUInt16LE(extra, 30);
  // Comment length, disk number start and internal attributes stay 0.
  b.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  b.writeUInt32LE(wide[2] ? MAX32 : e.offset, 42);
  e.name.copy(b, 46);
  if (extra > 0) {
    const at = 46 + e.name.length;
    b.writeUInt16LE(ZIP64_EXTRA, at);
    b.writeUInt16LE(extra - 4, at + 2);
    values.forEach((value, i) => b.writeBigUInt64LE(BigInt(value), at + 4 + 8 * i));
  }
  return b;
}

/** The end records after a central directory of `count` entries, `size` bytes from `start`: ZIP64 ones first when a classic field cannot hold its value. */
export function endRecords(dir: { count: number; start: number; size: number }, force: boolean): Buffer {
  const { count, start, size } = dir;
  const parts: Buffer[] = [];
  if (force || count >= MAX16 || size >= MAX32 || start >= MAX32) {
    const end64 = Buffer.alloc(56 + 20);
    end64.writeUInt32LE(ZIP64_END, 0);
    end64.writeBigUInt64LE(44n, 4); // The size of the rest of this record.
    end64.writeUInt16LE(VERSION_MADE_BY, 12);
    end64.writeUInt16LE(VERSION_ZIP64, 14);
    // Number of this disk and of the disk where the directory starts: 0.
    end64.writeBigUInt64LE(BigInt(count), 24);
    end64.writeBigUInt64LE(BigInt(count), 32);
    end64.writeBigUInt64LE(BigInt(size), 40);
    end64.writeBigUInt64LE(BigInt(start), 48);
    end64.writeUInt32LE(ZIP64_LOCATOR, 56);
    end64.writeBigUInt64LE(BigInt(start + size), 64);
    end64.writeUInt32LE(1, 72); // Total number of disks.
    parts.push(end64);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(force || count >= MAX16 ? MAX16 : count, 8);
  end.writeUInt16LE(force || count >= MAX16 ? MAX16 : count, 10);
  end.writeUInt32LE(force || size >= MAX32 ? MAX32 : size, 12);
  end.writeUInt32LE(force || start >= MAX32 ? MAX32 : start, 16);
  parts.push(end);
  return Buffer.concat(parts);
}
