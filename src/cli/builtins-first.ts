/**
 * node's own modules that a crawl's main thread loads, loaded before bin.ts
 * sets any V8 flag. node carries its modules compiled, and V8 refuses that
 * code once any of its flags differs from the default (the flag hash is part
 * of the cache's check): after bin.ts sets its flags, each of these would be
 * compiled from its source as it is first required. Loaded here, they come
 * from the cache; code already loaded keeps it. A one-page crawl, ten
 * alternated runs each: start to first request 149 -> 132 ms, CPU 0.240 ->
 * 0.230 s, peak RSS 64.2 -> 63.6 MB (README, Performance).
 *
 * The list is what the crawl path requires (process.moduleLoadList of a
 * crawl), http2 and tls included: undici's client loads them whatever it
 * speaks. One missing only costs its compile; one a crawl never needs only
 * its load from the cache. The page thread loads its own before the flags
 * are set too: bin.ts starts it first and waits for it (page-thread-first.ts).
 */
import { createRequire } from 'node:module';

export const CRAWL_BUILTINS: readonly string[] = [
  'assert', 'async_hooks', 'crypto', 'diagnostics_channel', 'dns', 'events', 'fs/promises', 'http', 'http2', 'net', 'os',
  'perf_hooks', 'querystring', 'readline', 'stream', 'stream/promises', 'string_decoder', 'timers', 'tls', 'url', 'util',
  'worker_threads', 'zlib',
];

/** Require each of CRAWL_BUILTINS; before any V8 flag is set, so that they come compiled. */
export function loadCrawlBuiltins(): void {
  const require = createRequire(import.meta.url);
  for (const name of CRAWL_BUILTINS) require(`node:${name}`);
}
