/**
 * WARC records straight from a file, for every command that reads WARCs:
 * gzipped per record (what crawlers write), gzipped whole, or not
 * compressed. Each gzip member is inflated by node's zlib in one call —
 * warcio.js inflates with pako, in JavaScript, which was most of the time
 * `analyze` spent outside HTML — and the record heads are split out of the
 * inflated bytes here.
 *
 * A member is inflated in one synchronous call when it fits in a window of
 * the file (records are rarely over a few MB); a bigger one, or a whole
 * file in one member, streams through zlib instead, so memory stays bounded
 * by the window and the blocks kept. Only the blocks of the record types
 * asked for are kept (the rest are skipped as they go by), each up to a cap.
 *
 * Damage: with `onDamage`, a cut or corrupt stretch is reported (file,
 * offset, what was skipped; warc-damage.ts) and reading goes on at the next
 * gzip member that inflates to a record head, or the next line starting
 * "WARC/" in an uncompressed file; a record whose block the file cuts
 * short is still returned, marked `truncated`, and reported. Without it,
 * the first problem is thrown as WarcFormatError with its offset.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { FileWindow, READ_BYTES } from './file-window.js';
import { gzipDataStart, inflateMember, nextGzipMember, SCAN_BYTES, streamMember } from './gzip-member.js';
import { RecordSplitter, type SplitterOptions, type WarcRecord } from './record-splitter.js';
import { WarcFormatError, type WarcDamage } from './warc-damage.js';

/** Whether a file name is a WARC's (`.warc`, `.warc.gz`). */
export function isWarcName(name: string): boolean {
  return name.endsWith('.warc.gz') || name.endsWith('.warc');
}

export type { WarcRecord } from './record-splitter.js';
export { parseHttpHead, type HttpHead } from './head-lines.js';

/** A WARC file, or a byte range of a file holding one (a WARC stored in a WACZ). */
export interface WarcSource {
  path: string;
  /** How the operator knows it, in messages. */
  name: string;
  /** Where the WARC starts in the file. */
  start: number;
  /** Its length; null: to the end of the file. */
  length: number | null;
}

export function warcSource(file: string | WarcSource): WarcSource {
  return typeof file === 'string' ? { path: file, name: file, start: 0, length: null } : file;
}

/** Also, from SplitterOptions: keepBlockOf, and maxKeptBlockBytes (default 64 MiB). */
export interface WarcRecordsOptions extends SplitterOptions {
  /** A gzip member longer than this (compressed) streams through zlib rather than being inflated in one call; default 16 MiB. */
  syncMaxInputBytes: number;
  /** … as does one that inflates to more than this; default 96 MiB. */
  syncMaxOutputBytes: number;
  /** Told of the bytes read from the file, as they are read. */
  onBytesRead?: (bytes: number) => void;
  /** Start reading here (a record's offset, as an earlier read gave it) rather than at 0; the file is then read 64 KiB at a time, not 1 MiB. */
  startOffset?: number;
  /** Told of each damaged stretch, after which reading goes on; without it the first one is thrown. */
  onDamage?: (damage: WarcDamage) => void;
}

export const WARC_RECORDS_DEFAULTS: Readonly<Omit<WarcRecordsOptions, 'keepBlockOf'>> = Object.freeze({
  maxKeptBlockBytes: 64 << 20,
  syncMaxInputBytes: 16 << 20,
  syncMaxOutputBytes: 96 << 20,
});

/** The reading of one file: where damage goes. */
interface Reading {
  window: FileWindow;
  splitter: RecordSplitter;
  options: WarcRecordsOptions;
  name: string;
  size: number;
}

/** The records of a WARC file, in file order. */
export async function* readWarcRecords(file: string | WarcSource, options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
  const warc = await OpenWarc.open(file);
  try {
    yield* warc.records(options);
  } finally {
    await warc.close();
  }
}

/**
 * A WARC file held open, for reading it more than once: the records at
 * many offsets (a revisit's original each) cost one read each, not an
 * open, a stat and a close besides.
 */
export class OpenWarc {
  #gzipped: boolean | null = null;

  private constructor(
    private readonly fh: FileHandle,
    readonly source: WarcSource,
    /** Bytes of the WARC (the range's, inside a larger file). */
    readonly size: number,
  ) {}

