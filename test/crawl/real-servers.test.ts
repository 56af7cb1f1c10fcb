/**
 * Crawls of a static site served by real server programs, not our fixtures.
 * Regression (issue 18): `python3 -m http.server` answers HTTP/1.0 and closes
 * the connection after each response; with a body under back-pressure that
 * crashed the crawl from inside undici 8 times out of 9. nginx (keep-alive,
 * gzip) is the common case. Each crawl must exit cleanly having archived
 * every file reachable from `/`, in valid WARC records whose payloads match
 * the files on disk.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { captureIo } from '../helpers/capture.js';
import { needs } from '../helpers/programs.js';
import { startNginx, startPythonHttpServer, type RunningServer } from '../helpers/server-programs.js';
import { writeStaticSite, type StaticSite } from '../helpers/static-site.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
let site: StaticSite;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-real-'));
  site = await writeStaticSite(path.join(tmp, 'site'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function crawlAndCheck(server: RunningServer, name: string): Promise<void> {
  const profile = validateProfile(
    testProfileJson(name, [`${server.origin}/`], path.join(tmp, name), { workers: 4, politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 1 } }),
    name,
  );
  const summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  assert.equal(summary.status, 'FINISHED');
  const records = await readWarcDir(summary.warcDir);
  const responses = new Map(records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => [new URL(r.url).pathname, r]));
  const missing = site.paths.filter((p) => !responses.has(p));
  assert.deepEqual(missing, [], `paths not archived from ${name}`);
  for (const p of site.paths) {
    const r = responses.get(p)!;
    if (r.type !== 'response' || p.endsWith('/') || r.httpHeaders.get('content-encoding')) continue;
    const onDisk = await readFile(path.join(site.root, ...p.split('/').filter((s) => s !== '').map(decodeURIComponent)));
    assert.equal(createHash('sha1').update(r.payload).digest('hex'), createHash('sha1').update(onDisk).digest('hex'), `${name}: payload of ${p}`);
  }
}

describe('crawling real web servers', () => {
  it('Python http.server (HTTP/1.0, closes after every response): exits cleanly with every file archived, three times', needs('python3'), async () => {
    for (let round = 0; round < 3; round++) {
      const server = await startPythonHttpServer(site.root);
      try {
        await crawlAndCheck(server, `python-${round}`);
      } finally {
        await server.stop();
      }
    }
  });

  it('nginx (keep-alive, gzip): every file archived', needs('nginx'), async () => {
    const server = await startNginx(site.root, path.join(tmp, 'nginx'));
    try {
      await crawlAndCheck(server, 'nginx');
    } finally {
      await server.stop();
    }
  });
});
