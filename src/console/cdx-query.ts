/**
 * pywb's CDX server API over one job's index: `url` with `matchType`
 * (exact, prefix, host, domain — or the `…/*` and `*.host` shorthands),
 * `from`/`to` (timestamps of up to 14 digits, padded), `filter`
 * (`[!][=|~]field:value`: contains, exact, regex from the start, negated),
 * `sort=reverse`, `limit`, `fl`, and `output=cdxj|json` (json: one JSON
 * object per line, as pywb answers). Matching lines come from the sorted
 * index.cdxj by binary search, or, while a crawl writes the job, from its
 * capture journal (scanned, matches sorted in memory) since the index is
 * only written at the end of a run.
 */
import { open } from 'node:fs/promises';
import { compareCdxjLines, formatCdxjLine, parseCdxjLine } from '../index/cdxj.js';
import { parseJournalLine } from '../job/capture-journal.js';
import { surt } from '../url/surt.js';
import { cdxjEntryOf } from '../wacz/cdxj-entry.js';
import { badRequest } from './console-errors.js';
import { linesFrom } from './line-reader.js';
import { SortedLines } from './sorted-lines.js';

export type MatchType = 'exact' | 'prefix' | 'host' | 'domain';
export const MATCH_TYPES: readonly MatchType[] = ['exact', 'prefix', 'host', 'domain'];
export const CDX_FIELDS = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'length', 'offset', 'filename'] as const;

export interface CdxFilter {
  field: string;
  negate: boolean;
  mode: 'contains' | 'exact' | 'regex';
  value: string;
  regex: RegExp | null;
}

export interface CdxQuery {
  /** Key prefix every matching line starts with. */
  prefix: string;
  /** Further test on the SURT key (domain: the host or a subdomain, nothing longer). */
  keyTest: ((key: string) => boolean) | null;
  /** 14-digit bounds, inclusive. */
  from: string;
  to: string;
  filters: CdxFilter[];
  reverse: boolean;
  /** Most lines answered; null: all. */
  limit: number | null;
  fields: string[] | null;
  output: 'cdxj' | 'json';
}

/** Checks and compiles the query parameters; 400 on anything it cannot answer. */
export function parseCdxQuery(p: {
  url: string | null;
  matchType: string | null;
  from: string | null;
  to: string | null;
  filters: string[];
  sort: string | null;
  limit: number | null;
  fl: string | null;
  output: string | null;
}): CdxQuery {
  if (p.url === null) throw badRequest('url is required');
  let url = p.url;
  let matchType = p.matchType ?? 'exact';
  if (!(MATCH_TYPES as readonly string[]).includes(matchType)) throw badRequest(`matchType must be one of ${MATCH_TYPES.join(', ')}`);
  if (url.startsWith('*.')) {
    matchType = 'domain';
    url = url.slice(2);
  } else if (url.endsWith('*')) {
    matchType = 'prefix';
    url = url.slice(0, -1);
  }
  if (!/^https?:\/\//i.test(url)) url = `http://${url}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`not a URL: ${p.url}`);
  }
  const hostKey = surt(`${parsed.protocol}//${parsed.host}/`).replace(/\/$/, '');
  let prefix: string;
  let keyTest: CdxQuery['keyTest'] = null;
  switch (matchType as MatchType) {
    case 'exact':
      prefix = `${surt(url)} `;
      break;
    case 'prefix':
      prefix = surt(url);
      // surt() of `host/` ends in `)/`: every path of the host starts with it.
      break;
    case 'host':
      prefix = `${hostKey}/`;
      break;
    case 'domain': {
      // The host without port: its own keys and its subdomains' (`com,example,www)`, `com,example:8080)`).
      prefix = hostKey.replace(/(:\d+)?\)$/, '');
      const base = prefix;
      keyTest = (key) => /^[),:]/.test(key.slice(base.length));
      break;
    }
  }
  if (p.sort !== null && p.sort !== 'reverse') throw badRequest('sort must be reverse (closest is not supported)');
  const output = p.output ?? 'cdxj';
  if (output !== 'cdxj' && output !== 'json') throw badRequest('output must be cdxj or json');
  const fields = p.fl === null ? null : p.fl.split(',').map((f) => f.trim()).filter((f) => f !== '');
  return {
    prefix,
    keyTest,
    from: padTimestamp(p.from, '0', 'from'),
    to: padTimestamp(p.to, '9', 'to'),
    filters: p.filters.map(parseFilter),
    reverse: p.sort === 'reverse',
    limit: p.limit,
    fields,
    output,
  };
}

function padTimestamp(ts: string | null, pad: '0' | '9', name: string): string {
  if (ts === null) return pad.repeat(14);
  if (!/^\d{1,14}$/.test(ts)) throw badRequest(`${name} must be a timestamp of up to 14 digits`);
  return ts.padEnd(14, pad);
}

