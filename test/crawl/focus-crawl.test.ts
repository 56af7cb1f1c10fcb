/**
 * Topic-focused crawling on the labelled topical web (test/helpers/topical-web.ts:
 * six hosts, tea and football in Chinese, astronomy and cooking in English,
 * mostly in-topic links that cross over). With the same page budget, a crawl
 * focused on tea by three training pages harvests far more tea pages than
 * breadth-first — judged by the pages' labels from the server's request log,
 * not by the crawler's scores — while the server sees what it sees of any
 * crawl: one connection per host, the politeness delay between requests,
 * robots.txt first and obeyed. Also: relevance in crawl.log, pages.jsonl
 * and the focus report; restrictHops refusals; the topic learnt from a job
 * directory; a resume that keeps the topic and fetches no training page again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import type { Profile } from '../../src/config/profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../src/crawl/reports.js';
import { harvestOf, type Harvest } from '../helpers/harvest.js';
import type { RequestLogEntry } from '../../src/demo/request-log.js';
import { startTopicalWeb, type StartedTopicalWeb } from '../helpers/topical-web.js';
import { captureIo } from '../helpers/capture.js';
import { crawlLogLines } from '../helpers/crawl-log-lines.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readZip } from '../wacz/zip-read.js';

let tmp: string;
let web: StartedTopicalWeb;
let tea: string[];
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-'));
  web = await startTopicalWeb({ pagesPerHost: 60, firstAddress: 130 });
  tea = [...web.labels].filter(([, label]) => label === 'tea').map(([url]) => url);
});
after(async () => {
  await web.server.close();
  await rm(tmp, { recursive: true, force: true });
});

const TRAINING = (): string[] => tea.slice(0, 3);

function profile(name: string, more: Record<string, unknown> = {}): Profile {
  return validateProfile(testProfileJson(name, web.web.seeds, path.join(tmp, name), more), name, tmp);
}

async function crawl(p: Profile, log = captureIo().stderr, quiet = true): Promise<{ summary: CrawlSummary; requests: RequestLogEntry[] }> {
  web.server.takeRequests();
  const summary = await (await Crawl.start(p, { log, quiet })).done;
  return { summary, requests: web.server.takeRequests() };
}

function harvest(requests: RequestLogEntry[]): Harvest {
  return harvestOf(requests, web.labels, 'tea', web.privateUrls);
}

/** Per host, in the order requests started: robots.txt first, then never two at once, and at least `delayMs` between them. */
function assertPolite(requests: readonly RequestLogEntry[], delayMs: number): void {
  const byHost = new Map<string, RequestLogEntry[]>();
  for (const r of [...requests].sort((a, b) => a.startMs - b.startMs)) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r]);
  for (const [host, rs] of byHost) {
    assert.equal(rs[0]!.path, '/robots.txt', `${host}: robots.txt first`);
    for (let i = 1; i < rs.length; i++) {
      assert.ok(rs[i]!.startMs >= rs[i - 1]!.endMs, `${host}: ${rs[i]!.path} started before ${rs[i - 1]!.path} ended`);
      assert.ok(rs[i]!.startMs - rs[i - 1]!.endMs >= delayMs - 1, `${host}: ${(rs[i]!.startMs - rs[i - 1]!.endMs).toFixed(1)} ms between two requests`);
    }
    for (const r of rs) assert.match(r.userAgent, /^archiver-test\/0\.1 \(\+https:\/\/example\.org\/test\)$/);
  }
  assert.ok(requests.every((r) => r.inFlightAtStart <= 1), 'one connection per host');
}

