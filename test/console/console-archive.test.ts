/**
 * A finished job browsed through the console (archive serve's catalog): the
 * job list, its status from the reports, its captures paged from the
 * capture journal (every page, at every depth, in journal order), one
 * capture's details (outlinks as its WARC metadata record lists them,
 * inlinks from the index built over every metadata record, PageRank once
 * analysed), pywb's CDX API against a brute-force reading of index.cdxj —
 * and the same answers from the journal while no index exists — search
 * without an engine (503), and the replay archive's byte ranges.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyzeMain } from '../../src/cli/analyze-command.js';
import { ConsoleServer } from '../../src/console/console-server.js';
import { JobCatalog } from '../../src/console/job-catalog.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { parseCdxjLine } from '../../src/index/cdxj.js';
import type { JournaledCapture } from '../../src/job/capture-journal.js';
import { captureJournalPath, jobIndexPath } from '../../src/job/job-dir.js';
import { surt } from '../../src/url/surt.js';
import { captureIo } from '../helpers/capture.js';
import { readWarcDir, type ReadRecord } from '../helpers/warc-read.js';
import { crawlJob } from '../wacz/crawl-job.js';
import { ConsoleClient, until } from './console-harness.js';

let tmp: string;
let dir: string;
let wacz: string;
let server: ConsoleServer;
let client: ConsoleClient;
let journal: JournaledCapture[];
let records: ReadRecord[];
let indexLines: string[];

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-console-archive-'));
  const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 75, port: 0 });
  try {
    const crawled = await crawlJob(web, path.join(tmp, 'jobs'), 'site');
    dir = crawled.dir;
    wacz = crawled.job.wacz;
  } finally {
    await web.close();
  }
  journal = (await readFile(captureJournalPath(dir), 'utf8')).split('\n').filter((l) => l.startsWith('{"url"')).map((l) => JSON.parse(l) as JournaledCapture);
  records = await readWarcDir(path.join(dir, 'warcs'));
  indexLines = (await readFile(jobIndexPath(dir), 'utf8')).split('\n').filter((l) => l !== '');
  server = await ConsoleServer.start({ catalog: new JobCatalog({ root: path.join(tmp, 'jobs') }), port: 0 });
  client = new ConsoleClient(server.origin, server.token);
});

after(async () => {
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
});

async function json<T>(p: string): Promise<T> {
  const answer = await client.get(p);
  assert.equal(answer.status, 200, `${p}: ${answer.text}`);
  return answer.json as T;
}

/** Every outlink the WARC metadata records list: source → links. */
function metadataOutlinks(): Map<string, Array<{ url: string; hop: string }>> {
  const out = new Map<string, Array<{ url: string; hop: string }>>();
  for (const r of records.filter((r) => r.type === 'metadata')) {
    const links = r.payload.toString('utf8').split('\r\n').filter((l) => l.startsWith('outlink: ')).map((l) => {
      const [url, hop] = l.slice(9).split(' ');
      return { url: url!, hop: hop! };
    });
    out.set(r.url, links);
  }
  return out;
}