function parseFilter(raw: string): CdxFilter {
  let rest = raw;
  const negate = rest.startsWith('!');
  if (negate) rest = rest.slice(1);
  let mode: CdxFilter['mode'] = 'contains';
  if (rest.startsWith('=')) {
    mode = 'exact';
    rest = rest.slice(1);
  } else if (rest.startsWith('~')) {
    mode = 'regex';
    rest = rest.slice(1);
  }
  const colon = rest.indexOf(':');
  if (colon <= 0) throw badRequest(`filter must be [!][=|~]field:value, got ${raw}`);
  const value = rest.slice(colon + 1);
  let regex: RegExp | null = null;
  if (mode === 'regex') {
    try {
      // re.match: anchored at the start of the field.
      regex = new RegExp(`^(?:${value})`);
    } catch {
      throw badRequest(`filter regex does not compile: ${value}`);
    }
  }
  return { field: rest.slice(0, colon), negate, mode, value, regex };
}

/** A CDXJ line as pywb's fields: urlkey, timestamp and the JSON's (strings). */
export function cdxFields(line: string): Record<string, string> {
  const e = parseCdxjLine(line);
  const json = JSON.parse(line.slice(line.indexOf(' ', line.indexOf(' ') + 1) + 1)) as Record<string, unknown>;
  const out: Record<string, string> = { urlkey: e.key, timestamp: e.timestamp };
  for (const [k, v] of Object.entries(json)) out[k] = String(v);
  return out;
}

function keep(q: CdxQuery, line: string): boolean {
  const space = line.indexOf(' ');
  const key = line.slice(0, space);
  if (q.keyTest !== null && !q.keyTest(key)) return false;
  const ts = line.slice(space + 1, line.indexOf(' ', space + 1));
  if (ts < q.from || ts > q.to) return false;
  if (q.filters.length === 0) return true;
  const fields = cdxFields(line);
  return q.filters.every((f) => {
    const v = fields[f.field] ?? '';
    const hit = f.mode === 'exact' ? v === f.value : f.mode === 'regex' ? f.regex!.test(v) : v.includes(f.value);
    return hit !== f.negate;
  });
}

/** Matching lines from a sorted CDXJ file, in order (reverse: collected, then reversed). */
export async function* queryIndex(cdxjFile: string, q: CdxQuery): AsyncGenerator<string, void, undefined> {
  const index = await SortedLines.open(cdxjFile);
  try {
    const lines = index.withPrefix(q.prefix, { keep: (line) => keep(q, line) });
    if (!q.reverse) {
      let n = 0;
      for await (const line of lines) {
        if (q.limit !== null && n++ >= q.limit) return;
        yield line;
      }
      return;
    }
    const all: string[] = [];
    for await (const line of lines) all.push(line);
    yield* limited(all.reverse(), q.limit);
  } finally {
    await index.close();
  }
}

/** Matching captures of a capture journal, as CDXJ lines in index order. */
export async function* queryJournal(journalFile: string, q: CdxQuery): AsyncGenerator<string, void, undefined> {
  let fh;
  try {
    fh = await open(journalFile, 'r');
  } catch {
    return;
  }
  const found = new Set<string>();
  try {
    const size = (await fh.stat()).size;
    for await (const { bytes } of linesFrom(fh, 0, size)) {
      const parsed = parseJournalLine(bytes.toString('utf8'));
      if (parsed?.kind !== 'capture') continue;
      const line = formatCdxjLine(cdxjEntryOf(parsed.capture));
      if (line.startsWith(q.prefix) && keep(q, line)) found.add(line);
    }
  } finally {
    await fh.close();
  }
  const sorted = [...found].sort(compareCdxjLines);
  yield* limited(q.reverse ? sorted.reverse() : sorted, q.limit);
}

function* limited(lines: string[], limit: number | null): Generator<string, void, undefined> {
  yield* limit === null ? lines : lines.slice(0, limit);
}

/** One answer line in the query's output format, with its newline. */
export function formatCdxAnswer(q: CdxQuery, line: string): string {
  if (q.output === 'cdxj' && q.fields === null) return `${line}\n`;
  const fields = cdxFields(line);
  const picked = q.fields === null ? fields : Object.fromEntries(q.fields.filter((f) => f in fields).map((f) => [f, fields[f]!]));
  if (q.output === 'json') return `${JSON.stringify(picked)}\n`;
  const { urlkey, timestamp, ...rest } = picked;
  return `${[urlkey, timestamp].filter((v) => v !== undefined).join(' ')} ${JSON.stringify(rest)}\n`;
}
