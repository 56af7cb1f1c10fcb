/**
 * The disk filling up mid-crawl: the crawl stops with a one-line error and
 * exit code 1, every WARC stays valid, and once space is back the same
 * command resumes and completes. Heritrix users report crawls wedged by full
 * disks (heritrix3 #340, #569). Twice: on a real, tiny tmpfs as the job
 * directory (needs mount rights, skipped without them), and with ENOSPC
 * injected below the WARC writer, in Node's fs (test/fixtures/enospc-preload.ts),
 * which runs anywhere.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { packageRoot } from '../../src/core/package-root.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { gzipMembers } from '../helpers/gzip-members.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
let mountPoint: string;
let mounted = false;
let web: FixtureWeb;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-diskfull-'));
  mountPoint = path.join(tmp, 'disk');
  execFileSync('mkdir', ['-p', mountPoint]);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=640k', 'tmpfs', mountPoint], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
  web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 12, port: 0 });
});

after(async () => {
  await web.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  await rm(tmp, { recursive: true, force: true });
});

function run(profileFile: string, warcBytesOnDisk?: number): Promise<{ code: number | null; stderr: string }> {
  const root = packageRoot();
  const bin = path.join(root, 'dist', 'src', 'cli', 'bin.js');
  const preload = pathToFileURL(path.join(root, 'dist', 'test', 'fixtures', 'enospc-preload.js')).href;
  const args = warcBytesOnDisk === undefined ? [bin] : ['--import', preload, bin];
  const env = warcBytesOnDisk === undefined ? process.env : { ...process.env, ARCHIVER_TEST_WARC_BYTES: String(warcBytesOnDisk) };
  const child = spawn(process.execPath, [...args, 'run', profileFile, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

test('a full disk stops the crawl cleanly; it resumes once space is back', async (t) => {
  if (!mounted) {
    t.skip('cannot mount a tmpfs here (needs root)');
    return;
  }
  const jobDir = path.join(mountPoint, 'job');
  const profileFile = path.join(tmp, 'profile.json');
  await writeFile(profileFile, JSON.stringify({
    name: 'diskfull',
    seeds: web.seeds,
    userAgent: 'archiver-test/0.1 (+https://example.org/test)',
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    output: { dir: jobDir },
  }));

  const full = await run(profileFile);
  assert.equal(full.code, 1, full.stderr);
  const lines = full.stderr.trim().split('\n');
  assert.equal(lines.length, 1, full.stderr);
  assert.match(lines[0]!, /disk full.*\[ARCHIVER_DISK_FULL\]$/);
  const before = await readdir(path.join(jobDir, 'warcs'));
  assert.ok(before.length > 0 && before.every((n) => n.endsWith('.warc.gz')), `closed WARCs: ${before.join(' ')}`);

  execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
  const resumed = await run(profileFile);
  assert.equal(resumed.code, 0, resumed.stderr);

  const warcDir = path.join(jobDir, 'warcs');
  for (const name of await readdir(warcDir)) {
    assert.equal(gunzipSync(await readFile(path.join(warcDir, name))).subarray(0, 5).toString(), 'WARC/', name);
  }
  const urls = new Set((await readWarcDir(warcDir)).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
  assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), []);
});

test('ENOSPC injected below the WARC writer: one line, exit 1, whole records only, and the same command completes the crawl', async () => {
  const jobDir = path.join(tmp, 'injected');
  const profileFile = path.join(tmp, 'injected.json');
  await writeFile(profileFile, JSON.stringify({
    name: 'injected',
    seeds: web.seeds,
    userAgent: 'archiver-test/0.1 (+https://example.org/test)',
    politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    output: { dir: jobDir },
  }));
  const diskBytes = 60_000;
  const full = await run(profileFile, diskBytes);
  assert.equal(full.code, 1, full.stderr);
  const lines = full.stderr.trim().split('\n');
  assert.equal(lines.length, 1, full.stderr);
  assert.match(lines[0]!, /disk full.*\[ARCHIVER_DISK_FULL\]$/);

  const warcDir = path.join(jobDir, 'warcs');
  const names = await readdir(warcDir);
  assert.ok(names.length > 0 && names.every((n) => n.endsWith('.warc.gz')), `closed WARCs: ${names.join(' ')}`);
  let onDisk = 0;
  for (const name of names) {
    const bytes = await readFile(path.join(warcDir, name));
    onDisk += bytes.length;
    // The record cut by the full disk is gone: every member left is one whole record.
    for (const m of gzipMembers(bytes)) {
      assert.match(m.data.toString('latin1'), /^WARC\/1\.1\r\n[\s\S]*\r\n\r\n$/, `${name}@${m.offset}`);
    }
  }
  assert.ok(onDisk <= diskBytes, `${onDisk} bytes on a ${diskBytes}-byte disk`);
  const before = new Set((await readWarcDir(warcDir)).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
  assert.ok(before.size > 0 && before.size < web.expectedUrls().reachable.length, `${before.size} captures before the disk filled`);

  const resumed = await run(profileFile);
  assert.equal(resumed.code, 0, resumed.stderr);
  for (const name of await readdir(warcDir)) gzipMembers(await readFile(path.join(warcDir, name)));
  const urls = new Set((await readWarcDir(warcDir)).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
  assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), []);
});
