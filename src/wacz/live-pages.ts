/**
 * The package's page list (`pages/pages.jsonl`) made while the crawl runs,
 * from each capture as the capture journal writes it, and deflated on the
 * way: the end of the crawl then copies it into the WACZ as it is, instead
 * of reading the whole journal back, text and all, to write and deflate it
 * there (on OpenJDK's API docs, 63 MB of text and ~0.4 s of deflate after
 * the last response).
 *
 * It makes exactly what the end of the crawl would make from the journal
 * in one ordered pass (journal-pages.ts: JournalPageOrder, PageList, the
 * same line bytes), and so holds only where that pass needs nothing it
 * cannot know yet. It gives up — the end then makes the list as before —
 * when a capture comes out of package order, when a text-less page revisit
 * would borrow an original's text (the one pass must know those in
 * advance), when a capture marks as a seed a URL already listed (the main
 * page's choice would have seen the mark), or when its file fails.
 * finalize-job.ts takes the result only when
 * the journal it reads is the one followed here, with as many captures,
 * closed cleanly with its summary, and covering every WARC of the package.
 *
 * Costs on the crawl's main thread: the line bytes gathered into 64 KiB
 * chunks, their SHA-256 and CRC-32 (datapackage.json's hash and the ZIP
 * entry's CRC), and each chunk's deflate at level 1, written as it comes
 * (writer/deflate-file.ts: ~8 ms a MB of text). Deflate ran on libuv's
 * threads before, through a zlib stream piped to a file stream, whose
 * hand-overs cost more: CPU −1.5 to −2.5% on the PostgreSQL docs and −0.8
 * to −2.8% on git-doc when it moved here (sets of eight alternated crawls),
 * the Python and OpenJDK docs the same within their noise. Chunks of
 * 1 MiB held the crawl's peak RSS 1–2 MB higher (git-doc and the
 * PostgreSQL docs, six to eight alternated crawls each) for no CPU.
 */
import { rm } from 'node:fs/promises';
import { ContentDigest, type ContentSums } from '../core/content-digest.js';
import type { JournaledCapture } from '../job/capture-journal.js';
import { DeflateFile } from '../writer/deflate-file.js';
import { JournalPageOrder, PartChunks, pageLineParts, type TextJson } from './journal-pages.js';
import { PAGES_HEADER, PageList, type PageRef } from './page-list.js';

const CHUNK_BYTES = 64 * 1024;
/** As the end of the crawl deflates the page list (wacz-writer.ts). */
const DEFLATE_LEVEL = 1;

export interface LivePagesOptions {
  /** Where the raw DEFLATE stream of pages.jsonl goes. */
  file: string;
  /** The journal followed: finalize-job.ts takes the list only with this journal. */
  journal: string;
  /** The crawl's seeds, profile order (PageList's main page). */
  seeds: readonly string[];
  /** The cap on a page's text the end of the crawl would apply (0: no text). */
  maxTextChars: number;
}

/** A page list made during the crawl, ready to be packaged. */
export interface LivePageList {
  /** Raw DEFLATE data of pages.jsonl. */
  file: string;
  journal: string;
  /** Journal captures it followed: all of the journal's. */
  captures: number;
  seeds: readonly string[];
  maxTextChars: number;
  /** Entries written (the header not counted), and the main page: what the end's pass returns. */
  pages: number;
  main: PageRef | null;
  /** Of pages.jsonl as it inflates. */
  sums: ContentSums;
}

export class LivePages {
  readonly #opts: LivePagesOptions;
  readonly #order: JournalPageOrder;
  readonly #list: PageList<TextJson>;
  readonly #digest = new ContentDigest();
  /** Null where node's zlib cannot be driven on this thread: the list gives up at once. */
  readonly #deflate: DeflateFile | null;
  readonly #chunks = new PartChunks(CHUNK_BYTES, (chunk) => this.#send(chunk));
  #captures = 0;
  readonly #files = new Set<string>();
  #file: string | null = null;
  #offset = -1;
  #gaveUp = false;
  #ended = false;

