/**
 * Builds the CDXJ index of a set of WARC files and writes it atomically
 * (temp file, then rename), sorted bytewise.
 *
 * Two paths. The streaming one (writeCdxj, `archiver index`, the end of a
 * crawl) pushes each line into a LineSorter, which spills sorted runs to
 * disk past its buffer bound and merges them on the way out, so memory is
 * the bound plus one WARC file's entries, whatever the job's size. The
 * array one (indexWarcs) holds every entry, about 250 bytes per capture,
 * for callers that want them all (dedup across crawls reads entries, not
 * lines).
 */
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { formatCdxjLine, type CdxjEntry } from './cdxj.js';
import { LineSorter, type LineSorterOptions } from './line-sorter.js';
import { WarcDamagedError, type WarcDamage } from '../warc/warc-damage.js';
import { indexWarcFile, type IndexFileOptions } from './warc-index.js';

/** What to do with a cut or corrupt stretch of a WARC. */
export interface DamageOptions {
  /** Told of each one as it is met. */
  onDamage?: (damage: WarcDamage) => void;
  /** Index what can be read; default false: once every file is read, WarcDamagedError names the damage and nothing is written. */
  skipDamaged?: boolean;
}

/** An onDamage for indexWarcFile that records the damage, and the check to run once every file is read. */
export function damageGate(opts: DamageOptions): { onDamage: (damage: WarcDamage) => void; check: () => void } {
  const seen: WarcDamage[] = [];
  return {
    onDamage: (d) => {
      seen.push(d);
      opts.onDamage?.(d);
    },
    check: () => {
      if (seen.length > 0 && opts.skipDamaged !== true) throw new WarcDamagedError(seen);
    },
  };
}

/** Index several WARCs; the visitors see every file's records in file order. */
export async function indexWarcs(files: readonly string[], visit: Omit<IndexFileOptions, 'filename'> = {}): Promise<CdxjEntry[]> {
  const all: CdxjEntry[] = [];
  for (const file of files) {
    const entries = await indexWarcFile(file, visit);
    for (const e of entries) all.push(e);
  }
  return all;
}

/**
 * A file of lines written a batch at a time to a temp name beside its
 * path, renamed into place only once everything is written, so a reader
 * never sees half of it.
 */
export class AtomicLineFile {
  readonly #fh: FileHandle;
  #lines = 0;

  private constructor(fh: FileHandle) {
    this.#fh = fh;
  }

  /**
   * Let `fill` write the file's lines, then rename it into place; on any
   * failure the temp file is removed and the error rethrown. Resolves to
   * the number of lines written.
   */
  static async write(outPath: string, fill: (out: AtomicLineFile) => Promise<void>): Promise<number> {
    await mkdir(path.dirname(outPath), { recursive: true });
    const tmp = `${outPath}.tmp-${process.pid}`;
    const out = new AtomicLineFile(await open(tmp, 'w'));
    try {
      await fill(out);
      await out.#fh.close();
      await rename(tmp, outPath);
    } catch (err) {
      await out.#fh.close().catch(() => {});
      await rm(tmp, { force: true });
      throw err;
    }
    return out.#lines;
  }

  /** Append lines (without their newlines). */
  async add(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    await this.#fh.write(lines.join('\n') + '\n');
    this.#lines += lines.length;
  }
}

/**
 * Write the sorter's distinct lines to `outPath` atomically, one batch at a
 * time; the sorter is read (and its temp files removed) either way.
 */
export async function writeSortedAtomically(outPath: string, sorter: LineSorter): Promise<{ lines: number }> {
  try {
    const lines = await AtomicLineFile.write(outPath, async (out) => {
      for await (const batch of sorter.batches()) await out.add(batch);
    });
    return { lines };
  } finally {
    await sorter.close();
  }
}

/**
 * The index lines of WARC files in a LineSorter, ready to read; the caller
 * reads or closes it. Holds one file's entries at a time.
 */
export async function sortCdxjOf(files: readonly string[], opts: LineSorterOptions & DamageOptions = {}): Promise<LineSorter> {
  const sorter = new LineSorter(opts);
  const gate = damageGate(opts);
  try {
    for (const file of files) {
      for (const e of await indexWarcFile(file, { onDamage: gate.onDamage })) {
        if (!sorter.add(formatCdxjLine(e))) await sorter.spill();
      }
    }
    gate.check();
  } catch (err) {
    await sorter.close();
    throw err;
  }
  return sorter;
}

/** The index of WARC files, sorted outside memory (runs go to a temp directory beside `outPath`). */
export async function writeCdxj(
  files: readonly string[],
  outPath: string,
  opts: Pick<LineSorterOptions, 'maxBufferedBytes'> & DamageOptions = {},
): Promise<{ lines: number }> {
  await mkdir(path.dirname(outPath), { recursive: true });
  const sorter = await sortCdxjOf(files, { ...opts, tmpDir: path.dirname(outPath) });
  return writeSortedAtomically(outPath, sorter);
}
