#!/usr/bin/env node
/** Executable entry point: runs the CLI on the process's argv and streams. */

// Read before anything loads: a parent that dies while the modules load must still count as gone (parent-watch.ts).
const parentAtStart = process.ppid;

// libuv's thread pool (4 threads by default) carries LevelDB reads and
// writes, file writes and WARC gzip at once; short LevelDB operations queued
// behind compression jobs stall every worker. It must be sized before first
// use, hence before the CLI's modules load.
process.env['UV_THREADPOOL_SIZE'] ??= '16';

// The CLI's modules: the bundle when it is fresh (bundle-choice.ts), else the compiled modules beside this file.
const { freshBundle } = await import('./bundle-choice.js');
const bundle = freshBundle(new URL('../../bundle/', import.meta.url), new URL('./', import.meta.url));

if (process.argv[2] === 'run') {
  // A crawl that follows links starts its page thread now, and node's modules the main thread
  // needs are loaded meanwhile, both while V8 still takes node's compiled code for them; the
  // flags below wait for the page thread's modules (page-thread-first.ts, builtins-first.ts).
  const first: typeof import('./page-thread-first.js') = await import(bundle ? new URL('page-thread-first.js', bundle).href : './page-thread-first.js');
  const pageThread = first.startPageThreadFirst(process.argv.slice(3));
  (await import('./builtins-first.js')).loadCrawlBuiltins();
  pageThread?.awaitLinked(first.LINKED_WAIT_MS);
}

// undici parses HTTP with llhttp, compiled to WebAssembly. V8 first compiles
// it with its baseline compiler (Liftoff), then, once it is hot, recompiles
// its one big function with TurboFan: 0.6–1.3 s of CPU and a 29 MB transient
// in RSS, paid by every crawl, even of one page — more than llhttp itself
// costs a crawl of a thousand pages in baseline code (~50 ms on the
// PostgreSQL docs). It stays in baseline code (notes/performance-history.md).
const { setFlagsFromString } = await import('node:v8');
setFlagsFromString('--liftoff-only');
// V8 hands a function to TurboFan once it has used up an "interrupt budget"
// of bytecode executed (67,584 bytes by default). A crawl of a thousand pages
// lasts seconds and runs a wide spread of lukewarm code: with the default,
// TurboFan compiled ~440 functions on the PostgreSQL docs, many of them
// again after a deoptimisation on too little type feedback, on background
// threads that took a quarter of the crawl's CPU. With 6.7× the budget only
// the code that stays hot is optimised, and later, on better feedback: ~140
// compiles, and those threads' CPU about 1 s lower, of which the main and
// page threads, running baseline code longer, take some back; the net was
// within the bench's noise on the sites, and a gain on the synthetic web
// (notes/performance-history.md). A long crawl reaches the same optimised code a few
// seconds later.
setFlagsFromString('--interrupt-budget=450000');
// A crawl's heaps kept near their live size (core/crawl-heap.ts), before
// loading the modules grows the young generation. The bundle's copy of that
// module is the one its workers use (it keeps a bit of state), hence its own entry.
if (process.argv[2] === 'run') {
  const heap: typeof import('../core/crawl-heap.js') = await import(bundle ? new URL('crawl-heap.js', bundle).href : '../core/crawl-heap.js');
  heap.sizeHeapForCrawl();
}
// The crash guard first, so a failure while the CLI loads is reported as any other.
const guard: typeof import('./crash-guard.js') = await import(bundle ? new URL('crash-guard.js', bundle).href : './crash-guard.js');
guard.installCrashGuard({ stderr: process.stderr, exit: (code) => process.exit(code) });
const cli: typeof import('./cli-entry.js') = await import(bundle ? new URL('cli-entry.js', bundle).href : './cli-entry.js');
cli.watchParentUnderNpm({ env: process.env, ppid: () => process.ppid, first: parentAtStart, onGone: () => process.kill(process.pid, 'SIGTERM') });

const code = await cli.main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
