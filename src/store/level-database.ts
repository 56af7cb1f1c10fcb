/**
 * The one place a LevelDB is opened: the crawl's state database (through the
 * backend table, state-backends.ts) and a standalone seen filter (benches).
 * Buffer encodings by default, so every keyspace can skip per-call options.
 */
import { createRequire } from 'node:module';
import type { RootLevel } from './keyspace.js';

// Through require, not an ES import: an ES import of a CommonJS package makes Node run its export
// lexer over the file (see writer/warcio.ts); the crawl imports none that way.
const { ClassicLevel } = createRequire(import.meta.url)('classic-level') as typeof import('classic-level');

export interface LevelDatabaseOptions {
  cacheSizeBytes?: number;
  writeBufferSizeBytes?: number;
}

/** A LevelDB at `location`, not yet opened (open() or the first operation opens it). */
export function levelDatabase(location: string, opts: LevelDatabaseOptions = {}): RootLevel {
  return new ClassicLevel<Buffer, Buffer>(location, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    ...(opts.cacheSizeBytes !== undefined ? { cacheSize: opts.cacheSizeBytes } : {}),
    ...(opts.writeBufferSizeBytes !== undefined ? { writeBufferSize: opts.writeBufferSizeBytes } : {}),
  });
}
