/**
 * Each WARC's SHA-256 and CRC-32 as the crawl wrote the file, kept with
 * the job (`indexes/warc-sums.jsonl`, a line per file as it is closed):
 * the end of a crawl, of a resumed one, and `archiver wacz` copy such a
 * file into the package without reading it for a hash again. A line
 * counts only while the file still has the size and modification time it
 * had when summed: a file cut back by a resume's repair, or changed since,
 * is hashed as before. Written with one synchronous append per file, best
 * effort: a line that cannot be written only costs the end that hash.
 */
import { appendFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContentSums } from '../core/content-digest.js';
import { jobDir } from './job-dir.js';

/** A WARC's sums, and the file's modification time when they were taken. */
export interface RecordedSums extends ContentSums {
  mtimeMs: number;
}

/** Where a job keeps its WARCs' sums. */
export function warcSumsPath(root: string): string {
  return path.join(jobDir(root).indexes, 'warc-sums.jsonl');
}

/** Add the line of a closed WARC, `warc` its path. Never throws. */
export function recordWarcSums(record: string, warc: string, sums: ContentSums): void {
  try {
    const { mtimeMs, size } = statSync(warc);
    if (size !== sums.size) return;
    appendFileSync(record, `${JSON.stringify({ file: path.basename(warc), size, mtimeMs, sha256: sums.sha256, crc32: sums.crc32 })}\n`);
  } catch {
    // The end hashes the file instead.
  }
}

/** File name → its recorded sums (the last line of a name wins); empty when there is no record. Unreadable lines are skipped. */
export async function readWarcSums(record: string): Promise<Map<string, RecordedSums>> {
  const sums = new Map<string, RecordedSums>();
  let text: string;
  try {
    text = await readFile(record, 'utf8');
  } catch {
    return sums;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const ok = typeof v['file'] === 'string' && Number.isSafeInteger(v['size']) && typeof v['mtimeMs'] === 'number'
      && typeof v['sha256'] === 'string' && /^[0-9a-f]{64}$/.test(v['sha256']) && Number.isInteger(v['crc32']);
    if (ok) sums.set(v['file'] as string, { size: v['size'] as number, mtimeMs: v['mtimeMs'] as number, sha256: v['sha256'] as string, crc32: v['crc32'] as number });
  }
  return sums;
}

/** A WARC's recorded sums, when the file still has the size and modification time they were taken at. */
export function sumsIfUnchanged(recorded: ReadonlyMap<string, RecordedSums>, warc: string, now: { size: number; mtimeMs: number }): ContentSums | undefined {
  const r = recorded.get(path.basename(warc));
  if (r === undefined || r.size !== now.size || r.mtimeMs !== now.mtimeMs) return undefined;
  return { size: r.size, sha256: r.sha256, crc32: r.crc32 };
}
