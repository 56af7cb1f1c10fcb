/**
 * Builds the CDXJ index of a set of WARC files and writes it atomically
 * (temp file, then rename), sorted bytewise. Entries are held in memory
 * while sorting: about 250 bytes per capture, so a million-capture job
 * needs a few hundred MB; an external merge sort would lift that.
 */
import { rename, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { compareCdxjLines, formatCdxjLine, type CdxjEntry } from './cdxj.js';
import { indexWarcFile, type IndexFileOptions } from './warc-index.js';

/** Index several WARCs; the visitors see every file's records in file order. */
export async function indexWarcs(files: readonly string[], visit: Omit<IndexFileOptions, 'filename'> = {}): Promise<CdxjEntry[]> {
  const all: CdxjEntry[] = [];
  for (const file of files) {
    const entries = await indexWarcFile(file, visit);
    for (const e of entries) all.push(e);
  }
  return all;
}

/** Lines in bytewise order; duplicates (the same WARC given twice) are dropped. */
export function sortedCdxjLines(entries: readonly CdxjEntry[]): string[] {
  const lines = entries.map(formatCdxjLine).sort(compareCdxjLines);
  return lines.filter((line, i) => i === 0 || line !== lines[i - 1]);
}

/** Write lines (each ending in \n) to `outPath` via a temp file, so a reader never sees half an index. */
export async function writeLinesAtomically(outPath: string, lines: readonly string[]): Promise<void> {
  await mkdir(path.dirname(outPath), { recursive: true });
  const tmp = `${outPath}.tmp-${process.pid}`;
  await writeFile(tmp, lines.length === 0 ? '' : lines.join('\n') + '\n');
  await rename(tmp, outPath);
}

export async function writeCdxj(files: readonly string[], outPath: string): Promise<{ lines: number }> {
  const lines = sortedCdxjLines(await indexWarcs(files));
  await writeLinesAtomically(outPath, lines);
  return { lines: lines.length };
}
