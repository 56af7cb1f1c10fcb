/**
 * End-to-end crawls of the multi-host fixture web on loopback, checked from
 * both sides: the WARCs read back with warcio's parser (every reachable URL
 * archived with exactly the bytes the server sent, digests right, request
 * records adjacent) and the server's own request log (robots-disallowed and
 * nofollow-only URLs never requested, per-host connections and delays kept).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { validateProfile } from '../../src/config/load-profile.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { FixtureWeb, type RequestLogEntry } from '../../src/demo/fixture-web.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readWarcDir, type ReadRecord } from '../helpers/warc-read.js';
import { sha1b32 } from '../writer/helpers.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-e2e-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function profileFor(web: FixtureWeb, name: string, extra: Record<string, unknown> = {}) {
  return validateProfile(testProfileJson(name, web.seeds, path.join(tmp, name), { workers: 6, ...extra }), name);
}

async function crawl(web: FixtureWeb, name: string, extra: Record<string, unknown> = {}) {
  const profile = profileFor(web, name, extra);
  const io = captureIo();
  const summary = await runCrawl({ profile, stderr: io.stderr, quiet: true });
  const records = await readWarcDir(path.join(profile.output.dir, 'warcs'));
  const log = await readFile(path.join(profile.output.dir, 'logs', 'crawl.log'), 'utf8');
  return { summary, records, log, dir: profile.output.dir };
}

function captured(records: ReadRecord[]): Map<string, ReadRecord> {
  const map = new Map<string, ReadRecord>();
  for (const r of records) if (r.type === 'response' || r.type === 'revisit') map.set(r.url, r);
  return map;
}

/**
 * System V ELF hash (as the ABI spells it: h = (h << 4) + c; fold the top
 * nibble into bits 4-7 and clear it), in plain arithmetic on numbers below
 * 2^32, then the bucket: written here from the spec, not imported.
 */
function elfBucket(s: string, buckets: number): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = (h * 16 + s.charCodeAt(i)) % 2 ** 32;
    const top = Math.floor(h / 2 ** 28);
    h = (h % 2 ** 28) ^ (top * 16);
  }
  return h % buckets;
}

function requestedUrls(requests: RequestLogEntry[]): Set<string> {
  return new Set(requests.map((r) => `http://${r.host}${r.path}`));
}

function byHost(requests: RequestLogEntry[]): Map<string, RequestLogEntry[]> {
  const m = new Map<string, RequestLogEntry[]>();
  for (const r of requests) m.set(r.host, [...(m.get(r.host) ?? []), r]);
  for (const list of m.values()) list.sort((a, b) => a.startMs - b.startMs);
  return m;
}

