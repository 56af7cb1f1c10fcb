/**
 * Builds the warcio records of one capture (response or revisit, request,
 * metadata) and of the warcinfo that opens each file, and prepares them for
 * writing: one pass over each record fills Content-Length (warcio) and the
 * digests (record-digest.ts). A body is read twice in all, once for that
 * pass and once while writing, and never held whole in memory.
 */
import { randomUUID } from 'node:crypto';
import { BaseSerializerBuffer, createRecord, createWarcInfo, WARCSerializer, type StatusAndHeaders, type WARCSerializerOpts } from './warcio.js';
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

export async function buildCaptureRecords(c: CaptureRecordInput, version: WarcVersion): Promise<CaptureRecords> {
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
  const mainTap = new DigestTap(headBytes(respHead), !revisit);
  const main = createRecord(
    {
      type: revisit ? 'revisit' : 'response',
      date,
      warcVersion,
      warcHeaders: mainHeaders,
      ...(c.revisitOf ? { refersToUrl: c.revisitOf.url, refersToDate: c.revisitOf.date } : {}),
    },
    // Every pass needs a fresh BodyStore.stream(): an async generator is single-use.
    mainTap.wrap(() => (revisit ? [] : ex.body.stream())),
  );
  main.httpHeaders = respHead;
  const mainSer = new WARCSerializer(main, SERIALIZER_OPTS, revisit ? undefined : new BodyReplayBuffer(ex.body));
  const mainSize = await finishDigests(mainSer, mainTap, revisit ? 'keep' : 'computed');

  const reqHead = requestHead(ex.requestHead);
  // A POST's body follows its head (fetcher.ts): replay matches a POST by it (wabac's __wb_method=post key).
  const reqBody = requestBody(ex.requestHead);
  const reqTap = new DigestTap(headBytes(reqHead), false);
  const request = createRecord({ type: 'request', date, warcVersion, warcHeaders: concurrentHeaders('request') }, reqTap.wrap(() => (reqBody.length > 0 ? [reqBody] : [])));
  request.httpHeaders = reqHead;
  const reqSer = new WARCSerializer(request, SERIALIZER_OPTS);
  const reqSize = await finishDigests(reqSer, reqTap, 'none');

  const metaTap = new DigestTap(null, false);
  const fields = Buffer.from(metadataFields(c), 'utf8');
  const metadata = createRecord({ type: 'metadata', date, warcVersion, warcHeaders: concurrentHeaders('metadata') }, metaTap.wrap(() => [fields]));
  const metaSer = new WARCSerializer(metadata, SERIALIZER_OPTS);
  const metaSize = await finishDigests(metaSer, metaTap, 'none');

  return {
    main: { chunks: mainSer, sizeBytes: mainSize },
    mainId,
    revisit,
    payloadDigest: main.warcPayloadDigest ?? '',
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
