/**
 * bench/perf-stacks.ts reads `perf script -F comm,pid,tid,ip,sym,dso` as
 * perf 6.1 prints it over a crawl recorded with node's jitdump (the lines
 * below are taken from such a run): samples, thread groups, what each leaf
 * was doing, and JavaScript functions counted once per sample.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundleModules, formatModules, formatProfile, groupOf, jsFunction, jsLocation, leafKind, moduleOf, moduleProfiles, parsePerfScript, profileGroups, type StackSample } from '../../bench/perf-stacks.js';

const SCRIPT = [
  'node 15840/15840 ',
  '\t             15c JS:*_stateData file:///work/main/dist/src/fetch/plain-run-tokenizer.js:255:15 (/tmp/p/jitted-15840-12.so)',
  '\t             15c JS:^run file:///work/main/dist/src/fetch/html-scan.js:80:8 (/tmp/p/jitted-15840-13.so)',
  '\t             15c JS:^run file:///work/main/dist/src/fetch/html-scan.js:80:8 (/tmp/p/jitted-15840-13.so)',
  '',
  'arch-page 15840/15852 ',
  '\t          ece8ef v8::internal::(anonymous namespace)::Invoke (/usr/bin/node)',
  '\t              b6 Builtin:CEntry_Return1_ArgvOnStack_NoBuiltinExit (/tmp/p/jitted-15840-3591.so)',
  '\t             15c JS:~ file:///work/main/dist/src/crawl/page-work.js:61:1 (/tmp/p/jitted-15840-20.so)',
  '\t             15c JS:~Zlib node:zlib:607:14 (/tmp/p/jitted-15840-6186.so)',
  '',
  'arch-page 15840/15852 ',
  '\tffffffff81bd1b6d __list_del_entry_valid_or_report ([kernel.kallsyms])',
  '\t          febfb0 v8::internal::Scavenger::ScavengePage (/usr/bin/node)',
  '',
  'node 15840/15845 ',
  '\t          a1b2c3 v8::internal::compiler::GraphReducer::ReduceTop (/usr/bin/node)',
  '\t          a1b2c4 v8::internal::OptimizedCompilationJob::ExecuteJob (/usr/bin/node)',
  '',
  'this line is not a sample head',
  '\t  1234 a frame with no dso',
  '',
  'node 15840/15840 ',
  '\t           8f2a0 longest_match (/usr/bin/node)',
  '\t             15c JS:^get size file:///work/main/dist/src/core/body.js:9:3 (/tmp/p/jitted-15840-40.so)',
  '',
  'node 15840/15840 ',
  '\t          108cae __memmove_avx512_unaligned_erms (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '\t             15c Script:~ file:///work/main/dist/src/cli/bin.js:1:1 (/tmp/p/jitted-15840-1.so)',
].join('\n'); // the last sample has no blank line after it, as perf leaves the end of its output

test('parsePerfScript: one sample per head line with its frames, leaf first; symbols holding parentheses keep them; lines it cannot read are left out', () => {
  const samples = parsePerfScript(SCRIPT);
  assert.equal(samples.length, 6);
  assert.deepEqual(
    samples.map((s) => [s.comm, s.pid, s.tid, s.frames.length]),
    [
      ['node', 15840, 15840, 3],
      ['arch-page', 15840, 15852, 4],
      ['arch-page', 15840, 15852, 2],
      ['node', 15840, 15845, 2],
      ['node', 15840, 15840, 2],
      ['node', 15840, 15840, 2],
    ],
  );
  assert.deepEqual(samples[1]!.frames[0], { sym: 'v8::internal::(anonymous namespace)::Invoke', dso: '/usr/bin/node' });
  assert.deepEqual(samples[2]!.frames[0], { sym: '__list_del_entry_valid_or_report', dso: '[kernel.kallsyms]' });
});

test('groupOf: the process\'s first thread is main, a named worker keeps its name, the other node threads are the helpers', () => {
  const [main, page, , helper] = parsePerfScript(SCRIPT);
  assert.equal(groupOf(main!), 'main');
  assert.equal(groupOf(page!), 'arch-page');
  assert.equal(groupOf(helper!), 'node helpers');
});

test('leafKind: the collector or a compiler anywhere on the stack first, then the leaf: kernel, zlib, JavaScript, C++, libc', () => {
  const kinds = parsePerfScript(SCRIPT).map(leafKind);
  assert.deepEqual(kinds, ['javascript', 'v8/node c++', 'gc', 'compile', 'zlib', 'libc']);
  const one = (sym: string, dso: string): StackSample => ({ comm: 'node', pid: 1, tid: 1, frames: [{ sym, dso }] });
  assert.equal(leafKind(one('tcp_sendmsg', '[kernel.kallsyms]')), 'kernel');
  assert.equal(leafKind(one('sha1_block_data_order_shaext', '/usr/bin/node')), 'crypto');
  assert.equal(leafKind(one('Builtins_LoadIC', '/usr/bin/node')), 'javascript');
  assert.equal(leafKind(one('something', '/opt/other.so')), 'other');
});

test('jsFunction: name and file:line, tier marks dropped, node\'s modules by name, nameless and top-level code marked; other frames null', () => {
  assert.equal(jsFunction('JS:*_stateData file:///work/main/dist/src/fetch/plain-run-tokenizer.js:255:15'), '_stateData plain-run-tokenizer.js:255');
  assert.equal(jsFunction('JS:^_stateData file:///work/main/dist/src/fetch/plain-run-tokenizer.js:255:15'), '_stateData plain-run-tokenizer.js:255');
  assert.equal(jsFunction('JS:~Zlib node:zlib:607:14'), 'Zlib node:zlib:607');
  assert.equal(jsFunction('JS:~ file:///work/main/dist/src/crawl/page-work.js:61:1'), '(anonymous) page-work.js:61');
  assert.equal(jsFunction('JS:^get size file:///work/main/dist/src/core/body.js:9:3'), 'get size body.js:9');
  assert.equal(jsFunction('Script:~ file:///work/main/dist/src/cli/bin.js:1:1'), '(top level) bin.js:1');
  assert.equal(jsFunction('Builtin:CEntry_Return1_ArgvOnStack_NoBuiltinExit'), null);
  assert.equal(jsFunction('v8::internal::Scavenger::ScavengePage'), null);
});

test('profileGroups: samples by group, most first; a function on a stack twice (recursion) counts once for that sample', () => {
  const groups = profileGroups(parsePerfScript(SCRIPT));
  assert.deepEqual(
    groups.map((g) => [g.group, g.samples]),
    [
      ['main', 3],
      ['arch-page', 2],
      ['node helpers', 1],
    ],
  );
  const main = groups[0]!;
  assert.equal(main.inclusive.get('run html-scan.js:80'), 1);
  assert.equal(main.inclusive.get('_stateData plain-run-tokenizer.js:255'), 1);
  assert.deepEqual([...main.byKind].sort(), [['javascript', 1], ['libc', 1], ['zlib', 1]]);
  assert.equal(groups[2]!.inclusive.size, 0);
});

test('formatProfile: milliseconds at the sampling rate, shares of the whole and of each group, the top functions only', () => {
  const report = formatProfile(profileGroups(parsePerfScript(SCRIPT)), 1000, 1);
  assert.match(report, /^CPU sampled: 6 ms \(6 samples at 1000 Hz\)/);
  assert.match(report, /## main: 3 ms \(50\.0%\)/);
  assert.match(report, /## node helpers: 1 ms \(16\.7%\)\nby leaf: compile 1 ms/);
  // One function row per group with functions (top 1): main's and arch-page's, none for the helpers.
  assert.equal(report.split('\n').filter((l) => /^\| \d/.test(l)).length, 2);
  assert.match(report, /\| 1\.0 \| 33\.3% \| /);
});

test('modules: a bundle line goes to the module esbuild marked above it, a package by its name, node by its own name', () => {
  const bundle = bundleModules([
    ['/work/main/dist/bundle/chunk-A.js', ['import x from "y";', '', '// dist/src/fetch/html-scan.js', 'function run() {', '}', '// node_modules/parse5/dist/tokenizer/index.js', 'class Tokenizer {', '}'].join('\n')],
  ]);
  assert.equal(moduleOf('JS:^run file:///work/main/dist/bundle/chunk-A.js:4:10', bundle), 'dist/src/fetch/html-scan.js');
  assert.equal(moduleOf('JS:*_stateData file:///work/main/dist/bundle/chunk-A.js:7:3', bundle), 'node_modules/parse5');
  assert.equal(moduleOf('JS:~ file:///work/main/dist/bundle/chunk-A.js:1:1', bundle), '/work/main/dist/bundle/chunk-A.js');
  assert.equal(moduleOf('JS:*execute file:///work/main/node_modules/undici/lib/dispatcher/client-h1.js:320:5', bundle), 'node_modules/undici');
  assert.equal(moduleOf('JS:~Zlib node:zlib:607:14', bundle), 'node:zlib');
  assert.equal(moduleOf('v8::internal::Scavenger::ScavengePage', bundle), null);
  assert.deepEqual(jsLocation('Script:~ file:///work/main/dist/src/cli/bin.js:1:1'), { file: '/work/main/dist/src/cli/bin.js', line: 1 });

  const samples: StackSample[] = [
    { comm: 'node', pid: 1, tid: 1, frames: [
      { sym: 'JS:*_stateData file:///work/main/dist/bundle/chunk-A.js:7:3', dso: 'j.so' },
      { sym: 'JS:^run file:///work/main/dist/bundle/chunk-A.js:4:10', dso: 'j.so' },
      { sym: 'JS:^run file:///work/main/dist/bundle/chunk-A.js:4:10', dso: 'j.so' },
    ] },
    { comm: 'node', pid: 1, tid: 1, frames: [
      { sym: 'v8::internal::Heap::CollectGarbage', dso: '/usr/bin/node' },
      { sym: 'JS:^run file:///work/main/dist/bundle/chunk-A.js:4:10', dso: 'j.so' },
    ] },
  ];
  const main = moduleProfiles(samples, bundle).get('main')!;
  assert.deepEqual([...main.inclusive], [['node_modules/parse5', 1], ['dist/src/fetch/html-scan.js', 2]]);
  assert.deepEqual([...main.self], [['node_modules/parse5', 1], ['dist/src/fetch/html-scan.js', 1]]);
  const report = formatModules(moduleProfiles(samples, bundle), 1000, 10);
  assert.match(report, /## main: modules/);
  assert.match(report, /\| 2\.0 \| 1\.0 \| dist\/src\/fetch\/html-scan\.js \|/);
});
