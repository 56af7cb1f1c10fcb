/**
 * Splits the (inflated) bytes of a WARC file into records for the reader
 * (warc-records.ts): the head up to its empty line, then Content-Length
 * bytes of block, then the CRLFs between records.
 */
import { WarcFormatError } from './warc-damage.js';
import { endAfter, headEnd, parseFields } from './head-lines.js';

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

export interface SplitterOptions {
  /** Record types whose block is kept. */
  keepBlockOf: ReadonlySet<string>;
  /** A longer block keeps only its first this many bytes. */
  maxKeptBlockBytes: number;
}

/** A record head (the WARC fields) longer than this is not one. */
const MAX_HEAD_BYTES = 1 << 20;

const EMPTY = Buffer.alloc(0);

const enum State {
  /** Between records: CR/LF skipped. */
  Gap,
  Head,
  Block,
}

/** Bytes come pushed; finished records wait in `drain()`. */
export class RecordSplitter {
  #state = State.Gap;
  #ready: WarcRecord[] = [];
  #error: WarcFormatError | null = null;
  #head: Buffer | null = null;
  #headOffset = 0;
  #record: WarcRecord | null = null;
  #need = 0;
  #keep = 0;
  #parts: Buffer[] = [];

  constructor(private readonly options: SplitterOptions) {}

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

  /** The target URI of the record being read (its head read, its block not yet whole), if any. */
  get pendingUri(): string | null {
    return this.#record?.targetUri ?? null;
  }

  /**
   * After damage: forget the record or head in progress and the held
   * problem; the next bytes pushed are read as the start of a record.
   */
  reset(): void {
    this.#state = State.Gap;
    this.#head = null;
    this.#record = null;
    this.#need = 0;
    this.#keep = 0;
    this.#parts = [];
    this.#error = null;
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
