/**
 * What a capture's WARC records say beyond its index line: the body size
 * (the response record's payload length) and the outlinks its metadata
 * record lists (`outlink: <url> <hop> <context>`, written by
 * writer/warc-records.ts after the response and request records). Read from
 * the record's offset with warcio's parser, stopping at that metadata
 * record.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { WARCParser } from '../writer/warcio.js';
import { fileExists } from '../core/file-exists.js';

export interface Outlink {
  url: string;
  /** Hop letter: L link, E embed, R redirect, X speculative. */
  hop: string;
  /** Where in the page, e.g. `a/@href`; '' when unknown. */
  context: string;
}

export interface CaptureRecordsInfo {
  /** Payload bytes of the response (0 for a revisit). */
  size: number;
  outlinks: Outlink[];
  /** All outlinks the record lists (outlinks is cut at the limit). */
  outlinkCount: number;
}

/** Records read past the capture's own before giving up on its metadata record. */
const MAX_FOLLOWING_RECORDS = 4;

/**
 * `warcsDir/filename` (or its `.open` file while it is written), read from
 * `offset`; null when the file is gone.
 */
export async function readCaptureRecords(warcsDir: string, filename: string, offset: number, maxOutlinks: number): Promise<CaptureRecordsInfo | null> {
  if (path.basename(filename) !== filename) return null;
  let file = path.join(warcsDir, filename);
  if (!(await fileExists(file))) {
    file = `${file}.open`;
    if (!(await fileExists(file))) return null;
  }
  const stream = createReadStream(file, { start: offset });
  try {
    const parser = new WARCParser(stream);
    let mainId: string | null = null;
    let size = 0;
    let seen = 0;
    for await (const record of parser) {
      if (mainId === null) {
        mainId = record.warcHeader('WARC-Record-ID') ?? '';
        size = record.warcType === 'revisit' ? 0 : ((await record.skipFully()) ?? 0);
        continue;
      }
      if (record.warcType === 'metadata' && (record.warcConcurrentTo ?? []).includes(mainId)) {
        const { outlinks, count } = parseOutlinks(await record.contentText(), maxOutlinks);
        return { size, outlinks, outlinkCount: count };
      }
      if (++seen >= MAX_FOLLOWING_RECORDS) break;
    }
    return { size, outlinks: [], outlinkCount: 0 };
  } finally {
    stream.destroy();
  }
}

/** The `outlink:` fields of a metadata record (application/warc-fields). */
export function parseOutlinks(fields: string, max: number): { outlinks: Outlink[]; count: number } {
  const outlinks: Outlink[] = [];
  let count = 0;
  for (const line of fields.split(/\r?\n/)) {
    if (!line.startsWith('outlink: ')) continue;
    const [url, hop, ...context] = line.slice('outlink: '.length).trim().split(' ');
    if (url === undefined || url === '') continue;
    count++;
    if (outlinks.length < max) outlinks.push({ url, hop: hop ?? '', context: context.join(' ') === '-' ? '' : context.join(' ') });
  }
  return { outlinks, count };
}
