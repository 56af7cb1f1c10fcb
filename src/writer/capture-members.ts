/**
 * Turns one capture into what the write queue appends: its three records
 * (response or revisit, request, metadata) built and digested, and each
 * compressed to its own gzip member, all three in one request to the
 * compressor. The crawl's page thread runs this same function (and the
 * writer's capture thread, for captures handed to writeCapture). This runs outside
 * the serial queue, several captures at once, so compression of one capture
 * overlaps the writing of the ones before it. A record too large to hold in
 * memory is left uncompressed here and streamed through zlib by the queue.
 */
import { ArchiverError } from '../core/errors.js';
import { payloadIsCompressed } from './compressed-payload.js';
import { DEFLATE_LEVEL, fitsInMemory, gatherRecord, STORE_LEVEL, type MemberCompressor } from './gzip-member.js';
import type { CaptureRecordInput, PreparedRecord, WarcInfoInput, WarcVersion } from './warc-records.js';
import { loadOnce } from '../core/load-once.js';

/** warc-records.ts, and with it warcio (pako, hash-wasm, uuid-random), loaded by the first capture. */
const warcRecords = loadOnce(() => import('./warc-records.js'));

/** A finished gzip member, or a record too large for memory, to be streamed through zlib when written. */
export type Member = Buffer | PreparedRecord;

export interface CaptureMembers {
  /** The response or revisit record. */
  main: Member;
  request: Member;
  metadata: Member;
  mainId: string;
  revisit: boolean;
}

/**
 * Build, check and compress one capture. Rejects with
 * ArchiverError(ARCHIVER_WARC_DIGEST_MISMATCH) when the stored body's digest
 * is not the fetcher's (nothing compressed, nothing written); any other
 * rejection is a failure to read the body.
 */
export async function captureMembers(c: CaptureRecordInput, version: WarcVersion, compressor: MemberCompressor): Promise<CaptureMembers> {
  // Reads the body (one pass, for Content-Length and digests) before a byte is compressed.
  const records = await (await warcRecords()).buildCaptureRecords(c, version);
  if (!records.revisit && records.payloadDigest !== c.exchange.payloadDigest) {
    throw new ArchiverError(
      'ARCHIVER_WARC_DIGEST_MISMATCH',
      `payload digest of ${c.exchange.url} is ${records.payloadDigest}, the fetcher said ${c.exchange.payloadDigest}`,
    );
  }
  // Each record is its own member; those that fit in memory go to the compressor together.
  const all = [records.main, records.request, records.metadata];
  const whole = all.filter(fitsInMemory);
  // A body already compressed is stored, not deflated again (its request and metadata records are deflated).
  const stored = !records.revisit && payloadIsCompressed(c.exchange.responseHeaders);
  const levels = whole.map((r) => (r === records.main && stored ? STORE_LEVEL : DEFLATE_LEVEL));
  const members = await compressor.gzip(await Promise.all(whole.map(gatherRecord)), levels);
  const [main, request, metadata] = all.map((r) => (fitsInMemory(r) ? (members[whole.indexOf(r)] as Buffer) : r)) as [Member, Member, Member];
  return { main, request, metadata, mainId: records.mainId, revisit: records.revisit };
}

/**
 * The gzip member of a file's warcinfo record (always small enough to hold),
 * made with `compressor`: in the thread that calls, which loads warcio for it
 * (the page thread of a crawl has it loaded already, page-thread.ts).
 */
export async function warcInfoMember(w: WarcInfoInput, compressor: MemberCompressor): Promise<Buffer> {
  const record = await (await warcRecords()).buildWarcInfo(w);
  const [member] = await compressor.gzip([await gatherRecord(record)], [DEFLATE_LEVEL]);
  return member!;
}
