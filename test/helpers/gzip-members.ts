/**
 * Splits a .gz file into its members (RFC 1952) without trusting anything
 * but the format: each member's header is parsed, its deflate stream
 * inflated on its own (node:zlib reports how many bytes it consumed), and
 * its trailer's CRC-32 and length checked. A WARC written one record per
 * member must give exactly one record per member; a file that only inflates
 * as a whole (a record split across members, a cut member) fails here.
 */
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';

export interface GzipMember {
  offset: number;
  length: number;
  data: Buffer;
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

export function gzipMembers(file: Buffer): GzipMember[] {
  const members: GzipMember[] = [];
  let at = 0;
  while (at < file.length) {
    if (file[at] !== 0x1f || file[at + 1] !== 0x8b || file[at + 2] !== 8) throw new Error(`no gzip member at ${at}`);
    const flags = file[at + 3]!;
    let p = at + 10;
    if (flags & FEXTRA) p += 2 + file.readUInt16LE(p);
    if (flags & FNAME) p = file.indexOf(0, p) + 1;
    if (flags & FCOMMENT) p = file.indexOf(0, p) + 1;
    if (flags & FHCRC) p += 2;
    const { buffer, engine } = inflateRawSync(file.subarray(p), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    const end = p + engine.bytesWritten + 8;
    if (end > file.length) throw new Error(`member at ${at} is cut`);
    const crc = file.readUInt32LE(end - 8);
    const size = file.readUInt32LE(end - 4);
    if (crc !== crc32(buffer) >>> 0 || size !== buffer.length % 2 ** 32) throw new Error(`member at ${at}: trailer does not match its data`);
    members.push({ offset: at, length: end - at, data: buffer });
    at = end;
  }
  return members;
}

/** One record's gzip member as text, its random record ids (and references to them) blanked: two makings of the same record compare equal. */
export function recordWithoutIds(member: Buffer): string {
  return gunzipSync(member).toString('latin1').replace(/<urn:uuid:[0-9a-f-]+>/g, '<id>');
}
