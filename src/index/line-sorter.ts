/**
 * Sorts more lines than fit in memory (an external merge sort), for the
 * CDXJ index of a large job: lines are buffered up to a bound, then the
 * buffer is sorted and spilled to a temp file (a "run"); reading merges the
 * runs and what is still buffered with a small binary heap, in bytewise
 * order (compareCdxjLines), dropping exact duplicate lines. Memory is the
 * buffer plus one read chunk per run; with no spill nothing touches disk.
 * Runs are merged as they pile up (size-tiered, as an LSM tree compacts):
 * once `fanIn` runs of one generation exist they become one run of the
 * next, so a small buffer (the crawl's live index holds 2 MiB) never leaves
 * thousands of runs, each an open file and a read chunk, for the last merge.
 *
 * Lines must not contain '\n' (the run files are newline-separated UTF-8).
 * Runs are read back with core/file-lines.ts rather than readline:
 * it splits on the newline byte only (readline also cuts at a lone '\r') and
 * hands out a whole chunk's lines at once, so the merge awaits once per
 * chunk, not once per line (reading a 300 MB run: ~0.5 s this way, ~1.4 s
 * with readline; 64 KiB chunks read as fast as 1 MiB ones).
 */
import { open, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ArchiverError } from '../core/errors.js';
import { fileLines } from '../core/file-lines.js';
import { compareCdxjLines } from './cdxj.js';

