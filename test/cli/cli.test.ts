/**
 * The command line as an operator meets it: help for every command, usage
 * errors → 2, invalid profile → 3 with a one-line message naming the path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/capture.js';
import { pageHtml, warcBytes } from '../analysis/synthetic.js';

test('--help lists the commands and exit codes', async () => {
  const io = captureIo();
  assert.equal(await main(['--help'], io), 0);
  for (const word of ['run', 'analyze', 'demo', 'Exit codes']) assert.ok(io.stdout.text.includes(word), word);
});

test('run --help explains every option', async () => {
  const io = captureIo();
  assert.equal(await main(['run', '--help'], io), 0);
  // The whole job layout: the walk-through found captures.jsonl and tmp/ explained nowhere.
  for (const word of ['--fresh', '--quiet', '--workers', 'warcs/', 'crawl.log', 'state/', 'tmp/', 'indexes/index.cdxj', 'indexes/captures.jsonl', 'indexes/search/', 'indexes/inlinks.txt', '<name>.wacz', 'analysis/']) {
    assert.ok(io.stdout.text.includes(word), word);
  }
});

test('no command and unknown commands are usage errors (2); no command gives one line, not the whole help', async () => {
  const bare = captureIo();
  assert.equal(await main([], bare), 2);
  assert.equal(bare.stdout.text, '');
  assert.match(bare.stderr.text, /^usage: archiver <command> \[options\]; the commands are run, .* \(archiver --help says more\)\n$/);
  const io = captureIo();
  assert.equal(await main(['crawl'], io), 2);
  assert.match(io.stderr.text, /unknown command "crawl".*ARCHIVER_USAGE/);
});

test('archiver help <command> is that command\'s help', async () => {
  for (const command of ['run', 'analyze', 'index', 'search', 'wacz', 'replay', 'serve', 'demo']) {
    const viaHelp = captureIo();
    const viaFlag = captureIo();
    assert.equal(await main(['help', command], viaHelp), 0, command);
    assert.equal(await main([command, '--help'], viaFlag), 0, command);
    assert.equal(viaHelp.stdout.text, viaFlag.stdout.text, command);
    assert.ok(viaHelp.stdout.text.includes(`archiver ${command}`), command);
  }
  const unknown = captureIo();
  assert.equal(await main(['help', 'crawl'], unknown), 2);
  assert.match(unknown.stderr.text, /no help on "crawl"/);
});

test('run without a profile, or with an unknown flag, is a usage error (2), told in our words', async () => {
  assert.equal(await main(['run'], captureIo()), 2);
  for (const command of ['run', 'index', 'analyze', 'replay']) {
    const io = captureIo();
    assert.equal(await main([command, 'a.json', '--bogus'], io), 2, command);
    assert.equal(io.stderr.text, `archiver${command === 'analyze' ? ' analyze' : ''}: unknown option --bogus (see archiver ${command} --help) [ARCHIVER_USAGE]\n`);
  }
  const missing = captureIo();
  assert.equal(await main(['replay', '--port'], missing), 2);
  assert.match(missing.stderr.text, /option --port needs a value \(see archiver replay --help\)/);
});

test('a missing profile file is no input (4), not an invalid profile', async () => {
  const io = captureIo();
  assert.equal(await main(['run', path.join(os.tmpdir(), 'no-such-profile-here.json')], io), 4);
  assert.match(io.stderr.text, /no-such-profile-here\.json: cannot read the profile \(no such file\) \[ARCHIVER_NO_INPUT\]/);
});

test('a profile with several problems lists each with its JSON path; bad JSON gives line and column', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-cli-'));
  try {
    const file = path.join(dir, 'many.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'x', seeds: ['ftp://a/'], userAgent: 'x (+https://example.org)', workers: 0, bogus: 1, scope: { exclude: ['(unclosed'] } }),
    );
    const io = captureIo();
    assert.equal(await main(['run', file], io), 3);
    const lines = io.stderr.text.trimEnd().split('\n');
    assert.equal(lines[0], `archiver: ${file}: 4 problems [ARCHIVER_INVALID_PROFILE]`);
    assert.deepEqual(lines.slice(1).sort(), [
      '  /: unknown key "bogus"',
      '  /scope/exclude/0: invalid regular expression /(unclosed/: Unterminated group',
      '  /seeds/0: only http and https seeds are crawled, got ftp:',
      '  /workers: must be >= 1',
    ]);

    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, '{\n  "name": "x",\n  "seeds": ["http://a/"]\n  "userAgent": "x"\n}\n');
    const json = captureIo();
    assert.equal(await main(['run', broken], json), 3);
    assert.match(json.stderr.text, /broken\.json: not valid JSON: line 4, column 3: .*\[ARCHIVER_INVALID_PROFILE\]\n$/);
    assert.doesNotMatch(json.stderr.text, /position/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an invalid profile exits 3 with one line naming file and path', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-cli-'));
  try {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'x', seeds: ['http://127.0.0.1:1/'], userAgent: 'x (+https://example.org)', politeness: { minDelayMs: -5 } }));
    const io = captureIo();
    assert.equal(await main(['run', file], io), 3);
    const lines = io.stderr.text.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.includes(file) && lines[0]!.includes('/politeness/minDelayMs'), lines[0]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--version prints the package version', async () => {
  const io = captureIo();
  assert.equal(await main(['--version'], io), 0);
  assert.match(io.stdout.text, /^archiver \d+\.\d+\.\d+/);
});

test('a directory of WARC files (a job\'s warcs/) is read by index and replay; wacz asks for the job directory', async () => {
  // The walk-through met "jobs/x/warcs: no WARC files in jobs/x/warcs/warcs".
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-cli-'));
  try {
    const warcs = path.join(dir, 'job', 'warcs');
    await mkdir(warcs, { recursive: true });
    await writeFile(path.join(warcs, 'a.warc.gz'), await warcBytes([{ url: 'http://d.test/', html: pageHtml('D', []) }], true));
    const index = captureIo();
    assert.equal(await main(['index', warcs, '-o', path.join(dir, 'out.cdxj')], index), 0, index.stderr.text);
    assert.match(await readFile(path.join(dir, 'out.cdxj'), 'utf8'), /^test,d\)\/ /);
    const wacz = captureIo();
    assert.equal(await main(['wacz', warcs], wacz), 2);
    assert.match(wacz.stderr.text, /wacz packages a job directory \(the one holding warcs\/\), not WARC files/);
    const empty = captureIo();
    assert.equal(await main(['index', dir], empty), 4);
    assert.match(empty.stderr.text, /neither a job directory .* nor a directory of WARC files/);
    // A job whose only WARC is open (a killed crawl): said so, rather than "no WARC files".
    await writeFile(path.join(warcs, 'b.warc.gz.open'), 'x');
    await rm(path.join(warcs, 'a.warc.gz'));
    for (const command of ['index', 'analyze']) {
      const open = captureIo();
      assert.equal(await main([command, path.join(dir, 'job')], open), 4, command);
      assert.match(open.stderr.text, /1 WARC file\(s\) still open \(a crawl is writing them, or was killed: running it again closes them\) not read/, command);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('status and stop given a job folder or an unknown name: one line saying they take a shared store, and where a job of one process is shown', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archiver-status-'));
  try {
    const job = path.join(dir, 'site');
    await mkdir(path.join(job, 'reports'), { recursive: true });
    for (const command of ['status', 'stop']) {
      const io = captureIo();
      assert.equal(await main([command, job], io), 2);
      const lines = io.stderr.text.trimEnd().split('\n');
      assert.equal(lines.length, 1, io.stderr.text);
      assert.match(lines[0]!, /take a store shared by several processes, redis:\/\/HOST:PORT\/DB/);
      assert.ok(lines[0]!.includes(`${path.join(job, 'reports')}, and archiver serve ${dir} shows its jobs`), lines[0]);
      assert.match(lines[0]!, /\[ARCHIVER_USAGE\]$/);
    }
    // Not a folder, not a store: the same line without the job's hint ("level" and "memory" are not listed as choices here).
    const io = captureIo();
    assert.equal(await main(['status', path.join(dir, 'nothing-here')], io), 2);
    assert.doesNotMatch(io.stderr.text, /reports|known: level/);
    assert.match(io.stderr.text, /unknown state store .*: status, stop and serve --store take a store shared by several processes/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
