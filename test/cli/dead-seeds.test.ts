/**
 * Seeds on hosts that refuse connections (issue 28). With default settings,
 * `archiver run` on a profile whose only seed's port was closed took 181 s:
 * its robots.txt was re-fetched at 60 s and 120 s, as for a server that
 * answers 5xx. It then said `seed … was not crawled: robots.txt unavailable
 * (-61)`; "connection refused" was only in crawl.log. Now a host that has
 * never answered is re-tried within seconds and closed with the transport's
 * status and cause, which the summary and the seeds report name; a robots.txt
 * that answers 5xx keeps its patient re-fetches.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { closedPort } from '../helpers/closed-port.js';
import { TEST_USER_AGENT } from '../helpers/test-profile.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-deadseed-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Only what a profile must say: every other setting is the default. */
function defaultProfile(name: string, seeds: string[]): Record<string, unknown> {
  return { name, seeds, userAgent: TEST_USER_AGENT, output: { dir: path.join(tmp, name) } };
}

describe('seeds whose hosts refuse connections, default settings', () => {
  it('exit 5 within 30 s, "connection refused" in the summary, on stderr and in the seeds report', async () => {
    const ports = [await closedPort(), await closedPort()];
    const seeds = ports.map((p) => `http://127.0.0.1:${p}/`);
    const file = path.join(tmp, 'dead.json');
    await writeFile(file, JSON.stringify(defaultProfile('dead', seeds)));
    const io = captureIo();
    const started = Date.now();
    assert.equal(await main(['run', file], io), 5);
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 30_000, `took ${tookMs} ms`);
    for (const [i, port] of ports.entries()) {
      assert.match(io.stderr.text, new RegExp(`closed +127\\.0\\.0\\.1:${port}: connection refused fetching robots\\.txt \\(its URIs logged -2 hostUnreachable\\)`));
      assert.ok(io.stderr.text.includes(`seed ${seeds[i]} was not crawled: connection refused fetching robots.txt (-2)`), io.stderr.text);
    }
    assert.doesNotMatch(io.stderr.text, /-61|robots\.txt unavailable/);
    const reports = path.join(tmp, 'dead', 'reports');
    const json = JSON.parse(await readFile(path.join(reports, 'seeds-report.json'), 'utf8')) as Array<{ url: string; status: number; reason?: string }>;
    assert.deepEqual(json.map((s) => [s.url, s.status, s.reason]).sort(), seeds.map((s) => [s, -2, 'connection refused fetching robots.txt']).sort());
    const text = await readFile(path.join(reports, 'seeds-report.txt'), 'utf8');
    for (const seed of seeds) assert.ok(text.includes(`-2 NOTCRAWLED ${seed} - connection_refused_fetching_robots.txt`), text);
  });

  it('a robots.txt answering 503 keeps the patient re-fetches (robots.unavailable.retryDelayMs, 60 s)', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === '/robots.txt' ? 503 : 200, { 'content-type': 'text/html' });
      res.end('<a href="/a">a</a>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const crawl = await Crawl.start(validateProfile(defaultProfile('busy', [`http://${host}/`]), 'busy'), { log: captureIo().stderr, quiet: true });
    try {
      let waiting = crawl.hosts().find((h) => h.host === host)?.waiting;
      for (let i = 0; i < 500 && waiting == null; i++) {
        await new Promise((r) => setTimeout(r, 10));
        waiting = crawl.hosts().find((h) => h.host === host)?.waiting;
      }
      assert.ok(waiting, 'the host waits');
      assert.equal(waiting.reason, 'robots.txt 503');
      const inMs = waiting.untilMs - Date.now();
      assert.ok(inMs > 50_000, `re-fetched in ${inMs} ms`);
    } finally {
      crawl.stop({ abandonInFlight: true });
      await crawl.done;
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
