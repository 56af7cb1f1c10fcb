/**
 * WACZ packages of a real crawl, unzipped by an independent reader
 * (zip-read.ts) with every CRC and every sha256 in datapackage.json
 * recomputed; the WARCs stored byte for byte; the index identical to the
 * job's CDXJ (plain, or cut into gzip blocks with an idx); pages.jsonl with
 * titles and text.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { waczMain } from '../../src/cli/wacz-command.js';
import { parseCdxjLine } from '../../src/index/cdxj.js';
import { finalizeJob } from '../../src/wacz/finalize-job.js';
import { captureIo } from '../helpers/capture.js';
import { crawlJob } from './crawl-job.js';
import { readZip, type ZipEntry } from './zip-read.js';

let tmp: string;
let web: FixtureWeb;
let dir: string;
let cdxj: string;
let entries: Map<string, ZipEntry>;

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-wacz-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 2, port: 0 });
  const { dir: d, job } = await crawlJob(web, tmp, 'pkg');
  dir = d;
  assert.equal(job.wacz, path.join(dir, 'pkg.wacz'));
  cdxj = await readFile(job.cdxj, 'utf8');
  entries = new Map(readZip(await readFile(job.wacz)).map((e) => [e.name, e]));
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('WACZ of a crawl', () => {
  test('datapackage.json lists every file with its recomputed sha256 and size; its digest file matches', () => {
    const dp = JSON.parse(entries.get('datapackage.json')!.data.toString('utf8')) as {
      profile: string; wacz_version: string; created: string; software: string; mainPageUrl: string; mainPageDate: string;
      resources: Array<{ name: string; path: string; hash: string; bytes: number }>;
    };
    assert.equal(dp.profile, 'data-package');
    assert.equal(dp.wacz_version, '1.1.1');
    assert.equal(dp.software, 'archiver-test');
    assert.ok(!Number.isNaN(Date.parse(dp.created)));
    const listed = dp.resources.map((r) => r.path).sort();
    const inZip = [...entries.keys()].filter((n) => !n.startsWith('datapackage')).sort();
    assert.deepEqual(listed, inZip);
    for (const r of dp.resources) {
      const e = entries.get(r.path)!;
      assert.equal(r.hash, sha256(e.data), r.path);
      assert.equal(r.bytes, e.data.length, r.path);
      assert.equal(r.name, path.basename(r.path));
    }
    const digest = JSON.parse(entries.get('datapackage-digest.json')!.data.toString('utf8')) as { path: string; hash: string };
    assert.deepEqual(digest, { path: 'datapackage.json', hash: sha256(entries.get('datapackage.json')!.data) });
    assert.equal(dp.mainPageUrl, web.seeds[0]);
    assert.ok(!Number.isNaN(Date.parse(dp.mainPageDate)));
  });

  test('archive/ holds the WARCs stored (not deflated), byte for byte', async () => {
    const warcs = (await readdir(path.join(dir, 'warcs'))).filter((n) => n.endsWith('.warc.gz'));
    assert.ok(warcs.length > 0);
    for (const name of warcs) {
      const e = entries.get(`archive/${name}`);
      assert.ok(e, name);
      assert.equal(e.method, 0, `${name} stored`);
      assert.ok(e.data.equals(await readFile(path.join(dir, 'warcs', name))), name);
    }
  });

  test('indexes/index.cdx is the job CDXJ', () => {
    assert.equal(entries.get('indexes/index.cdx')!.data.toString('utf8'), cdxj);
  });

  test('pages.jsonl: header, then every 2xx HTML capture with title and text', () => {
    const [header, ...rest] = entries.get('pages/pages.jsonl')!.data.toString('utf8').trimEnd().split('\n');
    assert.deepEqual(JSON.parse(header!), { format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true });
    const pages = rest.map((l) => JSON.parse(l) as { url: string; ts: string; title?: string; text?: string });
    const all = cdxj.trimEnd().split('\n').map(parseCdxjLine);
    const html = all.filter((e) => e.mime === 'text/html' && e.status === 200);
    const htmlDigests = new Set(html.map((e) => e.digest));
    // Revisits of a page are pages too (identical pages on several hosts are revisits of the first).
    const revisits = all.filter((e) => e.mime === 'warc/revisit' && htmlDigests.has(e.digest));
    assert.ok(revisits.length > 0, 'the fixture has identical pages on several hosts');
    assert.deepEqual(pages.map((p) => p.url).sort(), [...new Set([...html, ...revisits].map((e) => e.url))].sort());
    for (const r of revisits) {
      const original = html.find((e) => e.digest === r.digest)!;
      assert.equal(pages.find((p) => p.url === r.url)?.title, pages.find((p) => p.url === original.url)?.title, r.url);
    }
    const origin = web.origins[0]!;
    const welcome = pages.find((p) => p.url === `${origin}/welcome.html`);
    assert.equal(welcome?.title, 'Welcome to our new home');
    assert.ok((welcome?.text ?? '').length > 40, 'text extracted');
    assert.ok(!/<\w+/.test(welcome!.text!), 'no markup in text');
    for (const p of pages) assert.ok(!Number.isNaN(Date.parse(p.ts)), p.url);
  });
});

describe('large-crawl index layout', () => {
  test('index.cdx.gz (stored, one gzip member per block) + index.idx pointing at each block', async () => {
    const job = await finalizeJob({ jobDir: dir, name: 'blocked', software: 'archiver-test', compressedIndexAboveLines: 0, indexBlockLines: 5 });
    const zip = new Map(readZip(await readFile(job.wacz)).map((e) => [e.name, e]));
    assert.equal(zip.has('indexes/index.cdx'), false);
    const gz = zip.get('indexes/index.cdx.gz')!;
    assert.equal(gz.method, 0);
    const [meta, ...idx] = zip.get('indexes/index.idx')!.data.toString('utf8').trimEnd().split('\n');
    assert.equal(meta, '!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}');
    const all = cdxj.trimEnd().split('\n');
    assert.equal(idx.length, Math.ceil(all.length / 5));
    const rebuilt: string[] = [];
    for (const line of idx) {
      const brace = line.indexOf(' {');
      const block = JSON.parse(line.slice(brace + 1)) as { offset: number; length: number; digest: string; filename: string };
      const member = gz.data.subarray(block.offset, block.offset + block.length);
      assert.equal(block.digest, sha256(member));
      const lines = gunzipSync(member).toString('utf8').trimEnd().split('\n');
      assert.equal(line.slice(0, brace), lines[0]!.split(' ').slice(0, 2).join(' '));
      rebuilt.push(...lines);
    }
    assert.deepEqual(rebuilt, all);
  });

  test('a sort buffer of a few lines (many spilled runs) gives the same index.cdxj and package contents; no work files left', async () => {
    const created = new Date('2026-01-02T03:04:05Z');
    const build = async (sortBufferBytes: number | undefined, above: number) => {
      const job = await finalizeJob({
        jobDir: dir, name: 'spill', software: 'archiver-test', created, compressedIndexAboveLines: above, indexBlockLines: 4,
        ...(sortBufferBytes !== undefined ? { sortBufferBytes } : {}),
      });
      const zip = readZip(await readFile(job.wacz)).map((e) => [e.name, e.data.toString('base64')] as const);
      return { cdxj: await readFile(job.cdxj, 'utf8'), zip, captures: job.captures };
    };
    for (const above of [0, 1_000_000]) {
      const inMemory = await build(undefined, above);
      const spilled = await build(1500, above);
      assert.equal(inMemory.cdxj, cdxj, 'the job CDXJ as the crawl built it');
      assert.equal(spilled.cdxj, cdxj);
      assert.equal(spilled.captures, cdxj.trimEnd().split('\n').length);
      const names = spilled.zip.map(([n]) => n);
      assert.ok(names.includes(above === 0 ? 'indexes/index.cdx.gz' : 'indexes/index.cdx'), `${above}: ${names.join(' ')}`);
      assert.deepEqual(spilled.zip, inMemory.zip, `above ${above}`);
    }
    assert.deepEqual((await readdir(path.join(dir, 'indexes'))).filter((n) => n.startsWith('.') || n.includes('tmp')), []);
  });

  test('a work directory left by a finalize that was killed is cleared by the next one', async () => {
    const stale = path.join(dir, 'indexes', '.finalize-KILLED');
    await mkdir(stale, { recursive: true });
    await writeFile(path.join(stale, 'run-0'), 'half a run\n');
    await finalizeJob({ jobDir: dir, name: 'stale', software: 'archiver-test' });
    assert.deepEqual((await readdir(path.join(dir, 'indexes'))).filter((n) => n.startsWith('.')), []);
  });

  test('archiver wacz <job> rebuilds the package under its existing name', async () => {
    const io = captureIo();
    assert.equal(await waczMain([path.join(dir)], io), 0);
    assert.match(io.stderr.text, /blocked\.wacz|pkg\.wacz/);
    await assert.rejects(waczMain([], captureIo()), { code: 'ARCHIVER_USAGE' });
  });
});