  /** A list into `opts.file` (created, or emptied); rejects when the file cannot be opened. */
  static async start(opts: LivePagesOptions): Promise<LivePages> {
    return new LivePages(opts, await DeflateFile.open(opts.file, DEFLATE_LEVEL));
  }

  private constructor(opts: LivePagesOptions, deflate: DeflateFile | null) {
    this.#opts = opts;
    // Its candidates and marked seeds only: the package's files are not known yet, so the order is checked
    // here as the journal summary checks it (finalize-job.ts checks the files' order against the package's),
    // and a revisit that would borrow makes the list give up instead of being counted.
    this.#order = new JournalPageOrder([], opts.maxTextChars);
    this.#list = new PageList<TextJson>({ seeds: opts.seeds, markedSeeds: this.#order.markedSeeds, borrowers: this.#order.borrowers });
    this.#deflate = deflate;
    if (deflate === null) this.#giveUp();
    this.#chunks.add(`${JSON.stringify(PAGES_HEADER)}\n`);
  }

  /**
   * A capture as the journal wrote it (no text, no empty title), with its
   * text as the journal's JSON string bytes (null when it has none). Never
   * throws: what it cannot take makes it give up.
   */
  add(line: JournaledCapture, textJson: Uint8Array | null): void {
    if (this.#gaveUp || this.#ended) return;
    try {
      this.#add(line, textJson);
    } catch {
      // Never the journal's failure: the end makes the list instead.
      this.#giveUp();
    }
  }

  #add(line: JournaledCapture, textJson: Uint8Array | null): void {
    this.#captures++;
    if (!this.#inOrder(line)) return this.#giveUp();
    if (line.seed && !this.#order.markedSeeds.has(line.url)) {
      if (this.#list.listed(line.url)) return this.#giveUp();
      this.#order.markedSeeds.add(line.url);
    }
    if (!line.page) return;
    // A text-less revisit would borrow its original's text: the end's pass must know of it in advance.
    if (line.revisit && line.title === undefined && textJson === null && line.digest !== null) return this.#giveUp();
    const candidate = this.#order.candidateOf(line, textJson === null ? undefined : Buffer.from(textJson.buffer, textJson.byteOffset, textJson.byteLength));
    const page = candidate === null ? null : this.#list.next(candidate);
    if (page === null) return;
    for (const part of pageLineParts(page)) this.#chunks.add(part);
    this.#chunks.add('\n');
  }

  /** The list, once the journal is closed; null when it gave up. */
  async finish(): Promise<LivePageList | null> {
    if (this.#ended) throw new Error('LivePages: finished twice');
    this.#ended = true;
    if (this.#gaveUp) return null;
    this.#chunks.flush();
    try {
      this.#deflate?.end();
    } catch {
      this.#giveUp();
    }
    if (this.#gaveUp) return null;
    const o = this.#opts;
    return {
      file: o.file,
      journal: o.journal,
      captures: this.#captures,
      seeds: o.seeds,
      maxTextChars: o.maxTextChars,
      pages: this.#list.count,
      main: this.#list.mainPage(),
      sums: this.#digest.sums(),
    };
  }

  /** Stop and remove the file (the crawl failed, or the list was packaged). */
  async discard(): Promise<void> {
    this.#ended = true;
    this.#giveUp();
    await rm(this.#opts.file, { force: true });
  }

  /** Offsets grow within a file, and no file comes back once another began (JournalSummaryBuilder's inOrder). */
  #inOrder(line: JournaledCapture): boolean {
    if (line.filename !== this.#file) {
      if (this.#files.has(line.filename)) return false;
      this.#files.add(line.filename);
      this.#file = line.filename;
      this.#offset = -1;
    }
    if (line.offset <= this.#offset) return false;
    this.#offset = line.offset;
    return true;
  }

  #send(bytes: Buffer): void {
    if (this.#gaveUp) return;
    this.#digest.update(bytes);
    try {
      this.#deflate?.write(bytes);
    } catch {
      this.#giveUp();
    }
  }

  #giveUp(): void {
    if (this.#gaveUp) return;
    this.#gaveUp = true;
    try {
      this.#deflate?.abandon();
    } catch {
      // A close that failed: the list is set aside all the same.
    }
  }
}
