/**
 * A capture's three records made and compressed in one synchronous pass,
 * for a body already in memory: what the page thread does for every page.
 * The records are warcio's, made by captureRecordParts as on the streaming
 * path (warc-records.ts, capture-members.ts); only the pass that fills
 * their digests and Content-Length and lays them out is done here without
 * warcio's WARCSerializer, whose async generators (a body read twice, a
 * promise per chunk) cost a small page more than hashing and deflating it.
 * The bytes are the serializer's: a test builds each capture both ways and
 * compares (test/writer/in-memory-records.test.ts).
 */
import { ArchiverError } from '../core/errors.js';
import type { CaptureMembers } from './capture-members.js';
import { payloadIsCompressed } from './compressed-payload.js';
import { DEFLATE_LEVEL, STORE_LEVEL, WHOLE_GZIP_MAX_BYTES } from './gzip-member.js';
import { DigestTap, setDigests } from './record-digest.js';
import { captureRecordParts, type CaptureRecordInput, type WarcVersion } from './warc-records.js';
import type { WARCRecord } from './warcio.js';

/** One gzip member of `input` at a deflate level, synchronously. */
export type SyncMemberGzip = (input: Uint8Array, level: number) => Buffer;

const CRLF = Buffer.from('\r\n', 'latin1');
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');
const NOTHING = Buffer.alloc(0);

/** Bodies up to this size take the in-memory pass (its records must each fit WHOLE_GZIP_MAX_BYTES with heads and outlinks). */
export const IN_MEMORY_BODY_MAX_BYTES = WHOLE_GZIP_MAX_BYTES / 2;

/**
 * The capture's members, or null when a record would be too large to make
 * in memory (the streaming path takes it). Throws
 * ArchiverError(ARCHIVER_WARC_DIGEST_MISMATCH) as captureMembers does.
 */
export function inMemoryCaptureMembers(c: CaptureRecordInput, body: Uint8Array, version: WarcVersion, gzip: SyncMemberGzip): CaptureMembers | null {
  if (body.length > IN_MEMORY_BODY_MAX_BYTES) return null;
  const none = { main: [], request: [], metadata: [] };
  const parts = captureRecordParts(c, version, () => none);
  const revisit = parts.revisit;
  const payload = revisit ? NOTHING : body;
  const main = laidOut(parts.main, parts.mainHead, payload, revisit ? 'keep' : 'computed');
  const request = laidOut(parts.request, parts.requestHead, parts.requestBody, 'none');
  const metadata = laidOut(parts.metadata, null, parts.fields, 'none');
  if (main.length > WHOLE_GZIP_MAX_BYTES || request.length > WHOLE_GZIP_MAX_BYTES || metadata.length > WHOLE_GZIP_MAX_BYTES) return null;
  const payloadDigest = parts.main.warcPayloadDigest ?? '';
  if (!revisit && payloadDigest !== c.exchange.payloadDigest) {
    throw new ArchiverError('ARCHIVER_WARC_DIGEST_MISMATCH', `payload digest of ${c.exchange.url} is ${payloadDigest}, the fetcher said ${c.exchange.payloadDigest}`);
  }
  // A body already compressed is stored, not deflated again (its request and metadata records are deflated).
  const stored = !revisit && payloadIsCompressed(c.exchange.responseHeaders);
  return {
    main: gzip(main, stored ? STORE_LEVEL : DEFLATE_LEVEL),
    request: gzip(request, DEFLATE_LEVEL),
    metadata: gzip(metadata, DEFLATE_LEVEL),
    mainId: parts.mainId,
    revisit,
  };
}

/**
 * One record's bytes, as WARCSerializer lays them out once record-digest.ts
 * has filled its head: the WARC head (Content-Length, then the block digest,
 * and the payload digest computed, kept or dropped), a CRLF, the HTTP head,
 * the payload, two CRLFs.
 */
function laidOut(record: WARCRecord, httpHead: Buffer | null, payload: Uint8Array, payloadDigest: 'computed' | 'keep' | 'none'): Buffer {
  const headers = record.warcHeaders.headers;
  const tap = new DigestTap(httpHead, payloadDigest === 'computed');
  tap.feed(payload);
  headers.set('Content-Length', String((httpHead?.length ?? 0) + payload.length));
  setDigests(headers, tap, payloadDigest);
  const warcHead = Buffer.from(record.warcHeaders.toString(), 'utf8');
  return Buffer.concat([warcHead, CRLF, httpHead ?? NOTHING, payload, CRLF2]);
}
