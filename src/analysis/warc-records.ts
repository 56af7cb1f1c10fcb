/**
 * WARC records straight from a file, for the analysis: gzipped per record
 * (what crawlers write), gzipped whole, or not compressed. Each gzip member
 * is inflated by node's zlib in one call — warcio.js inflates with pako, in
 * JavaScript, which was most of the time `analyze` spent outside HTML — and
 * the record heads are split out of the inflated bytes here.
 *
 * A member is inflated in one synchronous call when it fits in a window of
 * the file (records are rarely over a few MB); a bigger one, or a whole
 * file in one member, streams through zlib instead, so memory stays bounded
 * by the window and the blocks kept. Only the blocks of the record types
 * asked for are kept (the rest are skipped as they go by), each up to a cap.
 *
 * Problems that end a file's reading are thrown as WarcFormatError with the
 * offset they were found at; the caller warns and moves on. A record whose
 * block the file cuts short is still returned, marked `truncated`.
 */
import { open, type FileHandle } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { WarcFormatError } from './errors.js';

export interface WarcRecord {
  /** Where the record starts in the file; in a gzipped file, where its gzip member starts. */
  offset: number;
  /** The first line, e.g. "WARC/1.1". */
  version: string;
  /** Named fields, names lower-cased; of a repeated field, the first. */
  headers: Map<string, string>;
  type: string | null;
  /** WARC-Target-URI, without the <…> some tools (GNU wget) wrap it in. */
  targetUri: string | null;
  contentLength: number;
  /** The block when the type is kept (at most maxKeptBlockBytes of it); otherwise empty. */
  block: Buffer;
  /** The file ended before the block did. */
  truncated: boolean;
}

export interface WarcRecordsOptions {
  /** Record types whose block is kept. */
  keepBlockOf: ReadonlySet<string>;
  /** A longer block keeps only its first this many bytes; default 64 MiB. */
  maxKeptBlockBytes: number;
  /** A gzip member longer than this (compressed) streams through zlib rather than being inflated in one call; default 16 MiB. */
  syncMaxInputBytes: number;
  /** … as does one that inflates to more than this; default 96 MiB. */
  syncMaxOutputBytes: number;
  /** Told of the bytes read from the file, as they are read. */
  onBytesRead?: (bytes: number) => void;
}

export const WARC_RECORDS_DEFAULTS: Readonly<Omit<WarcRecordsOptions, 'keepBlockOf'>> = Object.freeze({
  maxKeptBlockBytes: 64 << 20,
  syncMaxInputBytes: 16 << 20,
  syncMaxOutputBytes: 96 << 20,
});

/** File bytes read at a time. */
const READ_BYTES = 1 << 20;
/** A record head (the WARC fields) longer than this is not one. */
const MAX_HEAD_BYTES = 1 << 20;

/** The records of a WARC file, in file order. */
export async function* readWarcRecords(file: string, options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
  const fh = await open(file, 'r');
  try {
    const window = new FileWindow(fh, (await fh.stat()).size, options.onBytesRead);
    const splitter = new RecordSplitter(options);
    const first = await window.ensure(0, 2);
    const bytes = window.view(0, Math.min(first, 2));
    if (bytes.length === 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) yield* gzipRecords(window, splitter, options);
    else yield* plainRecords(window, splitter);
    splitter.finish();
    yield* splitter.drain();
  } finally {
    await fh.close();
  }
}

async function* plainRecords(window: FileWindow, splitter: RecordSplitter): AsyncGenerator<WarcRecord> {
  for (let pos = 0; ; ) {
    const available = await window.ensure(pos, READ_BYTES);
    if (available === 0) return;
    splitter.push(window.view(pos, pos + available), pos, true);
    pos += available;
    yield* splitter.drain();
  }
}

async function* gzipRecords(window: FileWindow, splitter: RecordSplitter, options: WarcRecordsOptions): AsyncGenerator<WarcRecord> {
  for (let pos = 0; ; ) {
    const available = await window.ensure(pos, 64 * 1024);
    if (available === 0) return;
    const dataStart = gzipDataStart(window.view(pos, pos + available));
    if (dataStart < 0) {
      if (available < 18 && window.atEnd(pos + available)) {
        throw new WarcFormatError('truncated', pos, 'the file ends inside a gzip header');
      }
      throw new WarcFormatError('unreadable', pos, 'no gzip member here');
    }
    splitter.memberStart();
    const end =
      (await inflateMember(window, pos, pos + dataStart, splitter, options)) ?? (yield* streamMember(window, pos, pos + dataStart, splitter));
    pos = end;
    yield* splitter.drain();
  }
}

