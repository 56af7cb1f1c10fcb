/**
 * Dedup across crawls (issue 4): the fixture web crawled twice, the second
 * time with `dedup.against` the first job. Every payload the second crawl
 * meets was archived by the first, so its 2xx captures become
 * identical-payload-digest revisits. Checked on the WARC bytes themselves
 * (offsets from the CDXJ, inflated with node:zlib): the block digest covers
 * the block actually written — the HTTP head, nothing else (GNU wget's
 * revisits claim the digest of an empty block) —, the payload digest is the
 * original's, recomputed from the first crawl's record the Refers-To headers
 * name, and WARC-Refers-To-Container names the first crawl's WACZ. The
 * reports count novel and duplicate URLs and bytes, per crawl and per host.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { parseCdxjLine, timestamp14, type CdxjEntry } from '../../src/index/cdxj.js';
import { sha1b32 } from '../writer/helpers.js';
import { crawlJob, recordAt, type RawRecord } from './crawl-job.js';

let tmp: string;
let web: FixtureWeb;
let first: { dir: string; index: CdxjEntry[] };
let second: { dir: string; index: CdxjEntry[] };

async function indexOf(dir: string): Promise<CdxjEntry[]> {
  return (await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8')).split('\n').filter((l) => l !== '').map(parseCdxjLine);
}

function record(dir: string, e: CdxjEntry): Promise<RawRecord> {
  return recordAt(path.join(dir, 'warcs', e.filename), e.offset, e.length);
}

/** The HTTP head and payload of a response/revisit block. */
function splitBlock(block: Buffer): { head: Buffer; payload: Buffer } {
  const end = block.indexOf('\r\n\r\n');
  assert.ok(end > 0, 'block starts with an HTTP head');
  return { head: block.subarray(0, end + 4), payload: block.subarray(end + 4) };
}

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-dedup-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 3, port: 0 });
  const a = await crawlJob(web, tmp, 'first');
  first = { dir: a.dir, index: await indexOf(a.dir) };
  // A second later, so the two crawls' captures never share a 14-digit timestamp.
  await new Promise((r) => setTimeout(r, 1100));
  const b = await crawlJob(web, tmp, 'second', { dedup: { against: [a.dir] } });
  second = { dir: b.dir, index: await indexOf(b.dir) };
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('a second crawl with dedup.against the first', () => {
  test('every 2xx capture with a payload is a revisit of a first-crawl capture, named with its container', async () => {
    const revisits = second.index.filter((e) => e.mime === 'warc/revisit');
    assert.ok(revisits.length > 10, `${revisits.length} revisits`);
    for (const e of second.index) {
      if (e.mime === 'warc/revisit' || e.status === null || e.status < 200 || e.status >= 300) continue;
      const { payload } = splitBlock((await record(second.dir, e)).block);
      assert.equal(payload.length, 0, `${e.url}: a 2xx with a payload was archived in full again`);
    }
    for (const e of revisits) {
      const rec = await record(second.dir, e);
      const h = rec.warcHeaders;
      assert.equal(h.get('warc-refers-to-container'), 'first.wacz', e.url);
      const version = rec.version.slice('WARC/'.length);
      assert.equal(h.get('warc-profile'), `http://netpreserve.org/warc/${version}/revisit/identical-payload-digest`, e.url);
    }
  });

  test('revisit records: block digest over the head written, payload digest and Refers-To of the original', async () => {
    const revisits = second.index.filter((e) => e.mime === 'warc/revisit');
    for (const e of revisits) {
      const rec = await record(second.dir, e);
      const h = rec.warcHeaders;
      // Status line and headers kept; no payload.
      assert.match(rec.block.subarray(0, 12).toString('latin1'), /^HTTP\/1\.[01] 2\d\d$/, e.url);
      const { payload } = splitBlock(rec.block);
      assert.equal(payload.length, 0, `${e.url}: revisit carries no payload`);
      assert.equal(Number(h.get('content-length')), rec.block.length);
      assert.equal(h.get('warc-block-digest'), sha1b32(rec.block), `${e.url}: block digest over the block written`);
      assert.notEqual(h.get('warc-block-digest'), sha1b32(new Uint8Array(0)), 'not the empty block digest');

      const target = h.get('warc-refers-to-target-uri');
      const date = h.get('warc-refers-to-date');
      assert.ok(target && date, `${e.url}: Refers-To headers`);
      const original = first.index.find((o) => o.url === target && o.timestamp === timestamp14(date) && o.mime !== 'warc/revisit');
      assert.ok(original, `${e.url}: the original ${target} @ ${date} is in the first crawl`);
      const orig = await record(first.dir, original);
      assert.equal(orig.warcHeaders.get('warc-type'), 'response');
      assert.equal(orig.warcHeaders.get('warc-date'), date, 'Refers-To-Date is the original WARC-Date');
      const origPayload = splitBlock(orig.block).payload;
      assert.equal(h.get('warc-payload-digest'), sha1b32(origPayload), `${e.url}: payload digest of the original's payload`);
      assert.equal(h.get('warc-payload-digest'), orig.warcHeaders.get('warc-payload-digest'));
      assert.equal(e.digest, h.get('warc-payload-digest'), 'the CDXJ digest is the payload digest');
    }
  });

  test('crawl and hosts reports count novel vs duplicate URLs and bytes', async () => {
    type Report = { novelUrls: number; novelBytes: number; dupUrls: number; dupBytes: number };
    type HostRow = Report & { host: string; urls: number; bytes: number };
    for (const job of [first, second]) {
      const report = JSON.parse(await readFile(path.join(job.dir, 'reports', 'crawl-report.json'), 'utf8')) as Report;
      const hosts = JSON.parse(await readFile(path.join(job.dir, 'reports', 'hosts-report.json'), 'utf8')) as HostRow[];
      const expected = { novelUrls: 0, novelBytes: 0, dupUrls: 0, dupBytes: 0 };
      const byHost = new Map<string, typeof expected>();
      for (const e of job.index) {
        const rec = await record(job.dir, e);
        const revisit = e.mime === 'warc/revisit';
        let bytes = splitBlock(rec.block).payload.length;
        if (revisit) {
          // The bytes a duplicate stands for: the original's payload.
          const target = rec.warcHeaders.get('warc-refers-to-target-uri')!;
          const ts = timestamp14(rec.warcHeaders.get('warc-refers-to-date')!);
          const inFirst = first.index.find((o) => o.url === target && o.timestamp === ts && o.mime !== 'warc/revisit');
          const inJob = job.index.find((o) => o.url === target && o.timestamp === ts && o.mime !== 'warc/revisit');
          const original = inJob ?? inFirst!;
          bytes = splitBlock((await record(inJob ? job.dir : first.dir, original)).block).payload.length;
        }
        const host = new URL(e.url).host;
        const h = byHost.get(host) ?? { novelUrls: 0, novelBytes: 0, dupUrls: 0, dupBytes: 0 };
        byHost.set(host, h);
        for (const t of [expected, h]) {
          if (revisit) {
            t.dupUrls++;
            t.dupBytes += bytes;
          } else {
            t.novelUrls++;
            t.novelBytes += bytes;
          }
        }
      }
      assert.deepEqual({ novelUrls: report.novelUrls, novelBytes: report.novelBytes, dupUrls: report.dupUrls, dupBytes: report.dupBytes }, expected, job.dir);
      for (const row of hosts) {
        const want = byHost.get(row.host) ?? { novelUrls: 0, novelBytes: 0, dupUrls: 0, dupBytes: 0 };
        assert.deepEqual({ novelUrls: row.novelUrls, novelBytes: row.novelBytes, dupUrls: row.dupUrls, dupBytes: row.dupBytes }, want, row.host);
      }
      const text = await readFile(path.join(job.dir, 'reports', 'hosts-report.txt'), 'utf8');
      assert.match(text.split('\n')[0]!, /\[#novel-urls\] \[#novel-bytes\] \[#dup-by-hash-urls\] \[#dup-by-hash-bytes\]/);
    }
    const r2 = JSON.parse(await readFile(path.join(second.dir, 'reports', 'crawl-report.json'), 'utf8')) as Report;
    assert.ok(r2.dupUrls > r2.novelUrls, 'the second crawl is mostly duplicates');
    assert.ok(r2.dupBytes > 0);
  });

  test('the second package lists the revisited pages (with titles from the crawl itself)', async () => {
    const { readZip } = await import('./zip-read.js');
    const zip = new Map(readZip(await readFile(path.join(second.dir, 'second.wacz'))).map((e) => [e.name, e.data]));
    const pages = zip.get('pages/pages.jsonl')!.toString('utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as { url: string; ts: string; title?: string; text?: string });
    const url = `${web.origins[0]}/welcome.html`;
    const welcome = pages.find((p) => p.url === url);
    assert.ok(welcome, 'a revisited page is in the page list');
    // It is a revisit here, and the package holds no WARC of the first crawl,
    // so its title and text can only come from the second crawl's own journal.
    assert.equal(second.index.find((e) => e.url === url)?.mime, 'warc/revisit');
    assert.deepEqual([...zip.keys()].filter((n) => n.startsWith('archive/') && n.includes('first')), []);
    // Expected from the bytes the fixture serves, not from our extractor.
    const html = web.bodyFor(url)!.toString('utf8');
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1];
    const sentence = /<p>([^<]{20,})/.exec(html)?.[1]?.trim().replace(/\s+/g, ' ');
    assert.ok(title && sentence, 'the fixture page has a title and a paragraph');
    assert.equal(welcome.title, title);
    assert.ok(welcome.text?.replace(/\s+/g, ' ').includes(sentence), `text ${JSON.stringify(welcome.text)} has "${sentence}"`);
    const ts = second.index.find((e) => e.url === url)!.timestamp;
    assert.equal(welcome.ts.replace(/\D/g, '').slice(0, 14), ts, 'listed at the second crawl\'s capture time');
  });
});
