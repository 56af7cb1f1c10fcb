/**
 * Builds the warcio records of one capture (response or revisit, request,
 * metadata) and of the warcinfo that opens each file, and prepares them for
 * writing: one pass over each record fills Content-Length (warcio) and the
 * digests (record-digest.ts). A body is read twice in all, once for that
 * pass and once while writing, and never held whole in memory.
 */
import { randomUUID } from 'node:crypto';
import { BaseSerializerBuffer, createRecord, createWarcInfo, WARCSerializer, type StatusAndHeaders, type WARCRecord, type WARCSerializerOpts } from './warcio.js';
import { ArchiverError } from '../core/errors.js';
import type { BodyStore, HttpExchange } from '../core/exchange.js';
import { requestBody, requestHead, responseHead } from './http-block.js';
import { DigestTap, finishDigests, PENDING_DIGEST } from './record-digest.js';
import { warcDate } from './warc-naming.js';

export type WarcVersion = '1.0' | '1.1';

/** warcio lays out the records; compression (gzip-member.ts) and digests (record-digest.ts) are ours. */
const SERIALIZER_OPTS: WARCSerializerOpts = { gzip: false, digest: { algo: 'sha-1', prefix: 'sha1:', base32: true } };

const CONFORMS_TO: Record<WarcVersion, string> = {
  '1.0': 'http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf',
  '1.1': 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
};

/** A record ready to write: its uncompressed bytes (streamed) and their count. */
export interface PreparedRecord {
  chunks: AsyncIterable<Uint8Array>;
  sizeBytes: number;
}

export interface CaptureRecordInput {
  exchange: HttpExchange;
  hopPath: string;
  via: string | null;
  outlinks: ReadonlyArray<{ url: string; hop: string; context: string }>;
  revisitOf?: { url: string; date: string; container?: string };
}

export interface CaptureRecords {
  /** The response or revisit record. */
  main: PreparedRecord;
  mainId: string;
  revisit: boolean;
  /** WARC-Payload-Digest of the main record as computed over the stored body (revisit: the original's). */
  payloadDigest: string;
  request: PreparedRecord;
  metadata: PreparedRecord;
}

/**
 * Serializer buffer that keeps nothing: during warcio's pass it only counts
 * the body bytes, and the write pass streams them again from the BodyStore,
 * so a large body is never held in memory nor copied to a second temp file.
 * The count guards against a store that changed between the two passes,
 * which would make Content-Length lie.
 */
