/**
 * The crawl handle (issue 12): pause holds (the server sees no request while
 * paused) and resume continues with politeness intact; seeds added while
 * running are crawled, saved before they are queued (a crawl killed right
 * after addSeeds resumes with them) and bring their host into scope when
 * the profile names no hosts; stop ends the crawl cleanly; status, queues,
 * hosts and events describe it as it runs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { packageRoot } from '../../src/core/package-root.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir } from '../helpers/warc-read.js';

let tmp: string;
let web: FixtureWeb;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-handle-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 12, port: 0, latencyMs: 10 });
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

async function capturedUrls(dir: string): Promise<Set<string>> {
  return new Set((await readWarcDir(path.join(dir, 'warcs'))).filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.url));
}

describe('the crawl handle', () => {
  it('pause holds (no request reaches the server), resume finishes the crawl', async () => {
    const profile = validateProfile(testProfileJson('paused', web.seeds, path.join(tmp, 'paused'), { workers: 4 }), 'paused');
    web.takeRequests();
    const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true });
    const states: string[] = [];
    crawl.events.on('state', (e) => states.push(e.state));
    let captures = 0;
    crawl.events.on('capture', () => captures++);
    await until(() => captures >= 10, '10 captures');
    assert.equal(crawl.pause(), 'paused');
    await until(() => crawl.status().inProcess === 0, 'in-flight fetches to finish');
    const settled = web.requests.length;
    const pausedStatus = crawl.status();
    assert.equal(pausedStatus.state, 'paused');
    assert.ok(pausedStatus.queued > 0, 'work was left when paused');
    await sleep(800);
    assert.equal(web.requests.length, settled, 'a request reached the server while paused');
    assert.equal(crawl.status().uris, pausedStatus.uris);
    assert.equal(crawl.resume(), 'running');
    const summary = await crawl.done;
    assert.equal(summary.status, 'FINISHED');
    assert.deepEqual(states, ['paused', 'running', 'stopping', 'finished']);
    const urls = await capturedUrls(profile.output.dir);
    assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), []);
    for (const r of web.requests) assert.ok(r.inFlightAtStart <= 1, 'one connection per host, paused or not');
  });

  it('added seeds are seen-checked, crawled, and bring their host into scope when the profile names none', async () => {
    const [first, second] = web.seeds as [string, string];
    const profile = validateProfile(testProfileJson('added', [first], path.join(tmp, 'added'), { workers: 2 }), 'added');
    const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true });
    crawl.pause();
    const result = await crawl.addSeeds([second, first, 'ftp://example.org/', second]);
    assert.deepEqual(result.added, [second]);
    assert.deepEqual(result.rejected, [
      { url: 'ftp://example.org/', reason: 'not an absolute http(s) URL' },
      { url: second, reason: 'given twice' },
      { url: first, reason: 'already seen' },
    ]);
    crawl.resume();
    await crawl.done;
    const urls = await capturedUrls(profile.output.dir);
    const secondHost = new URL(second).host;
    assert.ok([...urls].filter((u) => new URL(u).host === secondHost).length > 5, 'the added seed host was crawled');
    assert.deepEqual((await crawl.addSeeds([`${second}late`])).rejected, [{ url: `${second}late`, reason: 'the crawl is ending' }]);
  });

  it('a crawl killed right after addSeeds resumes with the added seed', async () => {
    const [first, second] = web.seeds as [string, string];
    const dir = path.join(tmp, 'killed');
    const profileFile = path.join(tmp, 'killed.json');
    await writeFile(profileFile, JSON.stringify(testProfileJson('killed', [first], dir, { workers: 2 })));
    const script = path.join(packageRoot(), 'dist', 'test', 'fixtures', 'add-seeds-then-die.js');
    const child = spawn(process.execPath, [script, profileFile, second], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
    assert.equal(signal, 'SIGKILL', out);
    assert.deepEqual(JSON.parse(out.trim()), { added: [second], rejected: [] });
    assert.ok((await readdir(path.join(dir, 'warcs'))).some((n) => n.endsWith('.open')), 'killed mid-crawl');

    const summary = await runCrawl({ profile: validateProfile(JSON.parse(JSON.stringify(testProfileJson('killed', [first], dir, { workers: 2 }))), 'killed'), stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    const urls = await capturedUrls(dir);
    assert.ok(urls.has(second), 'the added seed was crawled after the resume');
    assert.deepEqual(web.expectedUrls().reachable.filter((u) => !urls.has(u)), [], 'both hosts crawled whole');
  });

  it('a captured page is searchable within seconds, while the crawl runs', async () => {
    const profile = validateProfile(testProfileJson('searchable', web.seeds, path.join(tmp, 'searchable'), { workers: 2 }), 'searchable');
    const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true });
    let article: string | null = null;
    crawl.events.on('capture', (e) => {
      if (article === null && e.status === 200 && /\/s\/[^/]+\/[a-z0-9-]+-\d+\.html$/.test(e.url)) article = e.url;
    });
    await until(() => article !== null, 'an article page to be captured');
    crawl.pause();
    // Its title words are in its path: /s/<section>/<title-slug>-<n>.html
    const words = article!.replace(/^.*\/([a-z0-9-]+)-\d+\.html$/, '$1').split('-').join(' ');
    let hit = false;
    for (let waited = 0; !hit && waited < 10_000; waited += 100) {
      hit = (await crawl.search(words, { limit: 50 })).hits.some((h) => h.url === article);
      if (!hit) await sleep(100);
    }
    assert.ok(hit, `"${words}" did not find ${article} while the crawl was running`);
    assert.equal(crawl.status().state, 'paused');
    crawl.resume();
    await crawl.done;
  });

  it('stop ends the crawl cleanly; status, queues and hosts describe it meanwhile', async () => {
    const profile = validateProfile(testProfileJson('stopped', web.seeds, path.join(tmp, 'stopped'), { workers: 2 }), 'stopped');
    const crawl = await Crawl.start(profile, { log: captureIo().stderr, quiet: true });
    let captures = 0;
    crawl.events.on('capture', () => captures++);
    await until(() => captures >= 5, '5 captures');
    const status = crawl.status();
    assert.equal(status.job, 'stopped');
    assert.equal(status.state, 'running');
    assert.ok(status.uris >= 5 && status.queued > 0);
    const queues = crawl.queues({ limit: 1 });
    assert.equal(queues.length, 1);
    assert.deepEqual(crawl.queues({ after: queues[0]!.key }).map((q) => q.key), crawl.queues().slice(1).map((q) => q.key));
    assert.ok(crawl.hosts().some((h) => h.fetched > 0));
    assert.equal(crawl.stop(), 'stopping');
    const summary = await crawl.done;
    assert.equal(summary.status, 'ABORTED');
    assert.equal(crawl.status().state, 'finished');
    assert.ok((await readdir(path.join(profile.output.dir, 'warcs'))).every((n) => n.endsWith('.warc.gz')));
  });
});