/**
 * Inflate the member at `memberStart` in one call if it fits the window;
 * returns where the next member starts, or null when it must be streamed.
 */
async function inflateMember(
  window: FileWindow,
  memberStart: number,
  dataStart: number,
  splitter: RecordSplitter,
  options: WarcRecordsOptions,
): Promise<number | null> {
  for (let span = Math.min(READ_BYTES, options.syncMaxInputBytes); ; span *= 2) {
    const available = await window.ensure(memberStart, span);
    let result: { buffer: Buffer; engine: zlib.InflateRaw };
    try {
      result = zlib.inflateRawSync(window.view(dataStart, memberStart + available), {
        info: true,
        maxOutputLength: options.syncMaxOutputBytes,
      }) as unknown as { buffer: Buffer; engine: zlib.InflateRaw };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR' && !window.atEnd(memberStart + available) && span < options.syncMaxInputBytes) continue;
      if (code === 'Z_BUF_ERROR' || code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return null;
      throw new WarcFormatError('unreadable', memberStart, (err as Error).message, err);
    }
    const trailer = dataStart + result.engine.bytesWritten;
    await checkTrailer(window, memberStart, trailer, zlib.crc32(result.buffer), result.buffer.length);
    splitter.push(result.buffer, memberStart, false);
    return trailer + 8;
  }
}

/** Inflate the member at `memberStart` as a stream, handing its records on as they come; returns where the next member starts. */
async function* streamMember(
  window: FileWindow,
  memberStart: number,
  dataStart: number,
  splitter: RecordSplitter,
): AsyncGenerator<WarcRecord, number> {
  const inflate = zlib.createInflateRaw();
  let ended = false;
  inflate.once('end', () => void (ended = true));
  const feed = (async (): Promise<void> => {
    for (let at = dataStart; !ended; ) {
      const available = await window.ensure(at, READ_BYTES);
      if (available === 0) break;
      const more = inflate.write(window.view(at, at + available));
      at += available;
      if (!more && !ended) await new Promise<void>((resolve) => {
        inflate.once('drain', resolve);
        inflate.once('end', resolve);
        inflate.once('error', resolve);
      });
    }
    if (!ended) inflate.end();
  })();
  let crc = 0;
  let size = 0;
  try {
    for await (const out of inflate as AsyncIterable<Buffer>) {
      crc = zlib.crc32(out, crc);
      size += out.length;
      splitter.push(out, memberStart, false);
      yield* splitter.drain();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    await feed.catch(() => {});
    if (code === 'Z_BUF_ERROR') throw new WarcFormatError('truncated', memberStart, 'the file ends inside a gzip member', err);
    throw new WarcFormatError('unreadable', memberStart, (err as Error).message, err);
  }
  await feed;
  const trailer = dataStart + inflate.bytesWritten;
  await checkTrailer(window, memberStart, trailer, crc, size);
  return trailer + 8;
}

/** The gzip trailer: CRC-32 and length (mod 2^32) of what the member inflated to. */
async function checkTrailer(window: FileWindow, memberStart: number, at: number, crc: number, size: number): Promise<void> {
  if ((await window.ensure(at, 8)) < 8) throw new WarcFormatError('truncated', memberStart, 'the file ends inside a gzip trailer');
  const t = window.view(at, at + 8);
  if (t.readUInt32LE(0) !== crc >>> 0 || t.readUInt32LE(4) !== size >>> 0) {
    throw new WarcFormatError('unreadable', memberStart, 'gzip member fails its CRC or length check');
  }
}

/** Length of the gzip member header at the start of `b` (RFC 1952), or -1 if `b` does not start with a whole one. */
function gzipDataStart(b: Buffer): number {
  if (b.length < 10 || b[0] !== 0x1f || b[1] !== 0x8b || b[2] !== 8) return -1;
  const flags = b[3]!;
  let p = 10;
  if (flags & 4) {
    if (p + 2 > b.length) return -1;
    p += 2 + b.readUInt16LE(p);
  }
  for (const bit of [8, 16]) {
    if ((flags & bit) === 0) continue;
    const zero = b.indexOf(0, p);
    if (zero < 0) return -1;
    p = zero + 1;
  }
  if (flags & 2) p += 2;
  return p <= b.length ? p : -1;
}

/**
 * A window on the file: the bytes from a position on, read as needed.
 * Buffers handed out are never written again, so a record may keep a view
 * of them.
 */
class FileWindow {
  #buf = Buffer.alloc(0);
  /** File offset of #buf[0]. */
  #start = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly size: number,
    private readonly onBytesRead: ((bytes: number) => void) | undefined,
  ) {}

  atEnd(offset: number): boolean {
    return offset >= this.size;
  }

  /** Make at least `bytes` from `offset` on available (fewer at the end of the file); returns how many are. */
  async ensure(offset: number, bytes: number): Promise<number> {
    const end = this.#start + this.#buf.length;
    const want = Math.min(offset + bytes, this.size);
    if (offset >= this.#start && want <= end) return end - offset;
    const keepFrom = Math.max(offset, this.#start);
    const kept = keepFrom < end ? this.#buf.subarray(keepFrom - this.#start) : Buffer.alloc(0);
    const readFrom = Math.max(end, offset);
    const readTo = Math.min(this.size, Math.max(want, readFrom + READ_BYTES));
    const next = Buffer.allocUnsafe(kept.length + (readTo - readFrom));
    kept.copy(next, 0);
    let filled = kept.length;
    while (filled < next.length) {
      const { bytesRead } = await this.fh.read(next, filled, next.length - filled, readFrom + (filled - kept.length));
      if (bytesRead === 0) break;
      filled += bytesRead;
      this.onBytesRead?.(bytesRead);
    }
    this.#buf = next.subarray(0, filled);
    this.#start = keepFrom < end ? keepFrom : readFrom;
    return Math.max(0, this.#start + this.#buf.length - offset);
  }

  view(from: number, to: number): Buffer {
    return this.#buf.subarray(from - this.#start, to - this.#start);
  }
}

const enum State {
  /** Between records: CR/LF skipped. */
  Gap,
  Head,
  Block,
}

/**
 * Splits a stream of (inflated) bytes into records: the head up to its
 * empty line, then Content-Length bytes of block, then the CRLFs between
 * records. Bytes come pushed; finished records wait in `drain()`.
 */
class RecordSplitter {
  #state = State.Gap;
  #ready: WarcRecord[] = [];
  #error: WarcFormatError | null = null;
  #head: Buffer | null = null;
  #headOffset = 0;
  #record: WarcRecord | null = null;
  #need = 0;
  #keep = 0;
  #parts: Buffer[] = [];

  constructor(private readonly options: Pick<WarcRecordsOptions, 'keepBlockOf' | 'maxKeptBlockBytes'>) {}

  /** The records finished so far; then the problem that stopped the input, if one did. */
  *drain(): Generator<WarcRecord> {
    while (this.#ready.length > 0) yield this.#ready.shift()!;
    if (this.#error !== null) throw this.#error;
  }

  /**
   * A gzip member begins. Records begin with one, so stray bytes left
   * between records (a Content-Length too small, padding) are dropped here
   * rather than read as a broken head; a block may go on across members.
   */
  memberStart(): void {
    if (this.#state === State.Head) {
      this.#state = State.Gap;
      this.#head = null;
    }
  }

  /** `offset`: of chunk[0] in the file when `exact`, else of the member the chunk comes from. */
  push(chunk: Buffer, offset: number, exact: boolean): void {
    if (this.#error !== null) return;
    try {
      this.#split(chunk, offset, exact);
    } catch (err) {
      // Held until the records before it are drained.
      if (!(err instanceof WarcFormatError)) throw err;
      this.#error = err;
    }
  }

  #split(chunk: Buffer, offset: number, exact: boolean): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === State.Block) {
        const take = Math.min(this.#need, chunk.length - i);
        const kept = Math.min(take, this.#keep);
        if (kept > 0) this.#parts.push(chunk.subarray(i, i + kept));
        this.#keep -= kept;
        this.#need -= take;
        i += take;
        if (this.#need === 0) this.#endRecord(false);
      } else if (this.#state === State.Gap) {
        const c = chunk[i]!;
        if (c === 13 || c === 10) {
          i++;
          continue;
        }
        this.#state = State.Head;
        this.#headOffset = exact ? offset + i : offset;
      } else {
        i = this.#readHead(chunk, i);
      }
    }
  }

  /** The input is over: a block cut short is still a record; a head cut short is not. */
  finish(): void {
    if (this.#error !== null) return;
    if (this.#state === State.Block) this.#endRecord(true);
    else if (this.#state === State.Head) this.#error = new WarcFormatError('truncated', this.#headOffset, 'the file ends inside a record head');
  }

  #readHead(chunk: Buffer, from: number): number {
    const pending = this.#head;
    const buf = pending === null ? chunk.subarray(from) : Buffer.concat([pending, chunk.subarray(from)]);
    if (buf.length >= 5 && buf.toString('latin1', 0, 5) !== 'WARC/') {
      throw new WarcFormatError('not-a-record', this.#headOffset, `"${buf.toString('latin1', 0, Math.min(buf.length, 40)).split(/[\r\n]/)[0]}" is no WARC record head`);
    }
    const end = headEnd(buf, pending === null ? 0 : Math.max(0, pending.length - 3));
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) throw new WarcFormatError('not-a-record', this.#headOffset, 'no end of record head');
      this.#head = pending === null ? Buffer.from(buf) : buf;
      return chunk.length;
    }
    this.#head = null;
    this.#startRecord(buf.subarray(0, end));
    // `buf` begins `pending.length` bytes before chunk[from].
    return from + endAfter(buf, end) - (pending === null ? 0 : pending.length);
  }

  #startRecord(head: Buffer): void {
    const text = head.toString('utf8');
    const lines = text.split(/\r?\n/);
    const version = lines[0]!.trim();
    const headers = parseFields(lines, 1);
    const type = headers.get('warc-type') ?? null;
    const uri = headers.get('warc-target-uri');
    const contentLength = Number(headers.get('content-length') ?? 0) || 0;
    this.#record = {
      offset: this.#headOffset,
      version,
      headers,
      type,
      targetUri: uri === undefined ? null : uri.startsWith('<') && uri.endsWith('>') ? uri.slice(1, -1) : uri,
      contentLength,
      block: EMPTY,
      truncated: false,
    };
    this.#need = contentLength;
    this.#keep = type !== null && this.options.keepBlockOf.has(type) ? Math.min(contentLength, this.options.maxKeptBlockBytes) : 0;
    this.#parts = [];
    this.#state = State.Block;
    if (contentLength === 0) this.#endRecord(false);
  }

  #endRecord(truncated: boolean): void {
    const record = this.#record!;
    record.block = this.#parts.length === 1 ? this.#parts[0]! : this.#parts.length === 0 ? EMPTY : Buffer.concat(this.#parts);
    record.truncated = truncated;
    this.#parts = [];
    this.#record = null;
    this.#ready.push(record);
    this.#state = State.Gap;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Where the head in `b` ends — the index of its terminating empty line's
 * first byte — searching from `from`; -1 when it does not end in `b`.
 * Lines end in CRLF, or LF from lax writers.
 */
function headEnd(b: Buffer, from: number): number {
  for (let at = b.indexOf(10, from); at >= 0; at = b.indexOf(10, at + 1)) {
    const next = b[at + 1];
    if (next === 10 || (next === 13 && b[at + 2] === 10)) return at + 1;
    if (next === undefined || (next === 13 && at + 2 >= b.length)) return -1;
  }
  return -1;
}

/** Index just past the empty line that starts at `end`. */
function endAfter(b: Buffer, end: number): number {
  return b[end] === 13 ? end + 2 : end + 1;
}

/** "Name: value" lines from `first` on into a map of lower-cased names (first occurrence wins); indented lines continue a value. */
export function parseFields(lines: readonly string[], first: number): Map<string, string> {
  const fields = new Map<string, string>();
  let name: string | null = null;
  let value = '';
  const flush = (): void => {
    if (name !== null && !fields.has(name)) fields.set(name, value);
    name = null;
  };
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && name !== null) {
      value += ' ' + line.trim(); // obs-fold: one space (RFC 9112)
      continue;
    }
    flush();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    name = line.slice(0, colon).trim().toLowerCase();
    value = line.slice(colon + 1).trim();
  }
  flush();
  return fields;
}

export interface HttpHead {
  statusline: string;
  /** The status code, NaN when the status line has none. */
  status: number;
  /** Lower-cased names; of a repeated header, the first. */
  headers: Map<string, string>;
  /** Where the body starts in the block. */
  bodyStart: number;
}

/** The HTTP head at the start of a response or revisit block; null for an empty block. */
export function parseHttpHead(block: Buffer): HttpHead | null {
  if (block.length === 0) return null;
  const end = headEnd(block, 0);
  const headBytes = end < 0 ? block : block.subarray(0, end);
  const lines = headBytes.toString('utf8').split(/\r?\n/);
  const statusline = lines[0]!.trimEnd();
  const parts = statusline.split(' ');
  return {
    statusline,
    status: parts.length > 1 ? Number(parts[1]) : NaN,
    headers: parseFields(lines, 1),
    bodyStart: end < 0 ? block.length : endAfter(block, end),
  };
}
