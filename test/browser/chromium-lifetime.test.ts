/**
 * Chromium's lifetime under a crawl:
 *
 * - killed in mid-crawl (SIGKILL to the browser while a page waits for its
 *   subrequests), it is started again, the page is rendered again, and the
 *   links only JavaScript produces are still found;
 * - the crawl killed with SIGKILL (a real `archiver run` process) leaves no
 *   Chromium behind: the browser quits when its pipe closes; the same
 *   command then resumes the job and finishes it;
 * - with no Chromium to run, `archiver run` exits 6 with one line naming
 *   the executable and how to install it.
 *
 * Waits are on the server's request log and on /proc, polled with a bound.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { captureIo } from '../helpers/capture.js';
import { startCli, waitFor } from '../helpers/cli-child.js';
import { crawlLogLines } from '../helpers/crawl-log-lines.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { startJsWeb, type JsWeb } from './js-web.js';
import { alive, chromiumOf } from './processes.js';

let tmp: string;
let web: JsWeb;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-chromium-life-'));
  web = await startJsWeb();
});

after(async () => {
  await web?.close();
  await rm(tmp, { recursive: true, force: true });
});

function profileJson(name: string, seed: string, browser: Record<string, unknown> = {}): Record<string, unknown> {
  return testProfileJson(name, [seed], path.join(tmp, name), {
    workers: 3,
    politeness: { delayFactor: 0, minDelayMs: 20, maxDelayMs: 1000, maxConnectionsPerHost: 1 },
    browser: { enabled: true, executable: '/usr/bin/chromium', idleMs: 200, pageTimeoutMs: 15000, behaviorTimeoutMs: 3000, maxRequestsPerPage: 20, ...browser },
  });
}

describe('Chromium killed or missing', () => {
  test('Chromium killed while a page renders is started again; the page is rendered again', async () => {
    const name = 'crash';
    const profile = validateProfile(profileJson(name, `${web.a}/`), name);
    const io = captureIo();
    let killed: number[] = [];
    const crawl = runCrawl({ profile, stderr: io.stderr, quiet: false });
    // The home page's render asks for its JSON: Chromium is then mid-page.
    const rendering = await waitFor(() => web.hits.some((h) => h.path === '/api/items.json'), 60_000, 20);
    assert.ok(rendering, 'the home page was never rendered');
    const { browsers } = await chromiumOf(process.pid);
    assert.ok(browsers.length >= 1, 'no Chromium found under the test process');
    for (const pid of browsers) process.kill(pid, 'SIGKILL');
    killed = browsers;
    const summary = await crawl;
    assert.deepEqual(await alive(killed), []);
    assert.ok((summary.browser?.browserRestarts ?? 0) >= 1, `${JSON.stringify(summary.browser)}\n${io.stderr.text}`);
    const fetched = new Set(web.hits.map((h) => h.path));
    for (const p of ['/item/1', '/item/2', '/item/3']) assert.ok(fetched.has(p), `${p} not fetched after the restart`);
    const home = (await crawlLogLines(path.join(tmp, name))).find((l) => l.url === `${web.a}/`);
    assert.ok(home?.annotations.some((a) => a.startsWith('rendered:')), JSON.stringify(home));
  });

  test('a crawl stopped while a page waits for its data ends the render at once, marked browserStopped', async () => {
    const name = 'stopped';
    // A page timeout far beyond the test's patience: only the stop can end this render in time.
    const profile = validateProfile(profileJson(name, `${web.a}/waits`, { pageTimeoutMs: 600_000 }), name);
    const summary = await runCrawl({
      profile,
      stderr: captureIo().stderr,
      quiet: true,
      onStart: (crawl) => {
        void waitFor(() => web.hits.some((h) => h.path === '/hang'), 60_000, 20).then(() => crawl.stop());
      },
    });
    assert.equal(summary.status, 'ABORTED');
    const page = (await crawlLogLines(path.join(tmp, name))).find((l) => l.url === `${web.a}/waits`);
    assert.ok(page?.annotations.includes('browserStopped'), JSON.stringify(page));
  });

  test('archiver run killed with SIGKILL leaves no Chromium behind, and resumes', async () => {
    const name = 'killed';
    const file = path.join(tmp, `${name}.json`);
    // On its own port: the first test's crawl fetched from the shared web already.
    const own = await startJsWeb();
    try {
      await writeFile(file, JSON.stringify(profileJson(name, `${own.a}/`)));
      const cli = startCli(['run', file, '--quiet']);
      // The home page's render waits for its JSON: Chromium is busy, the crawl far from done, when it dies.
      const busy = await waitFor(() => own.hits.some((h) => h.path === '/api/items.json'), 60_000, 20);
      assert.ok(busy, `the home page was never rendered: ${cli.stderr()}`);
      const { browsers, group } = await chromiumOf(cli.child.pid!);
      assert.ok(browsers.length >= 1, 'no Chromium under the crawl process');
      cli.child.kill('SIGKILL');
      assert.equal(await cli.exit, null);
      const gone = await waitFor(async () => (await alive(group)).length === 0, 15_000, 50);
      assert.ok(gone, `Chromium outlived the crawl: ${(await alive(group)).join(' ')}`);
      const again = startCli(['run', file, '--quiet']);
      assert.equal(await again.exit, 0, again.stderr());
      const lines = await crawlLogLines(path.join(tmp, name));
      assert.ok(lines.some((l) => l.url === `${own.a}/` && l.annotations.some((a) => a.startsWith('rendered:'))), 'the resumed crawl did not render the home page');
      assert.ok(own.hits.some((h) => h.path === '/item/3'), 'the resumed crawl did not reach the links only JavaScript makes');
    } finally {
      await own.close();
    }
  });

  test('no Chromium: exit 6 and one line naming the executable and apt-get install chromium', async () => {
    const name = 'missing';
    const file = path.join(tmp, `${name}.json`);
    await writeFile(file, JSON.stringify(profileJson(name, `${web.a}/`, { executable: path.join(tmp, 'no-such-chromium') })));
    const cli = startCli(['run', file]);
    assert.equal(await cli.exit, ExitCode.browserUnavailable);
    const lines = cli.stderr().trim().split('\n');
    assert.equal(lines.length, 1, cli.stderr());
    assert.match(lines[0]!, /no-such-chromium/);
    assert.match(lines[0]!, /apt-get install chromium/);
    assert.match(lines[0]!, /ARCHIVER_BROWSER_UNAVAILABLE/);
  });
});