describe('a crawl of the fixture web (hostname queues, delays 0)', () => {
  let web: FixtureWeb;
  let result: Awaited<ReturnType<typeof crawl>>;
  before(async () => {
    web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 6, port: 0 });
    result = await crawl(web, 'full');
  });
  after(async () => {
    await web.close();
  });

  test('archives every reachable URL, and nothing else', () => {
    const expected = web.expectedUrls();
    const got = captured(result.records);
    const missing = expected.reachable.filter((u) => !got.has(u));
    assert.deepEqual(missing, [], 'missing captures');
    const extra = [...got.keys()].filter((u) => !expected.reachable.includes(u));
    assert.deepEqual(extra, [], 'unexpected captures');
    assert.equal(result.summary.status, 'FINISHED');
  });

  test('stores exactly the bytes the server sent, with a correct payload digest', () => {
    for (const r of result.records) {
      if (r.type !== 'response') continue;
      const sent = web.bodyFor(r.url);
      assert.ok(sent, `fixture knows ${r.url}`);
      assert.ok(r.payload.equals(sent), `payload of ${r.url} (${r.payload.length} vs ${sent.length} bytes)`);
      assert.equal(r.warc.get('warc-payload-digest'), sha1b32(sent), r.url);
      assert.equal(r.httpHeaders.get('content-length'), String(sent.length), `Content-Length of ${r.url}`);
      assert.equal(r.httpHeaders.has('transfer-encoding'), false, `Transfer-Encoding of ${r.url} must be renamed`);
    }
  });

  test('each response is followed by its request and a metadata record', () => {
    const rs = result.records;
    assert.equal(rs[0]?.type, 'warcinfo');
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i]!;
      if (r.type !== 'response' && r.type !== 'revisit') continue;
      const req = rs[i + 1];
      assert.equal(req?.type, 'request', `record after ${r.url}`);
      assert.equal(req?.url, r.url);
      assert.equal(req?.warc.get('warc-concurrent-to'), r.warc.get('warc-record-id'));
      assert.equal(rs[i + 2]?.type, 'metadata');
    }
  });

  test('gzip pages are stored compressed, chunked ones de-chunked', () => {
    const responses = result.records.filter((r) => r.type === 'response');
    const gz = responses.filter((r) => r.httpHeaders.get('content-encoding') === 'gzip');
    assert.ok(gz.length > 0, 'some gzip responses');
    for (const r of gz) assert.deepEqual([...r.payload.subarray(0, 2)], [0x1f, 0x8b], r.url);
    const chunked = responses.filter((r) => r.httpHeaders.has('x-archive-orig-transfer-encoding'));
    assert.ok(chunked.length > 0, 'some chunked responses');
  });

  test('redirect hops and the 404 are archived as captured responses', () => {
    const statuses = new Set(result.records.filter((r) => r.type === 'response').map((r) => r.status));
    for (const s of [200, 301, 302, 404]) assert.ok(statuses.has(s), `status ${s}`);
    for (const r of result.records) {
      if (r.type === 'response' && (r.status === 301 || r.status === 302)) assert.ok(r.httpHeaders.get('location'), r.url);
    }
  });

  test('robots-disallowed and nofollow-only URLs are never requested, and -9998 is logged', () => {
    const expected = web.expectedUrls();
    const asked = requestedUrls(web.requests);
    for (const u of [...expected.disallowed, ...expected.nofollowOnly]) assert.equal(asked.has(u), false, `requested ${u}`);
    assert.ok(expected.disallowed.length > 0);
    assert.match(result.log, /^\S+ -9998 +- http:\S+\/private\//m);
  });

  test('robots.txt is fetched once per host, before anything else of that host', () => {
    for (const [host, list] of byHost(web.requests)) {
      assert.equal(list[0]?.path, '/robots.txt', host);
      assert.equal(list.filter((r) => r.path === '/robots.txt').length, 1, host);
    }
  });

  test('one connection per host: no request starts while another of its host is in flight', () => {
    for (const r of web.requests) assert.ok(r.inFlightAtStart <= 1, `${r.host}${r.path} started with ${r.inFlightAtStart} in flight`);
  });

  test('crawl.log has one Heritrix line per captured URI and reports are written', async () => {
    const lines = result.log.trim().split('\n');
    const ok = lines.filter((l) => /^\S+ +\d{3} /.test(l));
    assert.equal(ok.length, captured(result.records).size);
    const report = JSON.parse(await readFile(path.join(result.dir, 'reports', 'crawl-report.json'), 'utf8')) as { uris: number; pages: number };
    assert.equal(report.uris, captured(result.records).size);
    const htmlPages = [...captured(result.records).values()].filter((r) => r.status === 200 && (r.httpHeaders.get('content-type') ?? '').startsWith('text/html'));
    assert.equal(report.pages, htmlPages.length);
  });
});

