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