  static async open(file: string | WarcSource): Promise<OpenWarc> {
    const source = warcSource(file);
    const fh = await open(source.path, 'r');
    try {
      const fileSize = (await fh.stat()).size;
      return new OpenWarc(fh, source, Math.max(0, Math.min(source.length ?? Infinity, fileSize - source.start)));
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** The records from `options.startOffset` (default 0) on, in file order. */
  async *records(options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
    const { source, size } = this;
    const readBytes = options.startOffset === undefined ? READ_BYTES : 64 * 1024;
    const window = new FileWindow(this.fh, source.start, size, options.onBytesRead, readBytes);
    const reading: Reading = { window, splitter: new RecordSplitter(options), options, name: source.name, size };
    if (this.#gzipped === null) {
      const head = Buffer.alloc(Math.min(5, size));
      await this.fh.read(head, 0, head.length, source.start);
      if (head.length === 0) return;
      const gzipped = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
      if (!gzipped && !startsLikeRecord(head)) {
        if (options.onDamage === undefined) throw new WarcFormatError('not-a-record', 0, 'the file does not start with "WARC/" or gzip');
        options.onDamage({ file: source.name, problem: 'not-a-warc', offset: 0, resumeAt: null, size, detail: 'it starts with neither "WARC/" nor gzip' });
        return;
      }
      this.#gzipped = gzipped;
    }
    const from = options.startOffset ?? 0;
    if (this.#gzipped) yield* gzipRecords(reading, from);
    else yield* plainRecords(reading, from);
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/** "WARC/", or the start of it in a file shorter than that; CR/LF before it allowed. */
function startsLikeRecord(head: Buffer): boolean {
  let i = 0;
  while (i < head.length && (head[i] === 13 || head[i] === 10)) i++;
  const rest = head.subarray(i).toString('latin1');
  return rest.length === 0 || 'WARC/'.startsWith(rest) || rest.startsWith('WARC/');
}

/** Report the problem and say where to read on (null: nowhere), or rethrow when the caller wants it thrown. */
async function damaged(reading: Reading, err: unknown, next: (from: number) => Promise<number | null>): Promise<number | null> {
  const onDamage = reading.options.onDamage;
  if (!(err instanceof WarcFormatError) || onDamage === undefined) throw err;
  const resumeAt = err.problem === 'truncated' ? null : await next(err.offset + 1);
  const uri = reading.splitter.pendingUri;
  reading.splitter.reset();
  onDamage({
    file: reading.name,
    problem: err.problem,
    offset: err.offset,
    resumeAt,
    size: reading.size,
    detail: err.message,
    ...(uri !== null ? { uri } : {}),
  });
  return resumeAt;
}

/** The records left in the splitter once the input is over; a head or block cut short is reported as damage. */
async function* finish(reading: Reading): AsyncGenerator<WarcRecord> {
  reading.splitter.finish();
  try {
    yield* finishedRecords(reading);
  } catch (err) {
    await damaged(reading, err, async () => null);
  }
}

function* finishedRecords(reading: Reading): Generator<WarcRecord> {
  for (const record of reading.splitter.drain()) {
    if (record.truncated) {
      reading.options.onDamage?.({
        file: reading.name,
        problem: 'truncated',
        offset: record.offset,
        resumeAt: null,
        size: reading.size,
        detail: `the file ends inside the block of a ${record.type ?? 'untyped'} record`,
        ...(record.targetUri !== null ? { uri: record.targetUri } : {}),
      });
    }
    yield record;
  }
}

async function* plainRecords(reading: Reading, from: number): AsyncGenerator<WarcRecord> {
  const { window, splitter } = reading;
  for (let pos = from; ; ) {
    const available = await window.ensure(pos, window.readBytes);
    if (available === 0) break;
    splitter.push(window.view(pos, pos + available), pos, true);
    pos += available;
    try {
      yield* splitter.drain();
    } catch (err) {
      const next = await damaged(reading, err, (at) => nextPlainRecord(window, at));
      if (next === null) return;
      pos = next;
    }
  }
  yield* finish(reading);
}

async function* gzipRecords(reading: Reading, from: number): AsyncGenerator<WarcRecord> {
  const { window, splitter, options } = reading;
  for (let pos = from; ; ) {
    const available = await window.ensure(pos, 64 * 1024);
    if (available === 0) break;
    try {
      const dataStart = gzipDataStart(window.view(pos, pos + available));
      if (dataStart < 0) {
        if (available < 18 && window.atEnd(pos + available)) {
          throw new WarcFormatError('truncated', pos, 'the file ends inside a gzip header');
        }
        throw new WarcFormatError('corrupt', pos, 'no gzip member here');
      }
      splitter.memberStart();
      const end =
        (await inflateMember(window, pos, pos + dataStart, splitter, options)) ?? (yield* streamMember(window, pos, pos + dataStart, splitter));
      pos = end;
      yield* splitter.drain();
    } catch (err) {
      const next = await damaged(reading, err, (at) => nextGzipMember(window, at));
      if (next === null) return;
      pos = next;
    }
  }
  yield* finish(reading);
}

/** The next line from `from` on that starts "WARC/1.", or null. */
async function nextPlainRecord(window: FileWindow, from: number): Promise<number | null> {
  const marker = Buffer.from('\nWARC/1.', 'latin1');
  for (let at = from - 1; ; ) {
    const available = await window.ensure(at, SCAN_BYTES);
    if (available < marker.length) return null;
    const i = window.view(at, at + available).indexOf(marker);
    if (i >= 0) return at + i + 1;
    if (window.atEnd(at + available)) return null;
    at += available - marker.length;
  }
}

/** Read a WARC through for its damage alone (each stretch told to `onDamage`), no block kept; resolves to the records read. */
export async function checkWarc(file: string | WarcSource, onDamage: (damage: WarcDamage) => void): Promise<number> {
  let records = 0;
  for await (const record of readWarcRecords(file, { ...WARC_RECORDS_DEFAULTS, keepBlockOf: new Set(), onDamage })) {
    if (!record.truncated) records++;
  }
  return records;
}
