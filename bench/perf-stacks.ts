/**
 * Where a crawl's CPU goes, function by function, read from `perf script`
 * (`-F comm,pid,tid,ip,sym,dso`) over a `perf record -e cpu-clock -g` of the
 * crawl, its JavaScript named through node's jitdump (`--perf-prof`, then
 * `perf inject --jit`): bench/cpu-profile.ts runs all three.
 *
 * Why not node's own `--cpu-prof`: it samples wall time, so a thread taken
 * off its core inside a call counts as busy there (undici's socket write
 * showed 357 ms on the main thread of a PostgreSQL crawl whose whole process
 * spent 0.39 s in the kernel). perf's software clock ticks only while a
 * thread runs. And not `--perf-basic-prof`: its map names code by address,
 * which V8 reuses as code dies, so some samples carry another function's
 * name; the jitdump names each sample by the code there at that moment.
 *
 * Threads are grouped as the bench's /proc readings group them
 * (thread-cpu.ts threadGroup): "main", archiver's named worker threads
 * (e.g. arch-page), and "node helpers".
 */
import { threadGroup } from './thread-cpu.js';

/** One sample: its thread and its stack, leaf first. */
export interface StackSample {
  comm: string;
  pid: number;
  tid: number;
  frames: Frame[];
}

export interface Frame {
  sym: string;
  dso: string;
}

/** What a sample's leaf was doing, the first that applies, in this order. */
export type LeafKind = 'gc' | 'compile' | 'kernel' | 'zlib' | 'crypto' | 'javascript' | 'v8/node c++' | 'libc' | 'other';

/** A thread group's samples: their count, by kind, and by JavaScript function (inclusive). */
export interface GroupProfile {
  group: string;
  samples: number;
  byKind: Map<LeafKind, number>;
  /** Samples with the function anywhere on the stack, counted once per sample; keyed "name file:line". */
  inclusive: Map<string, number>;
}

const SAMPLE_HEAD = /^(.*?)\s+(\d+)\/(\d+)\s*$/;
const FRAME = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/;
// A stack holding these is V8's collector at work (a helper's marking, or an allocation that collects).
const GC = /Scaveng|MarkCompact|ConcurrentMarking|IncrementalMarking|MinorM[CS]|Sweeper|Evacuat|Heap::CollectGarbage|GCTracer/;
// ...and these, a compiler: TurboFan, Sparkplug, the parser and the bytecode generator.
const COMPILE = /compiler::|Compiler::|Pipeline|Parser::|Scanner::|BytecodeGenerator|BaselineCompiler|OptimizedCompilationJob/;
const ZLIB = /^(deflate|inflate|longest_match|compress_block|crc32|adler32|build_tree|pqdownheap|send_tree|gen_bitlen|gen_codes|fill_window|_tr_|scan_tree|copy_with_crc)/;
const CRYPTO = /^(sha1_|sha256_|sha512_|SHA1|SHA256|EVP_|md5_)/;

/** The samples of `perf script -F comm,pid,tid,ip,sym,dso` output; lines it cannot read are skipped. */
export function parsePerfScript(text: string): StackSample[] {
  const samples: StackSample[] = [];
  let current: StackSample | null = null;
  // A blank line ends each sample; perf leaves none after the last, so one is added.
  for (const line of `${text}\n`.split('\n')) {
    if (line.trim() === '') {
      if (current !== null && current.frames.length > 0) samples.push(current);
      current = null;
      continue;
    }
    if (current === null) {
      const m = SAMPLE_HEAD.exec(line);
      if (m !== null) current = { comm: m[1]!.trim(), pid: Number(m[2]), tid: Number(m[3]), frames: [] };
      continue;
    }
    const f = FRAME.exec(line);
    if (f !== null) current.frames.push({ sym: f[1]!, dso: f[2]! });
  }
  return samples;
}

/** The thread group of a sample, as the bench's /proc readings group threads. */
export function groupOf(s: StackSample): string {
  return threadGroup(s.tid, s.pid, s.comm);
}

