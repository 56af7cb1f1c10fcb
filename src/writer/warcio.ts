/**
 * warcio, loaded through its CommonJS build. Its ES module build imports
 * hash-wasm, whose only build for Node is a 284 KB UMD file; an ES import
 * of CommonJS makes Node run its export lexer over that file, which gets
 * hot enough for V8 to optimise the lexer — about 0.3 s of compiler time
 * and ~30 MB of compiler memory (kept by malloc after) in every thread
 * that loads warcio. `require` has no lexer: same classes, none of that.
 */
import { createRequire } from 'node:module';

type Warcio = typeof import('warcio');

const warcio = createRequire(import.meta.url)('warcio') as Warcio;

export const { BaseSerializerBuffer, HeadersMultiMap, StatusAndHeaders, WARCParser, WARCRecord, WARCSerializer, postToGetUrl } = warcio;
export type { WARCSerializerOpts } from 'warcio';
export type StatusAndHeaders = InstanceType<Warcio['StatusAndHeaders']>;
export type WARCSerializer = InstanceType<Warcio['WARCSerializer']>;
export type WARCRecord = InstanceType<Warcio['WARCRecord']>;

/**
 * A status line and headers held in a Map (warcio's HeadersMultiMap, or
 * OrderedHeaders), written exactly as warcio writes such a map. warcio's own
 * `toString` first asks `headers instanceof Headers`, and naming the global
 * `Headers` makes Node load and compile its bundled fetch implementation:
 * ~35 ms of CPU in each thread that writes a record (the main thread and
 * the page thread of every crawl), for a test that is false here.
 */
export class MapStatusAndHeaders extends StatusAndHeaders {
  override toString(): string {
    const headers: unknown = this.headers;
    if (typeof (headers as Partial<HeaderLines>).appendLines === 'function') return `${(headers as HeaderLines).appendLines(this.statusline)}\r\n`;
    let text = this.statusline;
    if (headers instanceof HeadersMultiMap) {
      // What warcio's iterator yields (a multi-valued header split, the others as they are), without
      // its generator: an object per step, made at every record in the unoptimised code threads mostly run.
      headers.forEach((value, name) => {
        // getMultiple gives nothing for an empty value, which the iterator yields as it is.
        const values = headers.getMultiple(name) ?? [value];
        for (let i = 0; i < values.length; i++) text += `\r\n${name}: ${values[i]}`;
      });
    } else {
      for (const [name, value] of headers as Iterable<[string, string]>) text += `\r\n${name}: ${value}`;
    }
    return `${text}\r\n`;
  }
}

/** A header map that writes its own lines (http-block.ts's OrderedHeaders). */
export interface HeaderLines {
  /** `text` followed by a CRLF and `Name: value` for each header, in order. */
  appendLines(text: string): string;
}

/** The record with its WARC head as a MapStatusAndHeaders (see there). */
function withMapHead(record: WARCRecord): WARCRecord {
  record.warcHeaders = new MapStatusAndHeaders({ statusline: record.warcHeaders.statusline, headers: record.warcHeaders.headers });
  return record;
}

/** warcio's `WARCRecord.create`, its WARC head a MapStatusAndHeaders. */
export function createRecord(...args: Parameters<Warcio['WARCRecord']['create']>): WARCRecord {
  return withMapHead(WARCRecord.create(...args));
}

/** warcio's `WARCRecord.createWARCInfo`, its WARC head a MapStatusAndHeaders. */
export function createWarcInfo(...args: Parameters<Warcio['WARCRecord']['createWARCInfo']>): WARCRecord {
  return withMapHead(WARCRecord.createWARCInfo(...args));
}
