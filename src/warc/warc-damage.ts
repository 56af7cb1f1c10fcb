/**
 * A cut or corrupt WARC file, described once for every command that reads
 * WARCs (analyze, index, search, wacz, the console): the file, the offset
 * where the bad data starts, what it is, and what was skipped — so the same
 * file gives the same line whichever command meets it.
 */
import path from 'node:path';
import { ArchiverError } from '../core/errors.js';

export type WarcDamageProblem =
  /** The file ends inside a record (a gzip member, a head or a block). */
  | 'truncated'
  /** Bytes that do not inflate or fail their gzip check. */
  | 'corrupt'
  /** Something where a record head should start. */
  | 'not-a-record'
  /** The file does not start like a WARC at all. */
  | 'not-a-warc';

export interface WarcDamage {
  /** The file as the operator named it (a WARC inside a WACZ: `site.wacz#archive/x.warc.gz`). */
  file: string;
  problem: WarcDamageProblem;
  /** Where the bad data starts (in a gzipped file, the member it is in). */
  offset: number;
  /** Where reading went on, or null when the rest of the file was skipped. */
  resumeAt: number | null;
  /** Size of the file, for the bytes skipped to its end. */
  size: number;
  /** The reader's own words (zlib's, or what was found instead of a record). */
  detail: string;
  /** The record cut short, when a record's head was read. */
  uri?: string | null;
}

const PROBLEMS: Record<WarcDamageProblem, string> = {
  truncated: 'cut short',
  corrupt: 'corrupt data',
  'not-a-record': 'no WARC record',
  'not-a-warc': 'not a WARC file',
};

function bytes(n: number): string {
  return n === 1 ? '1 byte' : `${n.toLocaleString('en-US')} bytes`;
}

/** A path as the operator would write it: relative to `cwd` when inside it, so every command names a file alike. */
export function displayPath(file: string, cwd = process.cwd()): string {
  if (!path.isAbsolute(file)) return file;
  const rel = path.relative(cwd, file);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

/**
 * One line: `<file>: <problem> at offset N (<detail>; record <uri>); <skipped>`.
 * E.g. `a.warc.gz: cut short at offset 299987 (the file ends inside a gzip
 * member); skipped the last 13 bytes`.
 */
export function describeWarcDamage(d: WarcDamage, cwd = process.cwd()): string {
  const what = d.uri ? `${d.detail}; record ${d.uri}` : d.detail;
  let skipped: string;
  if (d.problem === 'not-a-warc') skipped = 'file skipped';
  else if (d.resumeAt === null) skipped = d.offset === 0 ? `skipped the whole file (${bytes(d.size)})` : `skipped the last ${bytes(d.size - d.offset)}`;
  else skipped = `skipped ${bytes(d.resumeAt - d.offset)}, read on from offset ${d.resumeAt}`;
  return `${displayPath(d.file, cwd)}: ${PROBLEMS[d.problem]} at offset ${d.offset} (${what}); ${skipped}`;
}

/**
 * The bytes of a WARC file cannot be read on from `offset`: thrown by the
 * record reader when its caller asked for no resynchronisation (no
 * `onDamage`), caught and turned into a WarcDamage otherwise.
 */
export class WarcFormatError extends ArchiverError {
  readonly problem: 'corrupt' | 'truncated' | 'not-a-record';
  readonly offset: number;
  constructor(problem: WarcFormatError['problem'], offset: number, message: string, cause?: unknown) {
    super('ARCHIVER_WARC_UNREADABLE', message, cause === undefined ? undefined : { cause });
    this.problem = problem;
    this.offset = offset;
  }
}

/** Damaged WARC input where the command needs it whole (`archiver index` without --skip-bad): exit 1. */
export class WarcDamagedError extends ArchiverError {
  readonly damage: readonly WarcDamage[];
  constructor(damage: readonly WarcDamage[], message?: string) {
    super('ARCHIVER_WARC_DAMAGED', message ?? (damage.length === 1 ? describeWarcDamage(damage[0]!) : `${damage.length} damaged WARC files`));
    this.damage = damage;
  }
}