/** What the sample's leaf was doing (LeafKind's order decides between two that apply). */
export function leafKind(s: StackSample): LeafKind {
  const leaf = s.frames[0]!;
  if (s.frames.some((f) => GC.test(f.sym))) return 'gc';
  if (s.frames.some((f) => COMPILE.test(f.sym))) return 'compile';
  if (leaf.dso === '[kernel.kallsyms]') return 'kernel';
  if (ZLIB.test(leaf.sym)) return 'zlib';
  if (CRYPTO.test(leaf.sym) || leaf.dso.includes('libcrypto')) return 'crypto';
  if (/^(JS:|Builtin:|Builtins_|BytecodeHandler:|RegExp:)/.test(leaf.sym) || /jitted-\d+-\d+\.so$/.test(leaf.dso)) return 'javascript';
  if (/\/node$|libnode/.test(leaf.dso)) return 'v8/node c++';
  if (/libc\.so|libstdc\+\+|libm\.so|ld-linux/.test(leaf.dso)) return 'libc';
  return 'other';
}

/**
 * A JavaScript frame's function as "name file:line" (the file's last path
 * part, or node's own module name; a module's top-level code is "(top
 * level)"), or null for any other frame. The
 * jitdump's tier marks (`*` optimised, `~` interpreted, `^` baseline, `+`
 * and `-` for V8's other tiers) are dropped, so one function is one key
 * whatever tier ran it.
 */
export function jsFunction(sym: string): string | null {
  const f = jsFrame(sym);
  if (f === null) return null;
  const where = f.file.startsWith('node:') ? f.file : f.file.slice(f.file.lastIndexOf('/') + 1);
  return `${f.name} ${where}${f.line !== null ? `:${f.line}` : ''}`;
}

/** A jitdump symbol of JavaScript, read: the function's name, its file as the symbol gives it (a URL, or node's module name), its line if given. */
function jsFrame(sym: string): { name: string; file: string; line: number | null } | null {
  const m = /^(JS|Script):[*~^+-]?(.*?)\s+(\S+?)(?::(\d+))?(?::\d+)?$/.exec(sym);
  if (m === null) return null;
  const name = m[1] === 'Script' ? '(top level)' : m[2] === '' ? '(anonymous)' : m[2]!;
  return { name, file: m[3]!, line: m[4] === undefined ? null : Number(m[4]) };
}

/** The samples by thread group, most samples first. */
export function profileGroups(samples: readonly StackSample[]): GroupProfile[] {
  const groups = new Map<string, GroupProfile>();
  for (const s of samples) {
    const name = groupOf(s);
    let g = groups.get(name);
    if (g === undefined) {
      g = { group: name, samples: 0, byKind: new Map(), inclusive: new Map() };
      groups.set(name, g);
    }
    g.samples++;
    const kind = leafKind(s);
    g.byKind.set(kind, (g.byKind.get(kind) ?? 0) + 1);
    const seen = new Set<string>();
    for (const f of s.frames) {
      const fn = jsFunction(f.sym);
      if (fn === null || seen.has(fn)) continue;
      seen.add(fn);
      g.inclusive.set(fn, (g.inclusive.get(fn) ?? 0) + 1);
    }
  }
  return [...groups.values()].sort((a, b) => b.samples - a.samples);
}

