/**
 * Reads one WARC file (gzipped per record, or plain) with warcio's parser
 * and produces the CDXJ entries of its response, revisit and resource
 * records. A record's length is the distance to the next record's offset
 * (or to the end of the file): with one gzip member per record that is
 * exactly the member, which is what a reader seeks to and inflates.
 *
 * A caller can look at every indexed record on the way (the WACZ page list
 * reads HTML bodies here) so the file is parsed only once.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { WARCParser, type WARCRecord } from 'warcio';
import { ArchiverError } from '../core/errors.js';
import { entryFor, REVISIT_MIME, type CdxjEntry } from './cdxj.js';

const INDEXED_TYPES = new Set(['response', 'revisit', 'resource']);

/** A WARC file that cannot be parsed. */
export class WarcReadError extends ArchiverError {
  constructor(file: string, cause: unknown) {
    super('ARCHIVER_BAD_WARC', `${file}: not a readable WARC (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}

/** Called with each record that gets an index entry, before the parser moves on; it may read the body. */
export type RecordVisitor = (record: WARCRecord, entry: CdxjEntry) => Promise<void>;

/** Called with every record, indexed or not (metadata records carry the seed flag). */
export type AnyRecordVisitor = (record: WARCRecord) => Promise<void>;

export interface IndexFileOptions {
  /** Name written in `filename`; default the file's base name. */
  filename?: string;
  onIndexed?: RecordVisitor;
  onRecord?: AnyRecordVisitor;
}

export async function indexWarcFile(file: string, opts: IndexFileOptions = {}): Promise<CdxjEntry[]> {
  const filename = opts.filename ?? path.basename(file);
  const entries: CdxjEntry[] = [];
  /** Offset of every record in file order; lengths come from the gaps between them. */
  const offsets: number[] = [];
  /** Index into `offsets` of each entry's record. */
  const recordOf: number[] = [];
  const { size } = await stat(file);
  const parser = new WARCParser(createReadStream(file));
  try {
    for await (const record of parser) {
      const offset = parser.offset;
      offsets.push(offset);
      const type = record.warcType ?? '';
      const url = (record.warcTargetURI ?? '').replace(/^<(.*)>$/, '$1');
      if (INDEXED_TYPES.has(type) && url !== '' && record.warcDate) {
        const entry = entryFor({
          url,
          warcDate: record.warcDate,
          mime: type === 'revisit' ? REVISIT_MIME : mimeOf(record),
          status: statusOf(record),
          digest: record.warcPayloadDigest ?? null,
          length: 0,
          offset,
          filename,
        });
        entries.push(entry);
        recordOf.push(offsets.length - 1);
        if (opts.onIndexed) await opts.onIndexed(record, entry);
      }
      if (opts.onRecord) await opts.onRecord(record);
      await record.skipFully();
    }
  } catch (err) {
    throw new WarcReadError(file, err);
  }
  entries.forEach((entry, i) => {
    const at = recordOf[i]!;
    entry.length = (offsets[at + 1] ?? size) - entry.offset;
  });
  return entries;
}

function statusOf(record: WARCRecord): number | null {
  const code = record.httpHeaders?.statusCode;
  if (code === undefined || code === null) return null;
  const n = Number(code);
  return Number.isInteger(n) ? n : null;
}

/** The media type without parameters; resource records carry it in the WARC header. */
function mimeOf(record: WARCRecord): string {
  const raw = record.httpHeaders ? record.httpHeaders.headers.get('content-type') : record.warcContentType;
  const mime = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return mime === '' ? 'unk' : mime;
}
