/**
 * What the embedded ReplayWeb.page loads for a job: its WACZ once the job
 * is packaged; while a crawl writes it, a snapshot of its WARCs as one
 * .warc.gz — the closed files whole and each file still being written
 * (`.open`) cut after the last capture its journal lists, which always ends
 * a complete gzip member. A snapshot's size fixes its contents, so it is
 * named by it, and the viewer's range requests all read the same bytes
 * (a file the crawl closes meanwhile is read under its final name).
 */
import { createReadStream } from 'node:fs';
import { access, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { parseJournalLine } from '../job/capture-journal.js';
import { captureJournalPath, jobDir as jobDirOf, jobWaczName } from '../job/job-dir.js';
import { ConcatenatedFiles, type ByteSource } from '../replay/byte-source.js';
import { linesFrom } from './line-reader.js';

export interface ReplayArchive {
  /** The name under /replay/archive/<job>/. */
  name: string;
  source: ByteSource;
}

export async function jobReplayArchive(jobDir: string, live: boolean): Promise<ReplayArchive | null> {
  const wacz = live ? null : await jobWaczName(jobDir);
  if (wacz !== null) return { name: wacz, source: await ConcatenatedFiles.of([path.join(jobDir, wacz)], 'application/wacz') };
  return warcSnapshot(jobDir);
}

interface Part {
  /** The file as it is now, and its name once closed (the same for a closed file). */
  path: string;
  closedPath: string;
  at: number;
  size: number;
}

class WarcSnapshot implements ByteSource {
  readonly size: number;
  readonly contentType = 'application/warc';
  readonly #parts: Part[];

  constructor(parts: Part[]) {
    this.#parts = parts;
    const last = parts[parts.length - 1];
    this.size = last === undefined ? 0 : last.at + last.size;
  }

  stream(start: number, end: number): Readable {
    const out = new PassThrough();
    const pieces = this.#parts.filter((p) => p.size > 0 && p.at <= end && p.at + p.size - 1 >= start);
    const next = async (i: number): Promise<void> => {
      const part = pieces[i];
      if (part === undefined) {
        out.end();
        return;
      }
      const file = await access(part.path).then(() => part.path, () => part.closedPath);
      const from = Math.max(start, part.at) - part.at;
      const to = Math.min(end, part.at + part.size - 1) - part.at;
      const input = createReadStream(file, { start: from, end: to });
      input.on('error', (err) => out.destroy(err));
      input.on('end', () => void next(i + 1));
      input.pipe(out, { end: false });
    };
    void next(0);
    return out;
  }
}

async function warcSnapshot(jobDir: string): Promise<ReplayArchive | null> {
  const dir = jobDirOf(jobDir).warcs;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.warc.gz') || n.endsWith('.warc.gz.open')).sort();
  } catch {
    return null;
  }
  const openEnds = names.some((n) => n.endsWith('.open')) ? await journaledEnds(jobDir) : new Map<string, number>();
  const parts: Part[] = [];
  let at = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const closedPath = file.replace(/\.open$/, '');
    const size = name.endsWith('.open') ? (openEnds.get(path.basename(closedPath)) ?? 0) : (await stat(file)).size;
    if (size === 0) continue;
    parts.push({ path: file, closedPath, at, size });
    at += size;
  }
  if (parts.length === 0) return null;
  return { name: `live-${at}.warc.gz`, source: new WarcSnapshot(parts) };
}

/** For each WARC file the journal names: where its last journaled capture ends. */
async function journaledEnds(jobDir: string): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  let fh;
  try {
    fh = await open(captureJournalPath(jobDir), 'r');
  } catch {
    return ends;
  }
  try {
    const size = (await fh.stat()).size;
    for await (const { bytes } of linesFrom(fh, 0, size)) {
      const parsed = parseJournalLine(bytes.toString('utf8'));
      if (parsed?.kind !== 'capture') continue;
      const c = parsed.capture;
      ends.set(c.filename, Math.max(ends.get(c.filename) ?? 0, c.offset + c.length));
    }
  } finally {
    await fh.close();
  }
  return ends;
}
