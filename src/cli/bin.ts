#!/usr/bin/env node
/** Executable entry point: runs the CLI on the process's argv and streams. */

// Read before anything loads: a parent that dies while the modules load must still count as gone (parent-watch.ts).
const parentAtStart = process.ppid;

// libuv's thread pool (4 threads by default) carries LevelDB reads and
// writes, file writes and WARC gzip at once; short LevelDB operations queued
// behind compression jobs stall every worker. It must be sized before first
// use, hence before the CLI's modules load.
process.env['UV_THREADPOOL_SIZE'] ??= '16';

// undici parses HTTP with llhttp, compiled to WebAssembly. V8 first compiles
// it with its baseline compiler (Liftoff), then, once it is hot, recompiles
// its one big function with TurboFan: 0.6–1.3 s of CPU and a 29 MB transient
// in RSS, paid by every crawl, even of one page — more than llhttp itself
// costs a crawl of a thousand pages in baseline code (~50 ms on the
// PostgreSQL docs). It stays in baseline code (README, Performance).
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
// (README, Performance). A long crawl reaches the same optimised code a few
// seconds later.
setFlagsFromString('--interrupt-budget=450000');
// A crawl's heaps kept near their live size (core/crawl-heap.ts), before
// loading the modules grows the young generation.
if (process.argv[2] === 'run') (await import('../core/crawl-heap.js')).sizeHeapForCrawl();
const { installCrashGuard } = await import('./crash-guard.js');
installCrashGuard({ stderr: process.stderr, exit: (code) => process.exit(code) });
const { watchParentUnderNpm } = await import('./parent-watch.js');
watchParentUnderNpm({ env: process.env, ppid: () => process.ppid, first: parentAtStart, onGone: () => process.kill(process.pid, 'SIGTERM') });
const { main } = await import('./main.js');

const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
