/**
 * One CDXJ line: `<SURT key> <14-digit timestamp> {json}`, the index format
 * pywb and ReplayWeb.page read. Numbers in the JSON are written as strings,
 * as warcio.js and pywb write them, so every reader that accepts theirs
 * accepts ours. Lines are ordered bytewise (what `LC_ALL=C sort` does),
 * because readers binary-search the file.
 */
import { ArchiverError } from '../core/errors.js';
import { surt } from '../url/surt.js';

/** The mime CDXJ gives revisit records (pywb's and wabac's convention). */
export const REVISIT_MIME = 'warc/revisit';

export interface CdxjEntry {
  /** SURT of `url`. */
  key: string;
  /** `yyyyMMddHHmmss`, UTC, from WARC-Date. */
  timestamp: string;
  url: string;
  mime: string;
  /** HTTP status, null for records without an HTTP head (resource records). */
  status: number | null;
  /** WARC-Payload-Digest, as written (e.g. `sha1:BASE32`). */
  digest: string | null;
  /** Compressed length of the record's gzip member (or of the record in an uncompressed WARC). */
  length: number;
  /** Offset of that member in the file. */
  offset: number;
  /** WARC file name, no directory. */
  filename: string;
  /** A POST's method and its body as query parameters (the key then carries them, as warcio.js indexes it). */
  method?: string;
  requestBody?: string;
}

/** A CDXJ line could not be read back. */
export class CdxjFormatError extends ArchiverError {
  constructor(message: string) {
    super('ARCHIVER_BAD_CDXJ', message);
  }
}

/** `2026-11-29T19:38:02.123Z` → `20261129193802`. */
export function timestamp14(warcDate: string): string {
  const ms = Date.parse(warcDate);
  if (Number.isNaN(ms)) throw new CdxjFormatError(`not a WARC-Date: ${warcDate}`);
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** `20261129193802` → `2026-11-29T19:38:02Z`. */
export function isoFromTimestamp14(ts: string): string {
  if (!/^\d{14}$/.test(ts)) throw new CdxjFormatError(`not a 14-digit timestamp: ${ts}`);
  return `${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`;
}

export function entryFor(fields: Omit<CdxjEntry, 'key' | 'timestamp'> & { warcDate: string }): CdxjEntry {
  const { warcDate, ...rest } = fields;
  return { key: surt(lookupUrl(fields)), timestamp: timestamp14(warcDate), ...rest };
}

/** The URL a capture is looked up by: a POST's carries its method and body (warcio.js's appendRequestQuery). */
export function lookupUrl(e: Pick<CdxjEntry, 'url' | 'method' | 'requestBody'>): string {
  if (e.method === undefined || e.method === 'GET') return e.url;
  return `${e.url}${e.url.indexOf('?') > 0 ? '&' : '?'}__wb_method=${e.method}&${e.requestBody ?? ''}`;
}

export function formatCdxjLine(e: CdxjEntry): string {
  const json: Record<string, string> = { url: e.url, mime: e.mime };
  if (e.status !== null) json['status'] = String(e.status);
  if (e.digest !== null) json['digest'] = e.digest;
  if (e.method !== undefined) json['method'] = e.method;
  if (e.requestBody !== undefined) json['requestBody'] = e.requestBody;
  json['length'] = String(e.length);
  json['offset'] = String(e.offset);
  json['filename'] = e.filename;
  return `${e.key} ${e.timestamp} ${JSON.stringify(json)}`;
}

export function parseCdxjLine(line: string): CdxjEntry {
  const firstSpace = line.indexOf(' ');
  const secondSpace = line.indexOf(' ', firstSpace + 1);
  if (firstSpace <= 0 || secondSpace < 0) throw new CdxjFormatError(`not a CDXJ line: ${line.slice(0, 120)}`);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(line.slice(secondSpace + 1)) as Record<string, unknown>;
  } catch {
    throw new CdxjFormatError(`bad JSON in CDXJ line: ${line.slice(0, 120)}`);
  }
  const str = (name: string): string | null => (typeof json[name] === 'string' || typeof json[name] === 'number' ? String(json[name]) : null);
  const num = (name: string): number | null => {
    const v = str(name);
    return v === null || v === '' || !Number.isFinite(Number(v)) ? null : Number(v);
  };
  const url = str('url');
  const filename = str('filename');
  const offset = num('offset');
  const length = num('length');
  if (url === null || filename === null || offset === null || length === null) {
    throw new CdxjFormatError(`CDXJ line lacks url, filename, offset or length: ${line.slice(0, 120)}`);
  }
  const method = str('method');
  const requestBody = str('requestBody');
  return {
    key: line.slice(0, firstSpace),
    timestamp: line.slice(firstSpace + 1, secondSpace),
    url,
    mime: str('mime') ?? 'unk',
    status: num('status'),
    digest: str('digest'),
    length,
    offset,
    filename,
    ...(method !== null ? { method } : {}),
    ...(requestBody !== null ? { requestBody } : {}),
  };
}

/**
 * Bytewise order of the UTF-8 encodings, i.e. `LC_ALL=C sort`. UTF-8 byte
 * order is code point order, which UTF-16 unit order matches below the
 * surrogates (U+D800); only where two lines first differ in units at or
 * above that are they encoded and compared as bytes. Sorting a large index
 * this way allocates nothing per comparison.
 */
export function compareCdxjLines(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 || y < 0xd800) return x - y;
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
  return a.length - b.length;
}
