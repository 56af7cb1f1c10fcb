/**
 * Resume support: WARC files left `.open` by a crawl that was killed are cut
 * back to their last complete gzip member (or kept whole when complete) and
 * closed under their final name, so every file in warcs/ is valid. Also finds
 * the serial number the next file should get.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, rename, truncate, unlink } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nodeWarcPattern, OPEN_SUFFIX, WARC_FILE_NAME_PATTERN } from './warc-naming.js';

export interface RepairedWarc {
  /** The closed file's path. */
  file: string;
  records: number;
  keptBytes: number;
  droppedBytes: number;
}

/**
 * Repairs and closes every `.open` WARC in `dir`; with `node`, only that
 * node's (other nodes of the crawl may be writing theirs).
 */
export async function repairOpenWarcs(dir: string, node?: string): Promise<RepairedWarc[]> {
  const repaired: RepairedWarc[] = [];
  const mine = node === undefined ? null : nodeWarcPattern(node);
  for (const name of (await readdir(dir)).sort()) {
    if (!name.endsWith(OPEN_SUFFIX)) continue;
    if (mine !== null && !mine.test(name)) continue;
    const openPath = path.join(dir, name);
    const ends = await recordEnds(openPath);
    const size = (await open(openPath, 'r').then(async (fh) => {
      try {
        return (await fh.stat()).size;
      } finally {
        await fh.close();
      }
    }));
    // Only the tail can be damaged by a kill: drop trailing members that do
    // not inflate whole (warcio reads a cut member as a short record).
    while (ends.length > 0 && !(await memberInflates(openPath, ends.at(-2) ?? 0, ends.at(-1)!))) ends.pop();
    const keep = ends.at(-1) ?? 0;
    if (keep === 0) {
      // Not even the warcinfo record made it to disk: nothing to keep.
      await unlink(openPath);
      continue;
    }
    if (keep < size) await truncate(openPath, keep);
    const finalPath = openPath.slice(0, -OPEN_SUFFIX.length);
    await rename(openPath, finalPath);
    repaired.push({ file: finalPath, records: ends.length, keptBytes: keep, droppedBytes: size - keep });
  }
  return repaired;
}

/** The serial after the highest one used by the WARCs in `dir` (0 when none); with `node`, by that node's. */
export async function nextWarcSerial(dir: string, node?: string): Promise<number> {
  let next = 0;
  const mine = node === undefined ? null : nodeWarcPattern(node);
  for (const name of await readdir(dir)) {
    const m = mine !== null ? mine.exec(name) : WARC_FILE_NAME_PATTERN.exec(name.endsWith(OPEN_SUFFIX) ? name.slice(0, -OPEN_SUFFIX.length) : name);
    if (m?.[3]) next = Math.max(next, Number(m[3]) + 1);
  }
  return next;
}

async function recordEnds(file: string): Promise<number[]> {
  const ends: number[] = [];
  // warcio is loaded by the first repair only: a crawl that needs none starts without it.
  const { WARCParser } = await import('./warcio.js');
  const parser = new WARCParser(createReadStream(file));
  try {
    for await (const record of parser) {
      await record.readFully(false);
      ends.push(parser.offset + parser.recordLength);
    }
  } catch {
    // A damaged tail stops the walk; what was read so far stands.
  }
  return ends;
}

async function memberInflates(file: string, start: number, end: number): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    await fh.read(buf, 0, buf.length, start);
    const text = gunzipSync(buf);
    return text.subarray(0, 5).toString('latin1') === 'WARC/';
  } catch {
    return false;
  } finally {
    await fh.close();
  }
}
