/**
 * Reads one WARC file (gzipped per record, whole, or plain; the shared
 * record reader of src/warc/) and produces the CDXJ entries of its
 * response, revisit and resource records. A record's length is the
 * distance to the next record's offset (or to damage, or to the end of the
 * file): with one gzip member per record that is exactly the member, which
 * is what a reader seeks to and inflates.
 *
 * A caller can look at every indexed record on the way (the WACZ page list
 * reads HTML bodies here) so the file is read only once.
 *
 * A cut or corrupt stretch of the file is reported through `onDamage` and
 * reading goes on past it; without `onDamage` the file is read to its end
 * and then WarcDamagedError names every damaged stretch, so nothing indexes
 * a damaged file by accident.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { WarcDamagedError, type WarcDamage } from '../warc/warc-damage.js';
import { parseHttpHead, readWarcRecords, WARC_RECORDS_DEFAULTS, type HttpHead, type WarcRecord } from '../warc/warc-records.js';
import { entryFor, REVISIT_MIME, type CdxjEntry } from './cdxj.js';

const INDEXED_TYPES = new Set(['response', 'revisit', 'resource']);
/** Blocks kept: HTTP heads (and page bodies) of responses and revisits, metadata fields. */
const KEPT_BLOCKS: ReadonlySet<string> = new Set(['response', 'revisit', 'metadata']);
/** The first this many bytes of a block are kept: page bodies past it are read in part (page text is capped at 8 MiB decoded anyway). */
const MAX_KEPT_BLOCK_BYTES = 16 << 20;

/** A record as the visitors see it: WARC fields, the HTTP head when it has one, the payload as stored. */
export interface IndexedRecord {
  /** WARC-Type ('' when missing). */
  type: string;
  /** WARC-Target-URI without <…>; '' when missing. */
  url: string;
  /** WARC-Date, or null. */
  date: string | null;
  /** WARC fields, lower-cased names. */
  warcHeaders: Map<string, string>;
  /** The HTTP head of a response or revisit; null otherwise or when it has none. */
  http: HttpHead | null;
  /** Every HTTP header line as [lower-cased name, value], repeats kept (X-Robots-Tag may be given twice). */
  httpHeaderList(): [string, string][];
  /** The block after the HTTP head (the payload as stored; chunked framing and Content-Encoding kept), or the whole block. */
  payload(): Buffer;
}

/** Called with each record that gets an index entry, before the reader moves on; it may read the body. */
export type RecordVisitor = (record: IndexedRecord, entry: CdxjEntry) => Promise<void>;

/** Called with every record, indexed or not (metadata records carry the seed flag). */
export type AnyRecordVisitor = (record: IndexedRecord) => Promise<void>;

export interface IndexFileOptions {
  /** Name written in `filename`; default the file's base name. */
  filename?: string;
  onIndexed?: RecordVisitor;
  onRecord?: AnyRecordVisitor;
  /** Told of each cut or corrupt stretch (reading goes on past it); without it, WarcDamagedError once the file is read. */
  onDamage?: (damage: WarcDamage) => void;
}

function indexedRecord(record: WarcRecord): IndexedRecord {
  const type = record.type ?? '';
  const http = type === 'response' || type === 'revisit' ? parseHttpHead(record.block) : null;
  return {
    type,
    url: record.targetUri ?? '',
    date: record.headers.get('warc-date') ?? null,
    warcHeaders: record.headers,
    http,
    httpHeaderList: () => (http === null ? [] : headerList(record.block.subarray(0, http.bodyStart))),
    payload: () => (http === null ? record.block : record.block.subarray(http.bodyStart)),
  };
}

function headerList(head: Buffer): [string, string][] {
  const out: [string, string][] = [];
  for (const line of head.toString('utf8').split(/\r?\n/).slice(1)) {
    const last = out[out.length - 1];
    if ((line[0] === ' ' || line[0] === '\t') && last !== undefined) {
      last[1] += ' ' + line.trim(); // obs-fold
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) out.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return out;
}

export async function indexWarcFile(file: string, opts: IndexFileOptions = {}): Promise<CdxjEntry[]> {
  const filename = opts.filename ?? path.basename(file);
  const entries: CdxjEntry[] = [];
  /** Offset of every record, and of every damaged stretch, in file order; lengths come from the gaps between them. */
  const offsets: number[] = [];
  /** Index into `offsets` of each entry's record. */
  const recordOf: number[] = [];
  const { size } = await stat(file);
  const damage: WarcDamage[] = [];
  const records = readWarcRecords(file, {
    ...WARC_RECORDS_DEFAULTS,
    keepBlockOf: KEPT_BLOCKS,
    maxKeptBlockBytes: MAX_KEPT_BLOCK_BYTES,
    onDamage: (d) => {
      offsets.push(d.offset);
      if (opts.onDamage) opts.onDamage(d);
      else damage.push(d);
    },
  });
  for await (const record of records) {
    // Reported as damage; an entry would send a replay tool to a record that is not whole.
    if (record.truncated) continue;
    offsets.push(record.offset);
    const indexed = indexedRecord(record);
    const { type, url } = indexed;
    if (INDEXED_TYPES.has(type) && url !== '' && indexed.date !== null) {
      const entry = entryFor({
        url,
        warcDate: indexed.date,
        mime: type === 'revisit' ? REVISIT_MIME : mimeOf(indexed),
        status: statusOf(indexed),
        digest: record.headers.get('warc-payload-digest') ?? null,
        length: 0,
        offset: record.offset,
        filename,
      });
      entries.push(entry);
      recordOf.push(offsets.length - 1);
      if (opts.onIndexed) await opts.onIndexed(indexed, entry);
    }
    if (opts.onRecord) await opts.onRecord(indexed);
  }
  if (damage.length > 0) throw new WarcDamagedError(damage);
  // Where the next record (or damage) starts after each: offsets only grow, but records of one gzip member share theirs.
  const nextStart = new Array<number>(offsets.length);
  for (let i = offsets.length - 1, next = size; i >= 0; i--) {
    nextStart[i] = next;
    if (i > 0 && offsets[i - 1]! < offsets[i]!) next = offsets[i]!;
  }
  entries.forEach((entry, i) => {
    entry.length = nextStart[recordOf[i]!]! - entry.offset;
  });
  return entries;
}

function statusOf(record: IndexedRecord): number | null {
  const status = record.http?.status;
  return status !== undefined && Number.isInteger(status) ? status : null;
}

/** The media type without parameters; resource records carry it in the WARC header. */
function mimeOf(record: IndexedRecord): string {
  const raw = record.http !== null ? record.http.headers.get('content-type') : record.warcHeaders.get('content-type');
  const mime = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return mime === '' ? 'unk' : mime;
}