describe('politeness measured by the server', () => {
  test('gaps between requests to a host are at least the computed delay, Crawl-delay raises it', async () => {
    // Host 0's robots.txt says Crawl-delay: 1; respectCrawlDelayUpToSeconds caps it at 0.25 s.
    const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 1, port: 0, crawlDelaySec: 1 });
    try {
      await crawl(web, 'polite', {
        politeness: { delayFactor: 0, minDelayMs: 60, maxDelayMs: 60, respectCrawlDelayUpToSeconds: 0.25 },
        limits: { maxPages: 24, fetchTimeoutMs: 5000 },
      });
      const hosts = byHost(web.requests);
      const first = new URL(web.origins[0]!).host;
      for (const [host, list] of hosts) {
        const want = host === first ? 250 : 60;
        for (let i = 1; i < list.length; i++) {
          const gap = list[i]!.startMs - list[i - 1]!.lastByteMs; // not endMs: its late 'close' on a loaded machine (fixture-web.test)
          // 1 ms of slack for timer rounding between two clocks on one machine.
          assert.ok(gap >= want - 1, `${host}: gap ${gap.toFixed(1)} ms before ${list[i]!.path}, want ≥ ${want}`);
        }
        assert.ok(list.length >= 3, `${host} got several requests`);
      }
    } finally {
      await web.close();
    }
  });

  test('ELF-hash queues spread a host over many queues, two of its fetches at once but never more', async () => {
    // 20 ms per answer, so fetches from two queues of one host overlap on any machine.
    const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 6, port: 0, latencyMs: 20 });
    try {
      const { records, dir, log } = await crawl(web, 'elf', {
        frontier: { queueAssignment: 'elfHash', elfHashBuckets: 16 },
        politeness: { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxConnectionsPerHost: 2 },
        workers: 10,
      });
      for (const r of web.requests) assert.ok(r.inFlightAtStart <= 2, `${r.host}${r.path}: ${r.inFlightAtStart} in flight`);
      for (const host of byHost(web.requests).keys()) {
        assert.ok(web.requests.some((r) => r.host === host && r.inFlightAtStart === 2), `${host} never had two fetches in flight`);
      }
      const got = captured(records);
      assert.deepEqual(web.expectedUrls().reachable.filter((u) => !got.has(u)), []);
      // The queues, from the frontier report, against buckets computed here
      // from the URLs the server saw (robots.txt aside: a prerequisite goes
      // to the queue of the URI that needed it).
      const report = JSON.parse(await readFile(path.join(dir, 'reports', 'frontier-summary-report.json'), 'utf8')) as { queues: Array<{ key: string; finished: number }> };
      const keys = new Set(report.queues.map((q) => q.key));
      assert.equal(keys.size, report.queues.length);
      for (const k of keys) assert.match(k, /^(1[0-5]|[0-9])$/, 'a bucket number below 16');
      for (const [host, list] of byHost(web.requests)) {
        const buckets = new Set(list.filter((r) => r.path !== '/robots.txt').map((r) => String(elfBucket(`http://${r.host}${r.path}`, 16))));
        assert.ok(buckets.size >= 3, `${host}'s URLs fall in ${buckets.size} buckets`);
        for (const b of buckets) assert.ok(keys.has(b), `queue ${b} (a URL of ${host}) in the frontier report: ${[...keys].join(' ')}`);
      }
      // Every URI logged went through a queue, but scope refusals (never queued).
      const queuedLines = log.trim().split('\n').filter((l) => !/ outOfScope$/.test(l));
      assert.equal(report.queues.reduce((n, q) => n + q.finished, 0), queuedLines.length);
    } finally {
      await web.close();
    }
  });
});

describe('robots policies end to end', () => {
  test('ignore fetches what robots.txt disallows, without fetching robots.txt (sitemaps off)', async () => {
    const web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
    try {
      // With scope.sitemaps on (the default), robots.txt is still read for its Sitemap lines (sitemap-crawl.test.ts).
      await crawl(web, 'ignore', { robots: { policy: 'ignore' }, scope: { sitemaps: 'off' } });
      const asked = requestedUrls(web.requests);
      assert.ok(web.expectedUrls().disallowed.some((u) => asked.has(u)), 'a disallowed URL was fetched');
      assert.equal([...asked].some((u) => u.endsWith('/robots.txt')), false);
    } finally {
      await web.close();
    }
  });
});

describe('in-crawl duplicates', () => {
  test('a revisit refers to its original by URI and exact WARC-Date, in WARC/1.0 too', async () => {
    const web = await FixtureWeb.start({ hosts: 3, pagesPerHost: 2, port: 0 });
    try {
      const { records, dir } = await crawl(web, 'revisits10', { output: { dir: path.join(tmp, 'revisits10'), warcVersion: '1.0' } });
      // The version line of every record, read from the raw bytes (warcio's reader accepts either).
      const versions: string[] = [];
      for (const name of (await readdir(path.join(dir, 'warcs'))).filter((n) => n.endsWith('.warc.gz'))) {
        const raw = gunzipSync(await readFile(path.join(dir, 'warcs', name))).toString('latin1');
        versions.push(...(raw.match(/^WARC\/\d\.\d(?=\r\n)/gm) ?? []));
      }
      assert.equal(versions.length, records.length, 'one version line per record read back');
      assert.deepEqual([...new Set(versions)], ['WARC/1.0']);
      const revisits = records.filter((r) => r.type === 'revisit');
      assert.ok(revisits.length > 0, 'the fixture serves identical payloads on several hosts');
      for (const r of revisits) {
        const target = r.warc.get('warc-refers-to-target-uri');
        const original = records.find((o) => o.type === 'response' && o.url === target);
        assert.ok(original, `original of ${r.url}`);
        assert.equal(r.warc.get('warc-refers-to-date'), original.warc.get('warc-date'), r.url);
        assert.equal(r.warc.get('warc-payload-digest'), original.warc.get('warc-payload-digest'));
      }
    } finally {
      await web.close();
    }
  });
});
