/**
 * warc-records.ts, and with it warcio (one bundle with pako, hash-wasm and
 * uuid-random, ~0.1 s to load), loaded when a crawl builds its first record
 * rather than before its first request goes out: a crawl starts fetching
 * that much sooner, and a command that writes no WARC never loads them.
 */
type WarcRecordsModule = typeof import('./warc-records.js');

let loading: Promise<WarcRecordsModule> | null = null;

export function warcRecords(): Promise<WarcRecordsModule> {
  loading ??= import('./warc-records.js');
  return loading;
}
