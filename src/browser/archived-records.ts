/**
 * Where each capture of the job lies in its WARCs (file, offset, length),
 * by request key, and its response read back from there: what a render is
 * served when the capture is no longer in memory — evicted, or archived by
 * an earlier run of a resumed job (loaded from the capture journal). A
 * revisit is followed to the record it refers to, once.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { WARCParser } from '../writer/warcio.js';
import { parseJournalLine } from '../job/capture-journal.js';
import { fileLines } from '../core/file-lines.js';
import { requestKey, type ArchivedResponse } from './archived-responses.js';
import { fileExists } from '../core/file-exists.js';

export interface RecordPlace {
  filename: string;
  offset: number;
}

export class ArchivedRecords {
  readonly #dir: string;
  readonly #places = new Map<string, RecordPlace>();

  constructor(warcsDir: string) {
    this.#dir = warcsDir;
  }

  /** Places of the captures a capture journal lists (a resumed job's earlier runs). */
  async loadJournal(file: string): Promise<void> {
    try {
      for await (const batch of fileLines(file)) {
        for (const line of batch) {
          const parsed = parseJournalLine(line);
          // A POST's line has no body to key it by: left out, so a GET of its URL is never served it.
          if (parsed?.kind === 'capture' && parsed.capture.method === undefined) this.#places.set(requestKey(parsed.capture.url), { filename: parsed.capture.filename, offset: parsed.capture.offset });
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  add(key: string, place: RecordPlace): void {
    this.#places.set(key, place);
  }

  has(key: string): boolean {
    return this.#places.has(key);
  }

  /** The response archived under `key`, read from its WARC; undefined when unknown or unreadable. */
  async read(key: string): Promise<ArchivedResponse | undefined> {
    const place = this.#places.get(key);
    if (place === undefined) return undefined;
    const first = await this.#readAt(place).catch(() => undefined);
    if (first === undefined || first.refersTo === null) return first?.response;
    // A revisit: the payload is the record it refers to.
    const original = this.#places.get(requestKey(first.refersTo));
    if (original === undefined) return undefined;
    const second = await this.#readAt(original).catch(() => undefined);
    if (second === undefined || second.refersTo !== null) return undefined;
    return { ...first.response, body: second.response.body };
  }

  async #readAt(place: RecordPlace): Promise<{ response: ArchivedResponse; refersTo: string | null } | undefined> {
    if (path.basename(place.filename) !== place.filename) return undefined;
    let file = path.join(this.#dir, place.filename);
    if (!(await fileExists(file))) {
      file = `${file}.open`;
      if (!(await fileExists(file))) return undefined;
    }
    const stream = createReadStream(file, { start: place.offset });
    try {
      const parser = new WARCParser(stream);
      const record = await parser.parse();
      if (record === null || (record.warcType !== 'response' && record.warcType !== 'revisit')) return undefined;
      const http = record.httpHeaders;
      const headers: Array<[string, string]> = [];
      if (http) for (const [k, v] of http.headers) headers.push([k, v]);
      const status = Number(http?.statusCode ?? 0);
      const revisit = record.warcType === 'revisit';
      const body = revisit ? Buffer.alloc(0) : Buffer.from(await record.readFully(false));
      const response: ArchivedResponse = { url: record.warcTargetURI ?? '', status, headers, body };
      return { response, refersTo: revisit ? (record.warcHeader('WARC-Refers-To-Target-URI') ?? null) : null };
    } finally {
      stream.destroy();
    }
  }
}
