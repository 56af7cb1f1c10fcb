/**
 * Per-host waits (issue 12). A host whose robots.txt answered 500 kept a
 * finished crawl alive for hours: each of its queued URIs waited out
 * retryDelayMs on its own, maxRetries times. Now the HOST waits, once per
 * retry however many URIs it has, and is closed when its retries are spent:
 * its URIs are logged once each (-61 robotsUnavailable, or the transport
 * failure) and the crawl ends by itself. Checked from the server's side.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { describeWaitingHosts } from '../../src/crawl/progress.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { FailingHostsWeb } from '../fixtures/failing-hosts-web.js';

let tmp: string;
let web: FailingHostsWeb | null = null;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-hostfail-'));
});
afterEach(async () => {
  await web?.close();
  web = null;
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function profile(name: string, w: FailingHostsWeb, extra: Record<string, unknown> = {}) {
  const hosts = [w.healthy, w.flaky, w.dead].map(FailingHostsWeb.hostOf);
  return validateProfile(testProfileJson(name, [`${w.healthy}/`], path.join(tmp, name), { scope: { hosts }, workers: 6, ...extra }), name);
}

interface Line {
  status: number;
  url: string;
  annotations: string[];
}

async function crawlLog(dir: string): Promise<Line[]> {
  const text = await readFile(path.join(dir, 'logs', 'crawl.log'), 'utf8');
  return text.trim().split('\n').map((l) => {
    const f = l.trim().split(/\s+/);
    return { status: Number(f[1]), url: f[3]!, annotations: f[11] === '-' ? [] : f[11]!.split(',') };
  });
}

describe('a host whose robots.txt fails', () => {
  it('500 forever: the crawl ends, each of its URIs is logged -61 once, and nothing but robots.txt is asked of it', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 40, deadPages: 0, robotsFailures: Infinity });
    const p = profile('robots500', web, { robots: { unavailable: { retries: 2, retryDelayMs: 40 } } });
    const summary = await runCrawl({ profile: p, stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    assert.deepEqual(web.asked(web.flaky), ['/robots.txt', '/robots.txt', '/robots.txt'], 'robots.txt fetched 1 + retries times, nothing else');
    const lines = await crawlLog(p.output.dir);
    const flakyPages = lines.filter((l) => l.url.startsWith(web!.flaky) && !l.url.endsWith('/robots.txt'));
    assert.equal(flakyPages.length, 80, 'every page of the host logged');
    assert.equal(new Set(flakyPages.map((l) => l.url)).size, 80, 'each once');
    for (const l of flakyPages) {
      assert.equal(l.status, -61, l.url);
      assert.deepEqual(l.annotations, ['robotsUnavailable'], l.url);
    }
    assert.equal(summary.queue.waiting, 0, 'nothing left queued');
    assert.deepEqual(summary.closedHosts.map((h) => [h.host, h.status, h.cause]), [[FailingHostsWeb.hostOf(web.flaky), -61, 'robots.txt 500']]);
    const hostsReport = await readFile(path.join(p.output.dir, 'reports', 'hosts-report.txt'), 'utf8');
    assert.match(hostsReport, new RegExp(`${FailingHostsWeb.hostOf(web.flaky).replace('.', '\\.')} .* -61:robots\\.txt_500`));
    // The healthy host was crawled whole meanwhile.
    assert.equal(web.asked(web.healthy).filter((p) => p.startsWith('/page')).length, 5);
  });

  it('500 twice, then rules: the host is crawled afterwards and its rules are obeyed', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 10, deadPages: 0, robotsFailures: 2, robotsText: 'User-agent: *\nDisallow: /private/\n' });
    const p = profile('robots500twice', web, { robots: { unavailable: { retries: 2, retryDelayMs: 30 } } });
    const summary = await runCrawl({ profile: p, stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    const asked = web.asked(web.flaky);
    assert.deepEqual(asked.slice(0, 3), ['/robots.txt', '/robots.txt', '/robots.txt']);
    assert.equal(asked.filter((a) => a.startsWith('/page')).length, 10, 'its pages were fetched');
    assert.deepEqual(asked.filter((a) => a.startsWith('/private/')), [], 'its rules were obeyed');
    const lines = await crawlLog(p.output.dir);
    assert.equal(lines.filter((l) => l.status === -9998).length, 10, 'the disallowed pages are logged -9998');
    assert.deepEqual(summary.closedHosts, []);
  });

  it('under `allow`, a host whose robots.txt stays unavailable is crawled once the re-fetches are spent', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 10, deadPages: 0, robotsFailures: Infinity });
    const p = profile('robotsAllow', web, { robots: { unavailable: { policy: 'allow', retries: 1, retryDelayMs: 30 } } });
    await runCrawl({ profile: p, stderr: captureIo().stderr, quiet: true });
    const asked = web.asked(web.flaky);
    assert.deepEqual(asked.filter((a) => a === '/robots.txt').length, 2);
    assert.equal(asked.filter((a) => a.startsWith('/page')).length, 10);
    assert.equal(asked.filter((a) => a.startsWith('/private/')).length, 10, 'nothing is disallowed');
  });

  it('under elfHash, where one queue holds both hosts, the held host steps aside: the other is crawled during its wait', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 20, deadPages: 0, robotsFailures: Infinity });
    const p = profile('robotsElf', web, {
      frontier: { queueAssignment: 'elfHash', elfHashBuckets: 1 },
      robots: { unavailable: { retries: 1, retryDelayMs: 1500 } },
    });
    const summary = await runCrawl({ profile: p, stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    const flakyRobots = web.arrivals.map((a, i) => [a, i] as const).filter(([a]) => a === `${web!.flaky}/robots.txt`).map(([, i]) => i);
    assert.equal(flakyRobots.length, 2);
    const healthyPages = web.arrivals.map((a, i) => [a, i] as const).filter(([a]) => a.startsWith(`${web!.healthy}/page`)).map(([, i]) => i);
    assert.equal(healthyPages.length, 5);
    // Every healthy page was asked for between the two robots.txt fetches: nothing waited for the held host.
    assert.ok(healthyPages.every((i) => i > flakyRobots[0]! && i < flakyRobots[1]!), `arrivals: ${web.arrivals.join(' ')}`);
    const flakyLines = (await crawlLog(p.output.dir)).filter((l) => l.url.startsWith(web!.flaky) && !l.url.endsWith('/robots.txt'));
    assert.equal(flakyLines.length, 40);
    assert.ok(flakyLines.every((l) => l.status === -61));
  });

  it('while it waits, status() and the progress line say which host, why, and the retry', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 3, deadPages: 0, robotsFailures: Infinity });
    const p = profile('robotsWaiting', web, { robots: { unavailable: { retries: 1, retryDelayMs: 1500 } } });
    const crawl = await Crawl.start(p, { log: captureIo().stderr, quiet: true });
    const waitingEvents: string[] = [];
    crawl.events.on('hostWaiting', (e) => waitingEvents.push(`${e.host} ${e.reason} ${e.retry}/${e.of}`));
    let seen = '';
    for (let i = 0; i < 200 && seen === ''; i++) {
      seen = describeWaitingHosts(crawl.status());
      if (seen === '') await new Promise((r) => setTimeout(r, 10));
    }
    const host = FailingHostsWeb.hostOf(web.flaky);
    assert.match(seen, new RegExp(`^1 host \\(${host.replace(/\./g, '\\.')} robots\\.txt 500, retry 1/1 at \\d\\d:\\d\\d:\\d\\d\\)$`));
    assert.equal(crawl.hosts().find((h) => h.host === host)?.waiting?.reason, 'robots.txt 500');
    await crawl.done;
    assert.deepEqual(waitingEvents, [`${host} robots.txt 500 1/1`]);
    assert.equal(crawl.status().state, 'finished');
  });
});

describe('a host that refuses every connection', () => {
  it('with 300 queued URIs: the host waits maxRetries times, not per URI, then every URI is logged -2 once', async () => {
    web = await FailingHostsWeb.start({ flakyPages: 0, deadPages: 300, robotsFailures: 0 });
    // robots ignored, and not read for sitemaps either: the dead host's URIs themselves meet the refusals.
    const hosts = [web.healthy, web.flaky, web.dead].map(FailingHostsWeb.hostOf);
    const p = profile('deadHost', web, { robots: { policy: 'ignore' }, scope: { hosts, sitemaps: 'off' }, limits: { fetchTimeoutMs: 2000, maxRetries: 3, retryDelayMs: 200 } });
    const summary = await runCrawl({ profile: p, stderr: captureIo().stderr, quiet: true });
    assert.equal(summary.status, 'FINISHED');
    const dead = (await crawlLog(p.output.dir)).filter((l) => l.url.startsWith(web!.dead));
    assert.equal(dead.length, 300);
    assert.equal(new Set(dead.map((l) => l.url)).size, 300, 'each URI once');
    assert.ok(dead.every((l) => l.status === -2), 'all logged with the connect failure');
    // Only URIs actually tried carry a try count: one connection per host, one URI per round.
    const tried = dead.filter((l) => l.annotations.some((a) => /^\d+t$/.test(a)));
    assert.ok(tried.length <= 4, `${tried.length} URIs were tried; a host-level wait tries one per round`);
    assert.ok(dead.filter((l) => l.annotations.includes('hostUnreachable')).length >= 296);
    assert.ok(summary.closedHosts.some((h) => h.status === -2 && h.cause === 'connection refused'));
    assert.equal(summary.queue.waiting, 0);
  });
});