describe('a finished job in the console', () => {
  it('is listed with its state, pages, times and WACZ, and its status comes from the reports', async () => {
    const jobs = await json<Array<Record<string, unknown>>>('/api/jobs');
    assert.equal(jobs.length, 1);
    const report = JSON.parse(await readFile(path.join(dir, 'reports', 'crawl-report.json'), 'utf8')) as { uris: number; pages: number; status: string };
    assert.equal(jobs[0]!['name'], 'site');
    assert.equal(jobs[0]!['state'], 'finished');
    assert.equal(jobs[0]!['pages'], report.pages);
    assert.equal(jobs[0]!['wacz'], path.basename(wacz));
    for (const k of ['started', 'ended']) assert.match(String(jobs[0]![k]), /^\d{4}-\d\d-\d\dT.*Z$/);
    const status = await json<Record<string, unknown>>('/api/crawl?job=site');
    assert.equal(status['state'], 'finished');
    assert.equal(status['endReason'], report.status);
    assert.equal(status['uris'], report.uris);
    const hosts = await json<Array<{ fetched: number }>>('/api/hosts?job=site');
    assert.equal(hosts.reduce((n, h) => n + h.fetched, 0), report.uris);
    assert.equal((await client.get('/api/crawl?job=nope')).status, 404);
    assert.equal((await client.get('/api/crawl')).status, 400, 'serve needs the job named');
  });

  it('pages through every capture, oldest or newest first, all or HTML pages only', async () => {
    type Page = { total: number; rows: Array<{ url: string; status: number; mime: string; size: number | null; page: boolean; timestamp: string }> };
    for (const pagesOnly of [false, true]) {
      const expected = journal.filter((c) => !pagesOnly || c.page);
      const seen: string[] = [];
      for (let offset = 0; ; offset += 7) {
        const page = await json<Page>(`/api/captures?job=site&order=oldest&limit=7&offset=${offset}&pages=${pagesOnly ? 1 : 0}`);
        assert.equal(page.total, expected.length);
        seen.push(...page.rows.map((r) => `${r.url} ${r.status}`));
        if (page.rows.length < 7) break;
      }
      assert.deepEqual(seen, expected.map((c) => `${c.url} ${c.status}`));
      assert.ok(expected.length > 130, 'deep enough to pass a few marks');
      const newest = await json<Page>(`/api/captures?job=site&limit=5&offset=130&pages=${pagesOnly ? 1 : 0}`);
      assert.deepEqual(newest.rows.map((r) => r.url), expected.slice(-135, -130).reverse().map((c) => c.url));
    }
    const first = (await json<Page>('/api/captures?job=site&order=oldest&limit=1')).rows[0]!;
    assert.equal(first.size, journal[0]!.size);
    assert.equal(first.timestamp, new Date(journal[0]!.date).toISOString());
    assert.equal((await client.get('/api/captures?job=site&limit=0')).status, 400);
  });

  it("tells a capture's details: outlinks from its metadata record, inlinks from every other, PageRank once analysed", async () => {
    const outlinks = metadataOutlinks();
    const inlinkCount = new Map<string, Set<string>>();
    for (const [source, links] of outlinks) for (const l of links) inlinkCount.set(l.url, (inlinkCount.get(l.url) ?? new Set()).add(`${l.hop} ${source}`));
    // A page many pages link to.
    const target = journal.filter((c) => c.page && c.status === 200).map((c) => c.url).sort((a, b) => (inlinkCount.get(b)?.size ?? 0) - (inlinkCount.get(a)?.size ?? 0))[0]!;
    type Details = { url: string; status: number; mime: string; size: number; digest: string; timestamp: string; outlinks: Array<{ url: string; hop: string }>; outlinkCount: number; inlinks: Array<{ url: string; hop: string }> | null; inlinkCount: number | null; inlinksState: string; pagerank: { rank: number; score: number } | null };
    const q = `/api/page?job=site&url=${encodeURIComponent(target)}`;
    await until(async () => (await json<Details>(q)).inlinksState === 'ready', 'the inlinks index');
    const details = await json<Details>(q);
    const response = records.find((r) => r.type === 'response' && r.url === target)!;
    assert.equal(details.status, response.status);
    assert.equal(details.mime, 'text/html');
    assert.equal(details.size, response.payload.length);
    assert.equal(details.digest, response.warc.get('warc-payload-digest'));
    // The index keeps the second.
    assert.equal(details.timestamp, new Date(response.warc.get('warc-date')!).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    assert.deepEqual(details.outlinks.map((l) => `${l.hop} ${l.url}`), outlinks.get(target)!.map((l) => `${l.hop} ${l.url}`));
    assert.equal(details.outlinkCount, outlinks.get(target)!.length);
    assert.deepEqual(new Set(details.inlinks!.map((l) => `${l.hop} ${l.url}`)), inlinkCount.get(target));
    assert.ok(details.inlinkCount! > 1);
    assert.equal(details.pagerank, null, 'not analysed yet');

    assert.equal(await analyzeMain([path.join(dir, 'warcs'), '--out', path.join(dir, 'analysis'), '--top', '0'], captureIo()), 0);
    const csv = (await readFile(path.join(dir, 'analysis', 'pagerank.csv'), 'utf8')).split('\n').slice(1).find((l) => l.endsWith(`,${target}`))!;
    const [rank, , score] = csv.split(',');
    assert.deepEqual((await json<Details>(q)).pagerank, { rank: Number(rank), score: Number(score) });
    assert.equal((await client.get('/api/page?job=site&url=http://nowhere.example/')).status, 404);
  });

  it("answers pywb's CDX API as a reading of index.cdxj does, also from the journal while there is no index", async () => {
    const entries = indexLines.map((line) => ({ line, e: parseCdxjLine(line) }));
    const home = journal.find((c) => c.seed)!.url;
    const origin = new URL(home).origin;
    const hostKey = surt(`${origin}/`);
    const expectations: Array<[string, string[]]> = [
      [`url=${encodeURIComponent(home)}`, entries.filter((x) => x.e.url === home).map((x) => x.line)],
      [`url=${encodeURIComponent(`${origin}/s/1/`)}&matchType=prefix`, entries.filter((x) => x.e.key.startsWith(surt(`${origin}/s/1/`))).map((x) => x.line)],
      [`url=${encodeURIComponent(`${origin}/s/1/*`)}&limit=3`, entries.filter((x) => x.e.key.startsWith(surt(`${origin}/s/1/`))).slice(0, 3).map((x) => x.line)],
      [`url=${encodeURIComponent(new URL(home).host)}&matchType=host&filter=${encodeURIComponent('=mime:image/gif')}`, entries.filter((x) => x.e.key.startsWith(hostKey) && x.e.mime === 'image/gif').map((x) => x.line)],
      [`url=${encodeURIComponent(`*.${new URL(home).hostname}`)}&filter=${encodeURIComponent('!=status:200')}`, entries.filter((x) => x.e.key.startsWith(hostKey.replace(/:\d+\)\/$/, '')) && x.e.status !== 200).map((x) => x.line)],
      [`url=${encodeURIComponent(`${origin}/`)}&matchType=host&filter=${encodeURIComponent('~url:.*photo-1')}&sort=reverse`, entries.filter((x) => x.e.key.startsWith(hostKey) && /^.*photo-1/.test(x.e.url)).map((x) => x.line).reverse()],
      [`url=${encodeURIComponent(`${origin}/`)}&matchType=host&from=2000&to=2001`, []],
    ];
    const run = async () => {
      for (const [query, expected] of expectations) {
        const answer = await client.get(`/cdx?job=site&${query}`);
        assert.equal(answer.status, 200, query);
        assert.deepEqual(answer.text.split('\n').filter((l) => l !== ''), expected, query);
      }
    };
    assert.ok(expectations.every(([, lines], i) => i === expectations.length - 1 || lines.length > 0), 'every query but the last matches something');
    await run();
    await handWritten(home);
    const asJson = await client.get(`/cdx?job=site&url=${encodeURIComponent(home)}&output=json`);
    const objects = asJson.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    assert.deepEqual(objects.map((o) => [o['urlkey'], o['timestamp'], o['url'], o['status'], o['filename']]), entries.filter((x) => x.e.url === home).map((x) => [x.e.key, x.e.timestamp, x.e.url, String(x.e.status), x.e.filename]));
    const fields = await client.get(`/cdx?job=site&url=${encodeURIComponent(home)}&output=json&fl=url,status`);
    assert.deepEqual(Object.keys(JSON.parse(fields.text.split('\n')[0]!) as object), ['url', 'status']);
    assert.equal((await client.get('/cdx?job=site')).status, 400);
    assert.equal((await client.get('/cdx?job=site&url=a&matchType=fuzzy')).status, 400);
    assert.equal((await client.get('/cdx?job=site&url=a&filter=~url:(')).status, 400);
    // While a crawl writes a job there is no index yet: the journal answers the same.
    await rename(jobIndexPath(dir), `${jobIndexPath(dir)}.aside`);
    try {
      await run();
    } finally {
      await rename(`${jobIndexPath(dir)}.aside`, jobIndexPath(dir));
    }
  });

  /**
   * Keys and lines written out by hand, not by the project's surt() nor read from its index, as
   * pywb writes them for the fixture's first host, http://127.0.0.2:PORT/: the scheme dropped, an
   * IP's octets reversed like a name's labels, the port kept after a colon, ')' before the path,
   * query arguments sorted; a CDXJ line is the key, a 14-digit timestamp and a JSON block whose
   * fields come in pywb's order.
   */
  async function handWritten(seed: string): Promise<void> {
    const port = new URL(seed).port;
    const home = `http://127.0.0.2:${port}/`;
    assert.equal(surt(`http://127.0.0.2:${port}/s/1/?b=2&a=1`), `2,0,0,127:${port})/s/1/?a=1&b=2`);
    assert.equal(surt('https://WWW.Example.com:443/Path/?x=1#frag'), 'com,example)/path/?x=1');
    const first = (await client.get(`/cdx?job=site&url=${encodeURIComponent(home)}`)).text.split('\n')[0]!;
    const json = '\\{"url":"http://127\\.0\\.0\\.2:' + port + '/","mime":"text/html","status":"200","digest":"sha1:[A-Z2-7]{32}","length":"\\d+","offset":"\\d+","filename":"[^"]+\\.warc\\.gz"\\}';
    assert.match(first, new RegExp(`^2,0,0,127:${port}\\)/ 20\\d{12} ${json}$`));
    const prefix = (await client.get(`/cdx?job=site&url=${encodeURIComponent(`http://127.0.0.2:${port}/s/1/`)}&matchType=prefix`)).text.split('\n').filter((l) => l !== '');
    assert.ok(prefix.length > 0 && prefix.every((l) => l.startsWith(`2,0,0,127:${port})/s/1/`)), prefix.join('\n'));
    const asJson = JSON.parse((await client.get(`/cdx?job=site&url=${encodeURIComponent(home)}&output=json&fl=urlkey,url,status`)).text.split('\n')[0]!) as object;
    assert.deepEqual(asJson, { urlkey: `2,0,0,127:${port})/`, url: home, status: '200' });
    const robots = (await client.get(`/cdx?job=site&url=${encodeURIComponent(`http://127.0.0.2:${port}/robots.txt`)}`)).text.split('\n')[0]!;
    assert.match(robots, new RegExp(`^2,0,0,127:${port}\\)/robots\\.txt 20\\d{12} \\{"url":"http://127\\.0\\.0\\.2:${port}/robots\\.txt","mime":"text/plain","status":"200",`));
  }

  it('answers search with 503 when no engine is wired in, and checks its parameters first', async () => {
    assert.equal((await client.get('/api/search?job=site')).status, 400);
    const answer = await client.get('/api/search?job=site&q=lanterns');
    assert.equal(answer.status, 503);
    assert.equal((answer.json as { error: { code: string } }).error.code, 'ARCHIVER_CONSOLE_NO_SEARCH');
  });

  it('serves the job WACZ to the embedded replay by byte ranges', async () => {
    const replay = await json<{ source: string; kind: string }>('/api/replay?job=site');
    assert.equal(replay.kind, 'wacz');
    assert.equal(replay.source, `/replay/archive/site/${path.basename(wacz)}`);
    const bytes = await readFile(wacz);
    const ranged = await fetch(`${server.origin}${replay.source}`, { headers: { Authorization: `Bearer ${server.token}`, Range: 'bytes=100-199' } });
    assert.equal(ranged.status, 206);
    assert.deepEqual(Buffer.from(await ranged.arrayBuffer()), bytes.subarray(100, 200));
    for (const asset of ['/replay/ui.js', '/replay/sw.js', '/embed/replay.html', '/embed/replay.js']) assert.equal((await client.get(asset)).status, 200, asset);
  });
});
