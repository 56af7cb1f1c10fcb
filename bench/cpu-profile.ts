/**
 * Where one crawl's CPU goes, by thread and by function, counted as CPU:
 * runs `archiver run PROFILE` under `perf record -e cpu-clock -g` with
 * node's jitdump on (`--perf-prof`, through the launcher's
 * ARCHIVER_NODE_FLAGS), names the JavaScript with `perf inject --jit`, and
 * prints each thread group's CPU, what its leaves were doing (JavaScript,
 * V8's and node's C++, the collector, the compilers, zlib, the kernel…)
 * and its functions by inclusive CPU (perf-stacks.ts says why not
 * `--cpu-prof`). Linux with `perf` (Debian: linux-perf) only.
 *
 *   node dist/bench/cpu-profile.js profiles/site.json
 *   node dist/bench/cpu-profile.js /tmp/pg.json --top 40 --hz 4000
 *   node dist/bench/cpu-profile.js /tmp/pg.json --by-module   # also each thread's modules (source files, packages)
 *
 * The profile's job folder should be new (a job that exists is resumed).
 * The jitdump flags cost node its cache of its own modules and perf adds
 * its own overhead: the figures run ~15% above a crawl's without them, so
 * compare parts of one report, or reports made the same way. Figures
 * only: nothing here passes or fails. Loopback crawls only, as every bench.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './bench-args.js';
import { archiverLauncher } from './crawl.js';
import { bundleModules, formatModules, formatProfile, moduleProfiles, parsePerfScript, profileGroups } from './perf-stacks.js';

const USAGE = 'usage: node dist/bench/cpu-profile.js PROFILE.json [--top N] [--hz N] [--keep] [--by-module]';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error !== undefined) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args[0] ?? ''} exited ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return r.stdout;
}

/** The files of the bundle a crawl runs (dist/bundle/, beside this script's dist/bench/), by path. */
function bundleFiles(): [string, string][] {
  const dir = fileURLToPath(new URL('../bundle/', import.meta.url));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => [path.join(dir, f), readFileSync(path.join(dir, f), 'utf8')]);
}

function main(): number {
  const { values, positionals } = benchArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' }, hz: { type: 'string', default: '2000' }, keep: { type: 'boolean', default: false }, 'by-module': { type: 'boolean', default: false } },
  }, { usage: USAGE });
  const top = Number(values.top);
  const hz = Number(values.hz);
  if (positionals.length !== 1 || !Number.isInteger(top) || top < 1 || !Number.isInteger(hz) || hz < 1) {
    console.error(USAGE);
    return 2;
  }
  if (spawnSync('perf', ['--version']).status !== 0) {
    console.error('cpu-profile: perf not found (Debian: apt-get install linux-perf)');
    return 2;
  }
  const profile = path.resolve(positionals[0]!);
  // The jitdump and the ELF images perf inject makes from it land in the crawl's working folder, and
  // perf's build-id cache with them, not in ~/.debug.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'archiver-cpu-profile-'));
  const env = { ...process.env, PERF_BUILDID_DIR: path.join(dir, 'buildid'), ARCHIVER_NODE_FLAGS: `${process.env['ARCHIVER_NODE_FLAGS'] ?? ''} --perf-prof --interpreted-frames-native-stack`.trim() };
  try {
    run('perf', ['record', '-k', '1', '-e', 'cpu-clock', '-F', String(hz), '-g', '-o', 'perf.data', '--', archiverLauncher(), 'run', profile, '--quiet'], dir, env);
    run('perf', ['inject', '--jit', '-i', 'perf.data', '-o', 'perf.jit.data'], dir, env);
    const text = run('perf', ['script', '-i', 'perf.jit.data', '-F', 'comm,pid,tid,ip,sym,dso'], dir, env);
    const samples = parsePerfScript(text);
    console.log(`# CPU of \`archiver run ${positionals[0]}\`, by thread and function (perf cpu-clock, node's jitdump)\n`);
    console.log(formatProfile(profileGroups(samples), hz, top));
    if (values['by-module']) console.log(formatModules(moduleProfiles(samples, bundleModules(bundleFiles())), hz, top));
    return 0;
  } finally {
    if (values.keep) console.log(`\nperf data kept in ${dir} (${readdirSync(dir).length} files)`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
