/**
 * What the replay server hands out under `/archive/`: a file, or several
 * WARC files presented as one (concatenated gzip members are a valid
 * .warc.gz, so a whole job's WARCs open as one archive in the viewer). Both
 * answer byte ranges, which is how ReplayWeb.page reads records and ZIP
 * entries without downloading everything.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, type Readable } from 'node:stream';

export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  readonly contentType: string;
  /** Bytes [start, end] inclusive. */
  stream(start: number, end: number): Readable;
}

interface Part {
  path: string;
  /** Offset of the part's first byte in the whole. */
  at: number;
  size: number;
}

export class ConcatenatedFiles implements ByteSource {
  readonly size: number;
  readonly contentType: string;
  readonly #parts: Part[];

  private constructor(parts: Part[], contentType: string) {
    this.#parts = parts;
    this.contentType = contentType;
    const last = parts[parts.length - 1];
    this.size = last === undefined ? 0 : last.at + last.size;
  }

  static async of(paths: readonly string[], contentType: string): Promise<ConcatenatedFiles> {
    const parts: Part[] = [];
    let at = 0;
    for (const p of paths) {
      const { size } = await stat(p);
      parts.push({ path: p, at, size });
      at += size;
    }
    return new ConcatenatedFiles(parts, contentType);
  }

  stream(start: number, end: number): Readable {
    const out = new PassThrough();
    const pieces = this.#parts.filter((p) => p.size > 0 && p.at <= end && p.at + p.size - 1 >= start);
    // One file after another, each read only over the part of the range it covers.
    const next = (i: number): void => {
      const part = pieces[i];
      if (part === undefined) {
        out.end();
        return;
      }
      const from = Math.max(start, part.at) - part.at;
      const to = Math.min(end, part.at + part.size - 1) - part.at;
      const file = createReadStream(part.path, { start: from, end: to });
      file.on('error', (err) => out.destroy(err));
      file.on('end', () => next(i + 1));
      file.pipe(out, { end: false });
    };
    next(0);
    return out;
  }
}

/** A range header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) → [start, end] inclusive, null if unsatisfiable or absent. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Multi-range and other units: answer with the whole body, as RFC 9110 allows.
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