describe('a focused crawl on the topical web', () => {
  it('with the same page budget, harvests far more of its topic than breadth-first, as politely (workers the limit, then hosts)', async () => {
    for (const setting of [{ workers: 4, delayMs: 0 }, { workers: 12, delayMs: 15 }]) {
      const more = { workers: setting.workers, limits: { maxPages: 100, fetchTimeoutMs: 5000, maxRetries: 1, retryDelayMs: 10 }, politeness: { delayFactor: 0, minDelayMs: setting.delayMs, maxDelayMs: setting.delayMs } };
      const bfs = await crawl(profile(`bfs-${setting.workers}`, more));
      const focused = await crawl(profile(`focused-${setting.workers}`, { ...more, focus: { training: TRAINING() } }));
      assert.equal(bfs.summary.status, 'FINISHED_DOCUMENT_LIMIT');
      assert.equal(focused.summary.status, 'FINISHED_DOCUMENT_LIMIT');
      const b = harvest(bfs.requests);
      const f = harvest(focused.requests);
      assert.ok(b.pages >= 80 && f.pages >= 80, `pages fetched: bfs ${b.pages}, focused ${f.pages}`);
      // Breadth-first harvests about the topic's share of the web (a third); focused crawling most of its budget.
      assert.ok(f.rate >= 0.75 && f.rate >= b.rate + 0.35, `harvest with ${JSON.stringify(setting)}: focused ${f.rate.toFixed(3)}, breadth-first ${b.rate.toFixed(3)}`);
      for (const r of [bfs.requests, focused.requests]) assertPolite(r, setting.delayMs);
      assert.deepEqual(f.disallowedAsked, [], 'robots.txt obeyed');
      // The training pages are the first pages fetched (after robots.txt; their embeds may come between).
      const pages = [...focused.requests].sort((a, b) => a.startMs - b.startMs).filter((r) => web.labels.has(`http://${r.host}${r.path}`));
      assert.deepEqual(new Set(pages.slice(0, 3).map((r) => `http://${r.host}${r.path}`)), new Set(TRAINING()));
    }
  });

  it('logs relevance in crawl.log, pages.jsonl and the focus report; refuses links past restrictHops; still fetches embeds', async () => {
    const p = profile('restricted', { limits: { maxPages: 150 }, focus: { training: TRAINING(), restrictHops: 0, threshold: 0.3 } });
    const { requests } = await crawl(p);
    const lines = await crawlLogLines(p.output.dir);
    const relevanceOf = (annotations: string[]): number | null => {
      const a = annotations.find((x) => x.startsWith('relevance:'));
      return a === undefined ? null : Number(a.slice('relevance:'.length));
    };
    const pageLines = lines.filter((l) => l.status === 200 && web.labels.has(l.url));
    assert.ok(pageLines.length > 50);
    for (const l of pageLines) {
      if (TRAINING().includes(l.url)) assert.ok(l.annotations.includes('focusTraining'), l.url);
      else assert.match(l.annotations.find((a) => a.startsWith('relevance:')) ?? '', /^relevance:[01]\.\d{3}$/, l.url);
    }
    // The crawler's own scores agree with the labels of the articles (a home page is a mix of its host's topics).
    for (const l of pageLines) {
      const r = relevanceOf(l.annotations);
      if (r !== null && web.labels.get(l.url) !== 'portal') assert.equal(r >= 0.3, web.labels.get(l.url) === 'tea', `${l.url} (${web.labels.get(l.url)}) scored ${r}`);
    }
    // restrictHops 0: links are followed from relevant pages (and seeds) only.
    const restricted = lines.filter((l) => l.status === -5000 && l.annotations.includes('focusRestricted'));
    assert.ok(restricted.length > 0, 'some links were not followed');
    const relevanceByUrl = new Map(lines.map((l) => [l.url, relevanceOf(l.annotations)]));
    const log = await readFile(path.join(p.output.dir, 'logs', 'crawl.log'), 'utf8');
    for (const line of log.split('\n').filter((x) => x.includes('focusRestricted'))) {
      const via = line.trim().split(/\s+/)[5]!;
      const r = relevanceByUrl.get(via);
      assert.ok(r !== null && r !== undefined && r < 0.3, `${via} (relevance ${r}) had a link refused`);
    }
    // Transclusion: every host whose pages were archived had its stylesheet fetched, irrelevant pages' hosts included.
    const hostsWithPages = new Set(requests.filter((r) => web.labels.has(`http://${r.host}${r.path}`)).map((r) => r.host));
    const hostsWithCss = new Set(requests.filter((r) => r.path === '/style.css').map((r) => r.host));
    assert.deepEqual(hostsWithCss, hostsWithPages);

    const zip = new Map(readZip(await readFile(path.join(p.output.dir, 'restricted.wacz'))).map((e) => [e.name, e.data]));
    const pages = zip.get('pages/pages.jsonl')!.toString('utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as { url: string; relevance?: number });
    const scored = pages.filter((x) => x.relevance !== undefined);
    assert.ok(scored.length > 50 && scored.every((x) => x.relevance === relevanceByUrl.get(x.url)), 'pages.jsonl carries each page\'s relevance');

    const report = JSON.parse(await readFile(path.join(p.output.dir, 'reports', 'focus-report.json'), 'utf8')) as { pages: number; relevant: number; harvestRate: number; restricted: number; trainingPages: number; curve: unknown[]; top: Array<{ url: string }> };
    assert.equal(report.trainingPages, 3);
    assert.equal(report.pages, pageLines.length - 3);
    assert.equal(report.relevant, pageLines.filter((l) => (relevanceOf(l.annotations) ?? 0) >= 0.3).length);
    assert.equal(report.restricted, restricted.length);
    assert.ok(report.harvestRate > 0.7 && report.curve.length > 5);
    assert.equal(web.labels.get(report.top[0]!.url), 'tea');
    assert.match(await readFile(path.join(p.output.dir, 'reports', 'focus-report.txt'), 'utf8'), /^Harvest rate: 0\.\d{3}$/m);
  });

  it('learns its topic from a job directory, and says on stderr when keywords alone weigh 1 each', async () => {
    const earlier = profile('earlier-tea', { scope: { maxHops: 0 } });
    await (await Crawl.start({ ...earlier, seeds: TRAINING() }, { log: captureIo().stderr, quiet: true })).done;
    const log = captureIo().stderr;
    const p = profile('from-job', { limits: { maxPages: 80 }, focus: { training: ['earlier-tea'], weighting: 'seed' } });
    const { requests } = await crawl(p, log, false);
    assert.match(log.text, /focus: topic learnt \(seed\) from 3 training page\(s\)/);
    assert.ok(harvest(requests).rate >= 0.7, `${harvest(requests).rate}`);

    const kwLog = captureIo().stderr;
    await crawl(profile('keywords', { limits: { maxPages: 20 }, focus: { keywords: ['绿茶', '乌龙茶'] } }), kwLog, false);
    assert.match(kwLog.text, /the topic is given by keywords alone: each of its 2 term\(s\) weighs 1/);
  });

  it('resumes with the topic it learnt: no training page fetched again, still on topic', async () => {
    const first = profile('resumed', { limits: { maxPages: 40 }, focus: { training: TRAINING() } });
    const one = await crawl(first);
    assert.equal(one.summary.status, 'FINISHED_DOCUMENT_LIMIT');
    const log = captureIo().stderr;
    const second = profile('resumed', { limits: { maxPages: 120 }, focus: { training: TRAINING() } });
    const two = await crawl(second, log, false);
    assert.equal(two.summary.status, 'FINISHED_DOCUMENT_LIMIT');
    assert.doesNotMatch(log.text, /topic learnt/, 'the saved topic is used');
    const asked = two.requests.map((r) => `http://${r.host}${r.path}`);
    for (const t of TRAINING()) assert.ok(!asked.includes(t), `${t} fetched again`);
    assert.ok(harvest(two.requests).rate >= 0.75, `resumed harvest ${harvest(two.requests).rate}`);
    const report = JSON.parse(await readFile(path.join(second.output.dir, 'reports', 'focus-report.json'), 'utf8')) as { pages: number };
    assert.ok(report.pages > harvest(two.requests).pages, 'the report covers both runs');

    const changed = captureIo().stderr;
    await crawl(profile('resumed', { limits: { maxPages: 130 }, focus: { training: TRAINING(), weighting: 'seed' } }), changed, false);
    assert.match(changed.text, /focus settings changed since the topic was learnt/);
  });
});
