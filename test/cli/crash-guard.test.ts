/**
 * Defence in depth (issue 18): an exception that escapes every handler —
 * undici 7 threw one from a socket `end` handler and the process died with a
 * raw stack trace and a `.open` WARC — must stop the process with one line
 * that says what happened and that the same command resumes, exit 1, and
 * leave the job as a kill does at worst: the next run repairs the WARCs and
 * finishes the crawl. The failure is injected with `node --import` into a
 * real `archiver run` child process, mid-crawl.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/core/package-root.js';
import { crashLine } from '../../src/cli/crash-guard.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
let web: FixtureWeb;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-crash-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 10, port: 0, latencyMs: 5 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

async function runChild(profileFile: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const root = packageRoot();
  const bin = path.join(root, 'dist', 'src', 'cli', 'bin.js');
  const injector = pathToFileURL(path.join(root, 'dist', 'test', 'fixtures', 'throw-during-crawl.js')).href;
  const args = Object.keys(env).length > 0 ? ['--import', injector, bin, 'run', profileFile, '--quiet'] : [bin, 'run', profileFile, '--quiet'];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env, TMPDIR: tmp } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stderr };
}

describe('crash guard', () => {
  it('says in one line what escaped, where its stack is, and that the same command resumes', () => {
    const line = crashLine(new RangeError('boom\nmore'), '/tmp/x.txt');
    assert.equal(line.includes('\n'), false);
    assert.match(line, /RangeError: boom/);
    assert.match(line, /stack in \/tmp\/x\.txt/);
    assert.match(line, /run the same command to resume/);
    assert.match(line, /\[ARCHIVER_INTERNAL\]$/);
  });

  for (const kind of ['exception', 'rejection'] as const) {
    it(`an uncaught ${kind} mid-crawl: one line, exit 1, and the same command resumes to a whole, valid crawl`, async () => {
      const name = `crash-${kind}`;
      const jobDir = path.join(tmp, name);
      const profileFile = path.join(tmp, `${name}.json`);
      await writeFile(profileFile, JSON.stringify(testProfileJson(name, web.seeds, jobDir)));
      const crawlLog = path.join(jobDir, 'logs', 'crawl.log');

      const crashed = await runChild(profileFile, { ARCHIVER_TEST_CRAWL_LOG: crawlLog, ARCHIVER_TEST_THROW_AFTER_LINES: '6', ARCHIVER_TEST_THROW_KIND: kind });
      assert.equal(crashed.code, 1, crashed.stderr);
      const lines = crashed.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `expected one line, got:\n${crashed.stderr}`);
      assert.match(lines[0]!, kind === 'exception' ? /RangeError: injected failure/ : /TypeError: injected rejection/);
      assert.match(lines[0]!, /run the same command to resume \[ARCHIVER_INTERNAL\]$/);
      assert.doesNotMatch(crashed.stderr, /^\s+at /m, 'no raw stack trace');
      const stackFile = /stack in (\S+)\)/.exec(lines[0]!)?.[1];
      assert.ok(stackFile !== undefined && (await readFile(stackFile, 'utf8')).includes('throw-during-crawl'), 'the stack file holds the trace');
      // It stopped mid-crawl, as a kill would: the WARC is still open.
      const before = await readdir(path.join(jobDir, 'warcs'));
      assert.ok(before.some((n) => n.endsWith('.open')), `expected an .open WARC, got ${before.join(' ')}`);

      const resumed = await runChild(profileFile, {});
      assert.equal(resumed.code, 0, resumed.stderr);
      const names = await readdir(path.join(jobDir, 'warcs'));
      assert.deepEqual(names.filter((n) => !n.endsWith('.warc.gz')), []);
      const urls = new Set((await readWarcDir(path.join(jobDir, 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
      assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), []);
    });
  }
});