/** A line could not be sorted (it holds a newline) or a run could not be written or read. */
export class LineSortError extends ArchiverError {
  constructor(code: 'ARCHIVER_SORT_LINE' | 'ARCHIVER_SORT_IO', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

export interface LineSorterOptions {
  /**
   * Spill the buffer once the lines held reach this many bytes, counted as
   * string length plus LINE_OVERHEAD_BYTES per line (roughly their heap
   * cost for ASCII lines). Default 64 MiB.
   */
  maxBufferedBytes?: number;
  /** Where the sorter makes its own temp directory (fs.mkdtemp) at the first spill. Default os.tmpdir(). */
  tmpDir?: string;
  /** Lines per batch handed out by batches(). Default 4096. */
  batchLines?: number;
  /** Runs of one generation merged into one of the next once there are this many (≥ 2). Default 16. */
  fanIn?: number;
}

export const DEFAULT_SORT_BUFFER_BYTES = 64 * 1024 * 1024;

/**
 * Runs merged at a time. Each line is written again once per generation: a
 * crawl of a million URIs with the live index's 2 MiB buffer spills ~160
 * runs, merged into ~10; ten million, ~1,600 runs, kept to under 50 files
 * by writing most lines twice more.
 */
const DEFAULT_FAN_IN = 16;

/** Heap cost of a buffered line beyond its characters: string header and the array slot. */
const LINE_OVERHEAD_BYTES = 32;

/**
 * UTF-16 unit order (what `<` on strings gives, natively and about twice as
 * fast as compareCdxjLines) is bytewise UTF-8 order unless a line holds a
 * surrogate; a buffer without one is sorted that way, and the runs are
 * merged that way when no line had one.
 */
const SURROGATE = /[\uD800-\uDFFF]/;

const compareUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Bytes read from a run file at a time; the merge holds one chunk's lines per run. */
const READ_CHUNK_BYTES = 64 * 1024;

/** A spill is written in pieces about this long, so it never builds one string of the whole buffer. */
const WRITE_CHUNK_CHARS = 1024 * 1024;

/**
 * How runs are merged into one during the crawl: small reads, batches and
 * writes, so that the lines in flight (16 cursors' chunks, a batch, a
 * piece being written: ~0.2 MB) fit the main thread's young generation and
 * die there. With the end's sizes (~3.5 MB in flight) nearly every line
 * outlived two scavenges and went to the old generation. Merging sixteen
 * 2 MiB runs (`node --max-semi-space-size=1 dist/bench/line-sorter.js`):
 * the heap rose 25-27 MB with the end's sizes, 9-10 MB with 16 KiB reads
 * and 256-line batches, 3 MB with these; 230-255, 350 and 470 ms.
 */
const COMPACT_SIZES: MergeSizes = { readChunkBytes: 8 * 1024, batchLines: 128, writeChunkChars: 32 * 1024 };

export class LineSorter {
  readonly #maxBufferedBytes: number;
  readonly #tmpParent: string;
  readonly #batchLines: number;
  readonly #fanIn: number;
  #buffer: string[] = [];
  #bufferedBytes = 0;
  /** Some buffered line holds a surrogate: the buffer needs compareCdxjLines. */
  #bufferHasSurrogates = false;
  /** Some line ever added holds one: the merge needs compareCdxjLines. */
  #sawSurrogates = false;
  #added = 0;
  #dir: string | null = null;
  /** The run files on disk, each with its generation (0: a spill; g + 1: fanIn runs of generation g merged). */
  #runs: Run[] = [];
  #spilled = 0;
  /** Run files made so far: the next one's number. */
  #files = 0;
  #reading = false;
  #closed = false;

  constructor(opts: LineSorterOptions = {}) {
    this.#maxBufferedBytes = opts.maxBufferedBytes ?? DEFAULT_SORT_BUFFER_BYTES;
    this.#tmpParent = opts.tmpDir ?? os.tmpdir();
    this.#batchLines = opts.batchLines ?? 4096;
    this.#fanIn = opts.fanIn ?? DEFAULT_FAN_IN;
    if (!(this.#maxBufferedBytes > 0)) throw new RangeError('maxBufferedBytes must be positive');
    if (!(Number.isInteger(this.#batchLines) && this.#batchLines > 0)) throw new RangeError('batchLines must be a positive integer');
    if (!(Number.isInteger(this.#fanIn) && this.#fanIn >= 2)) throw new RangeError('fanIn must be an integer of at least 2');
  }

  /** Lines added so far, duplicates included: an upper bound on what sorted() yields. */
  get added(): number {
    return this.#added;
  }

  /** Runs spilled to disk so far (merged ones still counted). */
  get runs(): number {
    return this.#spilled;
  }

  /** Run files on disk now: what the spills left once merged. */
  get runFiles(): number {
    return this.#runs.length;
  }

  /**
   * Buffer one line. Returns false once the buffer is full: the caller then
   * awaits spill() before adding more (as with a stream's write() and
   * 'drain'); a caller that does not just lets the buffer grow.
   */
  add(line: string): boolean {
    if (this.#reading || this.#closed) throw new LineSortError('ARCHIVER_SORT_LINE', 'lines added after sorting began');
    if (line.includes('\n')) throw new LineSortError('ARCHIVER_SORT_LINE', `line holds a newline: ${line.slice(0, 120)}`);
    if (!this.#bufferHasSurrogates && SURROGATE.test(line)) this.#bufferHasSurrogates = this.#sawSurrogates = true;
    this.#buffer.push(line);
    this.#bufferedBytes += line.length + LINE_OVERHEAD_BYTES;
    this.#added++;
    return this.#bufferedBytes < this.#maxBufferedBytes;
  }

  /**
   * Sort the buffer and write it out as a run, freeing it, then merge runs
   * that reached `fanIn` in a generation. Nothing happens when the buffer
   * is empty.
   */
  async spill(): Promise<void> {
    if (this.#buffer.length === 0) return;
    const lines = this.#takeSortedBuffer();
    try {
      await this.#write(0, [lines]);
      this.#spilled++;
      await this.#compact();
    } catch (err) {
      throw new LineSortError('ARCHIVER_SORT_IO', `cannot spill sorted lines under ${this.#tmpParent}`, { cause: err });
    }
  }

  /** A new run of `generation` from sorted batches, written in pieces of about `chunkChars`. */
  async #write(generation: number, batches: Iterable<readonly string[]> | AsyncIterable<readonly string[]>, chunkChars = WRITE_CHUNK_CHARS): Promise<void> {
    this.#dir ??= await mkdtemp(path.join(this.#tmpParent, 'archiver-sort-'));
    const file = path.join(this.#dir, `run-${this.#files++}`);
    await writeRun(file, batches, chunkChars);
    this.#runs.push({ file, generation });
  }

  /**
   * Merges fanIn runs of a generation into one of the next, from the spills' generation up, as
   * long as one is full. Every generation holds fewer than fanIn runs before a spill, so only the
   * one a spill or a merge has just added to can fill.
   */
  async #compact(): Promise<void> {
    for (let generation = 0; ; generation++) {
      const merged = this.#runs.filter((r) => r.generation === generation).slice(0, this.#fanIn);
      if (merged.length < this.#fanIn) return;
      await this.#write(generation + 1, this.#merge(merged.map((r) => r.file), [], COMPACT_SIZES), COMPACT_SIZES.writeChunkChars);
      this.#runs = this.#runs.filter((r) => !merged.includes(r));
      for (const r of merged) await rm(r.file, { force: true });
    }
  }

  /**
   * Every distinct line, in bytewise order, in batches (arrays of up to
   * batchLines lines; the caller may keep them). Can be run once; the temp
   * files are removed when it ends, is broken out of, or fails.
   */
  async *batches(): AsyncGenerator<string[], void, undefined> {
    if (this.#reading || this.#closed) throw new LineSortError('ARCHIVER_SORT_LINE', 'a LineSorter is read once');
    this.#reading = true;
    try {
      yield* this.#merge(this.#runs.map((r) => r.file), this.#takeSortedBuffer());
    } catch (err) {
      throw err instanceof ArchiverError ? err : new LineSortError('ARCHIVER_SORT_IO', 'cannot read back sorted runs', { cause: err });
    } finally {
      await this.close();
    }
  }

  /** The distinct lines of the run `files` and the sorted `rest`, merged in batches; the files are closed when it ends. */
  async *#merge(files: readonly string[], rest: string[], sizes?: Omit<MergeSizes, 'writeChunkChars'>): AsyncGenerator<string[], void, undefined> {
    const batchLines = sizes?.batchLines ?? this.#batchLines;
    const readers: RunReader[] = [];
    try {
      const cursors: Cursor[] = [];
      for (const file of files) {
        const r = new RunReader(file, sizes?.readChunkBytes ?? READ_CHUNK_BYTES);
        readers.push(r);
        const lines = await r.nextLines();
        if (lines !== null) cursors.push({ lines, at: 0, reader: r });
      }
      if (rest.length > 0) cursors.push({ lines: rest, at: 0, reader: null });
      const heap = new CursorHeap(cursors, this.#sawSurrogates ? compareCdxjLines : compareUnits);
      let batch: string[] = [];
      let last: string | null = null;
      for (;;) {
        const top = heap.top();
        if (top === undefined) break;
        const line = top.lines[top.at++]!;
        if (line !== last) {
          batch.push(line);
          last = line;
          if (batch.length >= batchLines) {
            yield batch;
            batch = [];
          }
        }
        if (top.at < top.lines.length) {
          heap.siftDown();
          continue;
        }
        const more = top.reader === null ? null : await top.reader.nextLines();
        if (more === null) {
          heap.pop();
        } else {
          top.lines = more;
          top.at = 0;
          heap.siftDown();
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      for (const r of readers) await r.close().catch(() => {});
    }
  }

  /** Every distinct line, in bytewise order, one at a time (see batches()). */
  async *sorted(): AsyncGenerator<string, void, undefined> {
    for await (const batch of this.batches()) yield* batch;
  }

  #takeSortedBuffer(): string[] {
    const lines = this.#buffer.sort(this.#bufferHasSurrogates ? compareCdxjLines : compareUnits);
    this.#buffer = [];
    this.#bufferedBytes = 0;
    this.#bufferHasSurrogates = false;
    return lines;
  }

  /** Drop what is buffered and remove the temp files. Idempotent; sorted() does it when it ends. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#buffer = [];
    const dir = this.#dir;
    this.#dir = null;
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }
}

/** A run file and its generation. */
interface Run {
  file: string;
  generation: number;
}

/** The sizes a merge reads, hands out and writes in. */
interface MergeSizes {
  readChunkBytes: number;
  batchLines: number;
  writeChunkChars: number;
}

/** Write sorted lines, batch after batch, as one run in pieces of about `chunkChars`, dropping neighbours that repeat. */
async function writeRun(file: string, batches: Iterable<readonly string[]> | AsyncIterable<readonly string[]>, chunkChars: number): Promise<void> {
  const fh = await open(file, 'wx');
  try {
    let piece: string[] = [];
    let chars = 0;
    let last: string | null = null;
    for await (const lines of batches) {
      for (const line of lines) {
        if (line === last) continue;
        last = line;
        piece.push(line);
        chars += line.length + 1;
        if (chars >= chunkChars) {
          await fh.write(piece.join('\n') + '\n');
          piece = [];
          chars = 0;
        }
      }
    }
    if (piece.length > 0) await fh.write(piece.join('\n') + '\n');
  } finally {
    await fh.close();
  }
}

/** A run read back a chunk's lines at a time (fileLines); null at its end. */
class RunReader {
  readonly #lines: AsyncGenerator<string[], void, undefined>;

  constructor(file: string, chunkBytes: number) {
    this.#lines = fileLines(file, chunkBytes);
  }

  async nextLines(): Promise<string[] | null> {
    const next = await this.#lines.next();
    return next.done === true ? null : next.value;
  }

  /** Stop early: closes the file. */
  async close(): Promise<void> {
    await this.#lines.return(undefined);
  }
}

interface Cursor {
  lines: string[];
  at: number;
  /** null for the in-memory remainder. */
  reader: RunReader | null;
}

/** A binary min-heap of cursors, ordered by each one's current line. */
class CursorHeap {
  readonly #items: Cursor[];
  readonly #compare: (a: string, b: string) => number;

  constructor(items: Cursor[], compare: (a: string, b: string) => number) {
    this.#items = items;
    this.#compare = compare;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  top(): Cursor | undefined {
    return this.#items[0];
  }

  /** The top's current line changed: restore the order. */
  siftDown(): void {
    this.#down(0);
  }

  pop(): void {
    const last = this.#items.pop()!;
    if (this.#items.length === 0) return;
    this.#items[0] = last;
    this.#down(0);
  }

  #less(a: Cursor, b: Cursor): boolean {
    return this.#compare(a.lines[a.at]!, b.lines[b.at]!) < 0;
  }

  #down(i: number): void {
    const items = this.#items;
    const n = items.length;
    const item = items[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.#less(items[r]!, items[l]!) ? r : l;
      if (!this.#less(items[child]!, item)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = item;
  }
}
