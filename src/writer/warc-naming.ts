/**
 * Names and timestamps of WARC output, in Heritrix's conventions:
 * `PREFIX-<17-digit UTC timestamp>-<serial 5 digits>-<pid>~<host>.warc.gz`,
 * written under an `.open` suffix until the file is closed. A node of a
 * crawl run by several processes (Redis) names its files
 * `PREFIX-<timestamp17>-<serial5>-<node>.warc.gz` instead, so nodes sharing
 * one job directory never write the same file. The 17-digit
 * form (yyyyMMddHHmmssSSS) is also the crawl.log's fetch-start field.
 */

/** The suffix a WARC carries while it is still being written. */
export const OPEN_SUFFIX = '.open';

/** `yyyyMMddHHmmssSSS` in UTC. */
export function timestamp17(date: Date): string {
  // toISOString is always UTC and zero-padded: 2026-11-29T12:00:00.123Z
  return date.toISOString().replace(/[-:T.Z]/g, '').slice(0, 17);
}

export interface WarcNameParts {
  prefix: string;
  openedAt: Date;
  serial: number;
  pid: number;
  hostname: string;
  /** The node of a crawl of several processes; its id replaces `pid~host`. */
  node?: string;
}

/** The final (closed) file name, without directory. */
export function warcFileName(p: WarcNameParts): string {
  const serial = String(p.serial).padStart(5, '0');
  if (p.node !== undefined) return `${p.prefix}-${timestamp17(p.openedAt)}-${serial}-${p.node}.warc.gz`;
  return `${p.prefix}-${timestamp17(p.openedAt)}-${serial}-${p.pid}~${p.hostname}.warc.gz`;
}

/** The pattern of a node's own file names (see warcFileName); node ids are letters, digits and `._-`. */
export function nodeWarcPattern(node: string): RegExp {
  return new RegExp(`^(.+)-(\\d{17})-(\\d{5,})-${node.replace(/[.]/g, '\\.')}\\.warc\\.gz(${OPEN_SUFFIX.replace('.', '\\.')})?$`);
}

/** The pattern every name from warcFileName matches (tests, resume scans). */
export const WARC_FILE_NAME_PATTERN = /^(.+)-(\d{17})-(\d{5,})-(\d+)~([^/]+)\.warc\.gz$/;

/**
 * WARC-Date for the chosen version: WARC/1.1 allows fractional seconds and
 * we keep milliseconds; WARC/1.0 requires whole seconds.
 */
export function warcDate(date: Date, warcVersion: '1.0' | '1.1'): string {
  const iso = date.toISOString();
  return warcVersion === '1.1' ? iso : iso.replace(/\.\d+Z$/, 'Z');
}