export class BodyReplayBuffer extends BaseSerializerBuffer {
  #countedBytes = 0;
  constructor(private readonly body: BodyStore) {
    super();
  }
  write(chunk: Uint8Array): void {
    this.#countedBytes += chunk.length;
  }
  async *readAll(): AsyncIterable<Uint8Array> {
    let streamed = 0;
    for await (const chunk of this.body.stream()) {
      streamed += chunk.length;
      if (streamed > this.#countedBytes) break;
      yield chunk;
    }
    if (streamed !== this.#countedBytes) {
      throw new ArchiverError('ARCHIVER_BODY_CHANGED', `body store gave ${streamed} bytes on re-read, ${this.#countedBytes} when digested`);
    }
  }
  purge(): void {}
}

function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

function versionLine(v: WarcVersion): 'WARC/1.0' | 'WARC/1.1' {
  return v === '1.1' ? 'WARC/1.1' : 'WARC/1.0';
}

/** The HTTP head bytes exactly as warcio's serializer writes them. */
function headBytes(head: StatusAndHeaders): Buffer {
  return Buffer.from(head.toString() + '\r\n', 'utf8');
}

/** The bytes of a capture's records besides the response body: what their blocks are made of. */
export interface CaptureBlocks {
  /** The HTTP heads exactly as warcio's serializer writes them. */
  mainHead: Buffer;
  requestHead: Buffer;
  /** A POST's body (empty for a GET): the request record's payload. */
  requestBody: Buffer;
  /** The metadata record's block. */
  fields: Buffer;
}

/** What warcio's WARCRecord.create reads each record's content from. */
export interface CaptureContent {
  main: WARCRecordContent;
  request: WARCRecordContent;
  metadata: WARCRecordContent;
}
type WARCRecordContent = Parameters<typeof createRecord>[1];

/**
 * A capture's three records as warcio creates them, before any byte is
 * read: their WARC heads, the digests and Content-Length still to fill.
 * The streaming path (buildCaptureRecords) and the in-memory one
 * (in-memory-records.ts) fill them the same way; `contentFor` gives each
 * record's content from the blocks.
 */
export interface CaptureRecordParts extends CaptureBlocks {
  mainId: string;
  revisit: boolean;
  main: WARCRecord;
  request: WARCRecord;
  metadata: WARCRecord;
}

export function captureRecordParts(c: CaptureRecordInput, version: WarcVersion, contentFor: (blocks: CaptureBlocks) => CaptureContent): CaptureRecordParts {
  const ex = c.exchange;
  const date = warcDate(ex.startedAt, version);
  const warcVersion = versionLine(version);
  const mainId = recordId();
  const revisit = c.revisitOf !== undefined;
  /** Headers of a record that belongs to the main one (request, metadata). */
  const concurrentHeaders = (type: 'request' | 'metadata'): [string, string][] => [
    ['WARC-Type', type],
    ['WARC-Record-ID', recordId()],
    ['WARC-Date', date],
    ['WARC-Target-URI', ex.url],
    ['WARC-Concurrent-To', mainId],
    ['WARC-Payload-Digest', PENDING_DIGEST],
    ['WARC-Block-Digest', PENDING_DIGEST],
  ];

  const mainHeaders: [string, string][] = [
    ['WARC-Type', revisit ? 'revisit' : 'response'],
    ['WARC-Record-ID', mainId],
    ['WARC-Date', date],
    ['WARC-Target-URI', ex.url],
  ];
  if (ex.ip !== null) mainHeaders.push(['WARC-IP-Address', ex.ip]);
  // A revisit has no payload, so nothing to call truncated; its payload digest is the original's.
  if (!revisit && ex.truncated !== null) mainHeaders.push(['WARC-Truncated', ex.truncated]);
  mainHeaders.push(['WARC-Payload-Digest', revisit ? ex.payloadDigest : PENDING_DIGEST], ['WARC-Block-Digest', PENDING_DIGEST]);
  // Where the original lives when it is in another crawl's package (ReplayWeb.page looks it up there).
  if (c.revisitOf?.container) mainHeaders.push(['WARC-Refers-To-Container', c.revisitOf.container]);

  const respHead = responseHead(ex);
  const reqHead = requestHead(ex.requestHead);
  const blocks: CaptureBlocks = {
    mainHead: headBytes(respHead),
    requestHead: headBytes(reqHead),
    // A POST's body follows its head (fetcher.ts): replay matches a POST by it (wabac's __wb_method=post key).
    requestBody: requestBody(ex.requestHead),
    fields: Buffer.from(metadataFields(c), 'utf8'),
  };
  const content = contentFor(blocks);
  const main = createRecord(
    {
      type: revisit ? 'revisit' : 'response',
      date,
      warcVersion,
      warcHeaders: mainHeaders,
      ...(c.revisitOf ? { refersToUrl: c.revisitOf.url, refersToDate: c.revisitOf.date } : {}),
    },
    content.main,
  );
  main.httpHeaders = respHead;
  const request = createRecord({ type: 'request', date, warcVersion, warcHeaders: concurrentHeaders('request') }, content.request);
  request.httpHeaders = reqHead;
  const metadata = createRecord({ type: 'metadata', date, warcVersion, warcHeaders: concurrentHeaders('metadata') }, content.metadata);
  return { ...blocks, mainId, revisit, main, request, metadata };
}

export async function buildCaptureRecords(c: CaptureRecordInput, version: WarcVersion): Promise<CaptureRecords> {
  const ex = c.exchange;
  const revisit = c.revisitOf !== undefined;
  // Each tap hashes a record's block (its HTTP head, then what warcio reads) as warcio reads it.
  let mainTap!: DigestTap;
  let reqTap!: DigestTap;
  const metaTap = new DigestTap(null, false);
  const parts = captureRecordParts(c, version, (b) => {
    mainTap = new DigestTap(b.mainHead, !revisit);
    reqTap = new DigestTap(b.requestHead, false);
    return {
      // Every pass needs a fresh BodyStore.stream(): an async generator is single-use.
      main: mainTap.wrap(() => (revisit ? [] : ex.body.stream())),
      request: reqTap.wrap(() => (b.requestBody.length > 0 ? [b.requestBody] : [])),
      metadata: metaTap.wrap(() => [b.fields]),
    };
  });
  const mainSer = new WARCSerializer(parts.main, SERIALIZER_OPTS, revisit ? undefined : new BodyReplayBuffer(ex.body));
  const mainSize = await finishDigests(mainSer, mainTap, revisit ? 'keep' : 'computed');
  const reqSer = new WARCSerializer(parts.request, SERIALIZER_OPTS);
  const reqSize = await finishDigests(reqSer, reqTap, 'none');
  const metaSer = new WARCSerializer(parts.metadata, SERIALIZER_OPTS);
  const metaSize = await finishDigests(metaSer, metaTap, 'none');

  return {
    main: { chunks: mainSer, sizeBytes: mainSize },
    mainId: parts.mainId,
    revisit,
    payloadDigest: parts.main.warcPayloadDigest ?? '',
    request: { chunks: reqSer, sizeBytes: reqSize },
    metadata: { chunks: metaSer, sizeBytes: metaSize },
  };
}

/**
 * Heritrix's metadata fields: `seed` for seeds, otherwise `via` and
 * `hopsFromSeed` (the hop path), then `fetchTimeMs` and one
 * `outlink: <url> <hop> <context>` per extracted link.
 */
export function metadataFields(c: Pick<CaptureRecordInput, 'exchange' | 'hopPath' | 'via' | 'outlinks'>): string {
  const lines: string[] = [];
  if (c.via === null) lines.push('seed: true');
  else lines.push(`via: ${c.via}`);
  if (c.hopPath !== '') lines.push(`hopsFromSeed: ${c.hopPath}`);
  lines.push(`fetchTimeMs: ${Math.max(0, Math.round(c.exchange.durationMs))}`);
  for (const link of c.outlinks) lines.push(`outlink: ${link.url} ${link.hop} ${link.context === '' ? '-' : link.context}`);
  return lines.map((l) => `${l}\r\n`).join('');
}

export interface WarcInfoInput {
  filename: string;
  openedAt: Date;
  version: WarcVersion;
  software: string;
  hostname: string;
  info: { userAgent: string; from?: string; robotsPolicy: string; operator?: string; description?: string; jobName: string };
}

export async function buildWarcInfo(w: WarcInfoInput): Promise<PreparedRecord> {
  const fields: Record<string, string> = {
    software: w.software,
    hostname: w.hostname,
    format: `WARC File Format ${w.version}`,
    conformsTo: CONFORMS_TO[w.version],
  };
  if (w.info.operator) fields['operator'] = w.info.operator;
  fields['http-header-user-agent'] = w.info.userAgent;
  if (w.info.from) fields['http-header-from'] = w.info.from;
  fields['robots'] = w.info.robotsPolicy;
  if (w.info.description) fields['description'] = w.info.description;
  fields['isPartOf'] = w.info.jobName;
  const record = createWarcInfo(
    {
      filename: w.filename,
      date: warcDate(w.openedAt, w.version),
      warcVersion: versionLine(w.version),
      warcHeaders: [
        ['WARC-Type', 'warcinfo'],
        ['WARC-Record-ID', recordId()],
      ],
    },
    fields,
  );
  // warcio gives warcinfo no digests (nor does Heritrix); Content-Length is all the pass fills.
  const ser = new WARCSerializer(record, SERIALIZER_OPTS);
  return { chunks: ser, sizeBytes: await finishDigests(ser, null, 'keep') };
}