/** The report: per group its CPU, its leaf kinds, and its `top` functions by inclusive CPU (ms at `hz` samples a second). */
export function formatProfile(groups: readonly GroupProfile[], hz: number, top: number): string {
  const ms = (n: number, digits = 0): string => ((n * 1000) / hz).toFixed(digits);
  const out: string[] = [];
  const total = groups.reduce((sum, g) => sum + g.samples, 0);
  out.push(`CPU sampled: ${ms(total)} ms (${total} samples at ${hz} Hz)`);
  for (const g of groups) {
    out.push('', `## ${g.group}: ${ms(g.samples)} ms (${((100 * g.samples) / total).toFixed(1)}%)`);
    const kinds = [...g.byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${ms(n)} ms`);
    out.push(`by leaf: ${kinds.join(', ')}`);
    const fns = [...g.inclusive].sort((a, b) => b[1] - a[1]).slice(0, top);
    if (fns.length > 0) {
      out.push('', '| ms (inclusive) | share | function |', '|---|---|---|');
      for (const [fn, n] of fns) out.push(`| ${ms(n, 1)} | ${((100 * n) / g.samples).toFixed(1)}% | ${fn} |`);
    }
  }
  return out.join('\n');
}

/** A JavaScript frame's file (as its URL or node's own name says it) and line; null for anything else. */
export function jsLocation(sym: string): { file: string; line: number } | null {
  const f = jsFrame(sym);
  if (f === null || f.line === null) return null;
  return { file: f.file.startsWith('file://') ? f.file.slice('file://'.length) : f.file, line: f.line };
}

/**
 * Where each line of a bundle's files came from. esbuild, not minifying,
 * opens each module's code with a comment naming it (`// dist/src/fetch/html-scan.js`,
 * `// node_modules/parse5/dist/tokenizer/index.js`): a line belongs to the
 * last such comment above it. `files` are the bundle's files, by path.
 */
export function bundleModules(files: Iterable<readonly [path: string, text: string]>): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  for (const [file, text] of files) {
    const lines = text.split('\n');
    const of: string[] = [];
    let current = file;
    for (let i = 0; i < lines.length; i++) {
      const m = /^\/\/ ((?:dist|node_modules)\/\S+\.[cm]?js)$/.exec(lines[i]!);
      if (m !== null) current = m[1]!;
      of[i + 1] = current;
    }
    byFile.set(file, of);
  }
  return byFile;
}

/**
 * The module a JavaScript frame ran: for a bundle's file, the module its
 * line came from (bundleModules); a package outside the bundle by its name
 * (`node_modules/undici`); node's own modules by their name; anything else
 * by its path.
 */
export function moduleOf(sym: string, bundle: ReadonlyMap<string, readonly string[]>): string | null {
  const at = jsLocation(sym);
  if (at === null) return null;
  const inBundle = bundle.get(at.file)?.[at.line];
  if (inBundle !== undefined) return inBundle.replace(/^(node_modules\/(?:@[^/]+\/)?[^/]+)\/.*$/, '$1');
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(at.file);
  return pkg !== null ? `node_modules/${pkg[1]}` : at.file;
}

/** Per thread group, its modules by samples with the module anywhere on the stack (counted once a sample), and by samples whose first JavaScript frame is the module's. */
export function moduleProfiles(samples: readonly StackSample[], bundle: ReadonlyMap<string, readonly string[]>): Map<string, { inclusive: Map<string, number>; self: Map<string, number> }> {
  const out = new Map<string, { inclusive: Map<string, number>; self: Map<string, number> }>();
  for (const s of samples) {
    const group = groupOf(s);
    let g = out.get(group);
    if (g === undefined) out.set(group, (g = { inclusive: new Map(), self: new Map() }));
    const seen = new Set<string>();
    for (const f of s.frames) {
      const mod = moduleOf(f.sym, bundle);
      if (mod === null) continue;
      if (seen.size === 0) g.self.set(mod, (g.self.get(mod) ?? 0) + 1);
      if (seen.has(mod)) continue;
      seen.add(mod);
      g.inclusive.set(mod, (g.inclusive.get(mod) ?? 0) + 1);
    }
  }
  return out;
}

/** moduleProfiles as a report: per group, its `top` modules by inclusive and by self ms (at `hz` samples a second). */
export function formatModules(profiles: ReadonlyMap<string, { inclusive: Map<string, number>; self: Map<string, number> }>, hz: number, top: number): string {
  const ms = (n: number): string => ((n * 1000) / hz).toFixed(1);
  const out: string[] = [];
  for (const [group, p] of profiles) {
    const inclusive = [...p.inclusive].sort((a, b) => b[1] - a[1]).slice(0, top);
    if (inclusive.length === 0) continue;
    out.push('', `## ${group}: modules`, '', '| ms (inclusive) | ms (self) | module |', '|---|---|---|');
    for (const [mod, n] of inclusive) out.push(`| ${ms(n)} | ${ms(p.self.get(mod) ?? 0)} | ${mod} |`);
  }
  return out.join('\n');
}
