/**
 * bin/archiver, what `archiver` runs (package.json "bin"): node with the
 * settings a process cannot make for itself (malloc arenas and mmap
 * threshold, V8's helper threads), then the CLI. A real crawl through it, read from /proc while it
 * waits on its first request: the process is node (the shell exec'd
 * itself away), with the flag and the environment set, and the crawl is
 * whole. A caller's own MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ are kept. NODE_EXTRA_CA_CERTS is
 * dropped, and a site behind a certificate no CA vouches for is still
 * crawled whole.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../src/core/package-root.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../helpers/self-signed-tls.js';

const LAUNCHER = path.join(packageRoot(), 'bin', 'archiver');

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-launcher-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A one-page site whose first request (robots.txt) is held until `release()`; over HTTPS with a self-signed certificate when `secure`. */
async function heldSite(secure = false): Promise<{ origin: string; firstRequest: Promise<void>; release: () => void; close: () => Promise<void> }> {
  let arrived!: () => void;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (req.url === '/robots.txt') {
      arrived();
      void released.then(() => res.writeHead(404, { 'Content-Type': 'text/plain' }).end('none'));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<title>held</title><p>one page</p>');
  };
  const server = secure ? https.createServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }, serve) : http.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, firstRequest, release, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** NUL-separated /proc file of a process, as a list. */
function procList(pid: number, file: 'cmdline' | 'environ'): string[] {
  return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter((s) => s !== '');
}

async function crawlThroughLauncher(name: string, env: NodeJS.ProcessEnv, secure = false): Promise<{ cmdline: string[]; environ: string[]; jobDir: string }> {
  const site = await heldSite(secure);
  try {
    const jobDir = path.join(tmp, name);
    const profile = path.join(tmp, `${name}.json`);
    await writeFile(profile, JSON.stringify(testProfileJson(name, [`${site.origin}/`], jobDir)));
    const child = spawn(LAUNCHER, ['run', profile, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    await site.firstRequest;
    // The crawl waits on robots.txt: read what it runs as.
    const cmdline = procList(child.pid!, 'cmdline');
    const environ = procList(child.pid!, 'environ');
    site.release();
    assert.equal(await exited, 0, stderr);
    return { cmdline, environ, jobDir };
  } finally {
    await site.close();
  }
}

test('the launcher runs the CLI in node itself, with two V8 helper threads, two malloc arenas and a fixed mmap threshold, and the crawl is whole', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const { MALLOC_ARENA_MAX: _, MALLOC_MMAP_THRESHOLD_: __, ...env } = process.env;
  const { cmdline, environ, jobDir } = await crawlThroughLauncher('launched', env);
  assert.match(path.basename(cmdline[0]!), /^node/, `exec'd into node: ${cmdline.join(' ')}`);
  assert.ok(cmdline.includes('--v8-pool-size=2'), cmdline.join(' '));
  const cli = cmdline.find((a) => a.endsWith(path.join('cli', 'bin.js')));
  assert.ok(cli !== undefined && path.resolve(cli) === path.join(packageRoot(), 'dist', 'src', 'cli', 'bin.js'), cmdline.join(' '));
  assert.ok(environ.includes('MALLOC_ARENA_MAX=2'), 'the arena limit is in its environment');
  assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=4194304'), 'the mmap threshold is in its environment');
  const responses = (await readWarcDir(path.join(jobDir, 'warcs'))).filter((r) => r.type === 'response').map((r) => new URL(r.url).pathname);
  assert.deepEqual(responses.sort(), ['/', '/robots.txt']);
  assert.match(await readFile(path.join(jobDir, 'logs', 'crawl.log'), 'utf8'), / 200 /);
});

test("a caller's own MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ are kept", async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const { environ } = await crawlThroughLauncher('own-arenas', { ...process.env, MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '131072' });
  assert.ok(environ.includes('MALLOC_ARENA_MAX=4'), environ.filter((e) => e.startsWith('MALLOC')).join(' '));
  assert.ok(environ.includes('MALLOC_MMAP_THRESHOLD_=131072'), environ.filter((e) => e.startsWith('MALLOC')).join(' '));
});

test('the launcher drops NODE_EXTRA_CA_CERTS (node would parse the bundle at every start), and a site no CA vouches for is crawled whole', async (t) => {
  if (process.platform !== 'linux') return t.skip('reads /proc');
  const bundle = path.join(tmp, 'extra-ca.pem');
  await writeFile(bundle, SELF_SIGNED_CERT);
  const { environ, jobDir } = await crawlThroughLauncher('no-extra-ca', { ...process.env, NODE_EXTRA_CA_CERTS: bundle }, true);
  assert.deepEqual(environ.filter((e) => e.startsWith('NODE_EXTRA_CA_CERTS=')), [], "not in the crawl's environment");
  const responses = (await readWarcDir(path.join(jobDir, 'warcs'))).filter((r) => r.type === 'response').map((r) => r.url);
  assert.deepEqual(responses.map((u) => new URL(u).protocol), ['https:', 'https:'], responses.join(' '));
  assert.deepEqual(responses.map((u) => new URL(u).pathname).sort(), ['/', '/robots.txt']);
});
