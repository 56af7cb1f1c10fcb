/**
 * The two index layouts a WACZ may carry. Small crawls: one plain
 * `indexes/index.cdx` that the viewer loads whole. Large crawls: the sorted
 * lines cut into blocks, each its own gzip member in `indexes/index.cdx.gz`,
 * and `indexes/index.idx` with the first key of each block and where the
 * block is (the "cdxj-gzip-1.0" layout), so the viewer binary-searches the
 * small idx and inflates only the block it needs.
 */
import { gzipSync } from 'node:zlib';
import { sha256Hex } from './datapackage.js';

export interface IndexFiles {
  /** Paths inside the ZIP → contents. */
  files: Array<{ path: string; data: Buffer; compress: boolean }>;
}

/** Lines per block in the compressed layout (pywb and py-wacz use 3000). */
export const DEFAULT_BLOCK_LINES = 3000;

export function plainIndex(lines: readonly string[]): IndexFiles {
  const data = Buffer.from(lines.length === 0 ? '' : lines.join('\n') + '\n', 'utf8');
  return { files: [{ path: 'indexes/index.cdx', data, compress: true }] };
}

export function blockedIndex(lines: readonly string[], blockLines = DEFAULT_BLOCK_LINES): IndexFiles {
  const members: Buffer[] = [];
  const idx: string[] = [`!meta 0 ${JSON.stringify({ format: 'cdxj-gzip-1.0', filename: 'index.cdx.gz' })}`];
  let offset = 0;
  for (let start = 0; start < lines.length; start += blockLines) {
    const block = lines.slice(start, start + blockLines);
    const member = gzipSync(Buffer.from(block.join('\n') + '\n', 'utf8'));
    const first = block[0]!;
    // The idx key is the first line's "<SURT> <timestamp>".
    const prefix = first.slice(0, first.indexOf(' ', first.indexOf(' ') + 1));
    idx.push(`${prefix} ${JSON.stringify({ offset, length: member.length, digest: `sha256:${sha256Hex(member)}`, filename: 'index.cdx.gz' })}`);
    members.push(member);
    offset += member.length;
  }
  return {
    files: [
      // Stored, not deflated: the viewer reads blocks by range straight out of the ZIP.
      { path: 'indexes/index.cdx.gz', data: Buffer.concat(members), compress: false },
      { path: 'indexes/index.idx', data: Buffer.from(idx.join('\n') + '\n', 'utf8'), compress: true },
    ],
  };
}
