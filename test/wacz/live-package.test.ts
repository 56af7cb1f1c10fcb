/**
 * The page list and the index lines a crawl makes as it writes the capture
 * journal (wacz/live-pages.ts, live-index.ts) must be what the end of the
 * crawl would make from that journal: pages.jsonl and index.cdxj byte for
 * byte, the same main page and datapackage.json entries. The end takes
 * each only when it covers the journal it reads; whenever the list cannot
 * be made that way (a capture out of order, a text-less revisit that would
 * borrow, a seed marked after its page was listed) it is set aside and the
 * end makes it itself.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { FixtureWeb } from '../../src/demo/fixture-web.js';
import { CaptureJournal, readJournalLine, type JournaledCapture } from '../../src/job/capture-journal.js';
import { captureJournalPath, jobWarcs } from '../../src/job/job-dir.js';
import { readWarcSums, warcSumsPath } from '../../src/job/warc-sums.js';
import { finalizeJob, indexJob } from '../../src/wacz/finalize-job.js';
import { LivePages, type LivePageList } from '../../src/wacz/live-pages.js';
import { LiveIndex, type LiveIndexLines } from '../../src/wacz/live-index.js';
import { DEFAULT_MAX_TEXT_CHARS } from '../../src/wacz/page-list.js';
import { captureIo } from '../helpers/capture.js';
import { journaledCapture } from '../helpers/journaled-capture.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readZip } from './zip-read.js';

let tmp: string;
let web: FixtureWeb;
let dir: string;
/** What the crawl's own end packaged. */
let crawled: Map<string, Buffer>;
let crawledCdxj: string;

interface DataPackage {
  mainPageUrl?: string;
  mainPageDate?: string;
  resources: Array<{ path: string; hash: string; bytes: number }>;
}

function entriesOf(wacz: Buffer): Map<string, Buffer> {
  return new Map(readZip(wacz).map((e) => [e.name, e.data]));
}

function dataPackage(zip: Map<string, Buffer>): DataPackage {
  return JSON.parse(zip.get('datapackage.json')!.toString('utf8')) as DataPackage;
}

/** The journal's captures handed to a follower as the journal's writer hands them (the line without text, the text's JSON bytes). */
async function replayJournal(follow: (line: JournaledCapture, textJson: Uint8Array | null) => void): Promise<void> {
  for (const raw of (await readFile(captureJournalPath(dir))).toString('latin1').split('\n')) {
    if (raw === '') continue;
    const parsed = readJournalLine(Buffer.from(raw, 'latin1'));
    if (parsed?.kind !== 'capture') continue;
    const { textJson, ...line } = parsed.capture;
    follow(line as JournaledCapture, textJson ?? null);
  }
}

async function livePages(file: string, seeds: readonly string[] = web.seeds): Promise<LivePageList | null> {
  const live = await LivePages.start({ file: path.join(dir, 'indexes', file), journal: captureJournalPath(dir), seeds, maxTextChars: DEFAULT_MAX_TEXT_CHARS });
  await replayJournal((line, textJson) => live.add(line, textJson));
  return live.finish();
}

let liveIndexes = 0;
async function liveIndex(sortBufferBytes?: number): Promise<LiveIndexLines> {
  const live = await LiveIndex.start({ dir: path.join(dir, 'indexes', `.finalize-test-index-${liveIndexes++}`), journal: captureJournalPath(dir), ...(sortBufferBytes ? { sortBufferBytes } : {}) });
  await replayJournal((line) => live.add(line));
  return (await live.finish())!;
}

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-live-pages-'));
  web = await FixtureWeb.start({ hosts: 2, pagesPerHost: 3, port: 0 });
  dir = path.join(tmp, 'live');
  // Small files: the list follows captures across several WARCs.
  const profile = validateProfile(testProfileJson('live', web.seeds, dir, { output: { dir, rotateBytes: 40_000 } }), 'live');
  await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  crawled = entriesOf(await readFile(path.join(dir, 'live.wacz')));
  crawledCdxj = await readFile(path.join(dir, 'indexes', 'index.cdxj'), 'utf8');
});
after(async () => {
  await web.close();
  await rm(tmp, { recursive: true, force: true });
});

describe('the page list made during the crawl', () => {
  test('the crawl packaged the list and index the journal gives: pages.jsonl and index.cdxj byte for byte, main page and hashes; its work files are gone', async () => {
    const again = await finalizeJob({ jobDir: dir, name: 'again', software: 'archiver-test', seeds: web.seeds });
    assert.equal(again.livePages, false);
    assert.equal(again.liveIndex, false);
    assert.equal(await readFile(again.cdxj, 'utf8'), crawledCdxj);
    assert.ok(crawledCdxj.split('\n').length > 10, 'index lines');
    assert.ok(crawled.get('indexes/index.cdx')!.equals(Buffer.from(crawledCdxj)));
    const fromJournal = entriesOf(await readFile(again.wacz));
    const jsonl = crawled.get('pages/pages.jsonl')!;
    assert.ok(jsonl.equals(fromJournal.get('pages/pages.jsonl')!));
    assert.ok(jsonl.toString('utf8').split('\n').length > 8, 'pages listed');
    const [a, b] = [dataPackage(crawled), dataPackage(fromJournal)];
    assert.deepEqual([a.mainPageUrl, a.mainPageDate], [b.mainPageUrl, b.mainPageDate]);
    assert.equal(a.mainPageUrl, web.seeds[0]);
    const listed = a.resources.find((r) => r.path === 'pages/pages.jsonl')!;
    assert.deepEqual(listed, b.resources.find((r) => r.path === 'pages/pages.jsonl'));
    assert.equal(listed.hash, `sha256:${createHash('sha256').update(jsonl).digest('hex')}`);
    assert.equal(listed.bytes, jsonl.length);
    // Each WARC as the crawl summed it while writing: the hash of its bytes in the package.
    for (const r of a.resources.filter((x) => x.path.startsWith('archive/'))) {
      const bytes = crawled.get(r.path)!;
      assert.equal(r.hash, `sha256:${createHash('sha256').update(bytes).digest('hex')}`, r.path);
      assert.equal(r.bytes, bytes.length);
    }
    assert.deepEqual((await readdir(path.join(dir, 'indexes'))).filter((n) => n.startsWith('.')), []);
  });

  test('given to the end of the crawl, they are taken as they are and give the same package and index, sorted runs spilled or not', async () => {
    for (const sortBufferBytes of [undefined, 300]) {
      const live = await livePages('.finalize-live-pages.deflate');
      assert.ok(live !== null);
      const index = await liveIndex(sortBufferBytes);
      assert.equal(index.sorter.runs > 0, sortBufferBytes !== undefined, 'runs spilled with a small buffer only');
      const job = await finalizeJob({ jobDir: dir, name: 'taken', software: 'archiver-test', seeds: web.seeds, livePages: live, liveIndex: index });
      assert.equal(job.livePages, true);
      assert.equal(job.liveIndex, true);
      assert.equal(await readFile(job.cdxj, 'utf8'), crawledCdxj);
      assert.ok(entriesOf(await readFile(job.wacz)).get('indexes/index.cdx')!.equals(Buffer.from(crawledCdxj)));
    }
    const live = (await livePages('.finalize-live-pages.deflate'))!;
    const job = await finalizeJob({ jobDir: dir, name: 'taken', software: 'archiver-test', seeds: web.seeds, livePages: live });
    assert.equal(job.livePages, true);
    assert.equal(job.liveIndex, false);
    const zip = entriesOf(await readFile(job.wacz));
    assert.ok(zip.get('pages/pages.jsonl')!.equals(crawled.get('pages/pages.jsonl')!));
    assert.deepEqual(dataPackage(zip).resources.find((r) => r.path === 'pages/pages.jsonl'), dataPackage(crawled).resources.find((r) => r.path === 'pages/pages.jsonl'));
    assert.equal(job.pages, live.pages);
  });

  test('a job not packaged (indexJob) takes the crawl\'s index lines too', async () => {
    const job = await indexJob({ jobDir: dir, name: 'plain', software: 'archiver-test', seeds: web.seeds, liveIndex: await liveIndex() });
    assert.equal(job.liveIndex, true);
    assert.equal(await readFile(job.cdxj, 'utf8'), crawledCdxj);
  });

  test('index lines set aside when they do not cover the journal the end reads: fewer captures, another journal', async () => {
    for (const change of [(l: LiveIndexLines) => ({ ...l, captures: l.captures + 1 }), (l: LiveIndexLines) => ({ ...l, journal: `${l.journal}.other` })]) {
      const job = await finalizeJob({ jobDir: dir, name: 'aside', software: 'archiver-test', seeds: web.seeds, liveIndex: change(await liveIndex()) });
      assert.equal(job.liveIndex, false);
      assert.equal(await readFile(job.cdxj, 'utf8'), crawledCdxj);
    }
  });

  test('set aside when it does not cover what the end reads: other seeds, fewer captures, another text cap', async () => {
    const cases: Array<[string, (l: LivePageList) => LivePageList]> = [
      ['seeds', (l) => ({ ...l, seeds: [...l.seeds].reverse() })],
      ['captures', (l) => ({ ...l, captures: l.captures - 1 })],
      ['text cap', (l) => ({ ...l, maxTextChars: 0 })],
      ['journal', (l) => ({ ...l, journal: `${l.journal}.other` })],
    ];
    for (const [what, change] of cases) {
      const live = (await livePages(`.finalize-aside-${cases.findIndex((c) => c[0] === what)}.deflate`))!;
      const job = await finalizeJob({ jobDir: dir, name: 'aside', software: 'archiver-test', seeds: web.seeds, livePages: change(live) });
      assert.equal(job.livePages, false, what);
      assert.ok(entriesOf(await readFile(job.wacz)).get('pages/pages.jsonl')!.equals(crawled.get('pages/pages.jsonl')!), what);
    }
  });
});

describe('the WARC sums kept with the job', () => {
  test('a line per WARC the crawl closed; the end lists a recorded hash as it is while the file is unchanged, and hashes a changed one', async () => {
    const record = warcSumsPath(dir);
    const recorded = await readWarcSums(record);
    const warcs = await jobWarcs(dir);
    assert.ok(warcs.length >= 2);
    assert.deepEqual([...recorded.keys()].sort(), warcs.map((w) => path.basename(w)).sort());
    for (const w of warcs) {
      const bytes = await readFile(w);
      const r = recorded.get(path.basename(w))!;
      assert.deepEqual([r.size, r.sha256, r.crc32], [bytes.length, createHash('sha256').update(bytes).digest('hex'), crc32(bytes)]);
    }
    const original = await readFile(record, 'utf8');
    const [first, second] = warcs.map((w) => path.basename(w));
    try {
      // A made-up hash for the first file shows the end took the record's word; an unreadable line is skipped.
      const madeUp = 'cd'.repeat(32);
      await writeFile(record, `${original}not json\n${JSON.stringify({ ...recorded.get(first!)!, file: first, sha256: madeUp })}\n`);
      // The second file changed since it was summed (its time): hashed again.
      const secondPath = warcs[1]!;
      const later = new Date(Date.now() + 5000);
      await utimes(secondPath, later, later);
      const job = await finalizeJob({ jobDir: dir, name: 'sums', software: 'archiver-test', seeds: web.seeds });
      const resources = dataPackage(entriesOf(await readFile(job.wacz))).resources;
      assert.equal(resources.find((r) => r.path === `archive/${first}`)!.hash, `sha256:${madeUp}`);
      const secondBytes = await readFile(secondPath);
      assert.equal(resources.find((r) => r.path === `archive/${second}`)!.hash, `sha256:${createHash('sha256').update(secondBytes).digest('hex')}`);
    } finally {
      await writeFile(record, original);
    }
  });
});

describe('what makes the list give up', () => {
  async function following(lines: readonly JournaledCapture[], texts: readonly (string | null)[] = []): Promise<LivePageList | null> {
    const live = await LivePages.start({ file: path.join(tmp, `unit-${Math.random().toString(36).slice(2)}.deflate`), journal: 'j', seeds: ['http://127.0.0.2/p0.html'], maxTextChars: 100 });
    lines.forEach((l, i) => live.add(l, texts[i] ? Buffer.from(JSON.stringify(texts[i]), 'utf8') : null));
    return live.finish();
  }

  test('captures in order, with text: a list', async () => {
    const list = await following([journaledCapture(0, { seed: true }), journaledCapture(1), journaledCapture(2, { page: false })], ['first page', 'second']);
    assert.ok(list !== null);
    assert.equal(list.pages, 2);
    assert.equal(list.captures, 3);
    assert.equal(list.main?.url, 'http://127.0.0.2/p0.html');
    const { inflateRawSync } = await import('node:zlib');
    const lines = inflateRawSync(await readFile(list.file)).toString('utf8').trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.deepEqual(JSON.parse(lines[1]!), { url: 'http://127.0.0.2/p0.html', ts: '2026-01-02T03:04:05.000Z', title: 'Page 0', text: 'first page' });
  });

  test('a capture before the one ahead of it in its file, or in a file met before: none', async () => {
    assert.equal(await following([journaledCapture(1), journaledCapture(0)]), null);
    assert.equal(await following([journaledCapture(0), journaledCapture(1, { filename: 'B.warc.gz' }), journaledCapture(2)]), null);
  });

  test('a text-less page revisit (it would borrow its original\'s text): none', async () => {
    const { title: _t, ...untitled } = journaledCapture(1, { revisit: true, digest: 'sha1:D0' });
    assert.equal(await following([journaledCapture(0), untitled], ['text']), null);
    // A revisit with a text of its own borrows nothing.
    assert.ok((await following([journaledCapture(0), journaledCapture(1, { revisit: true, digest: 'sha1:D0' })], ['text', 'text'])) !== null);
  });

  test('a seed mark on a URL already listed: none', async () => {
    assert.equal(await following([journaledCapture(0), journaledCapture(0, { offset: 5000, seed: true })]), null);
  });

  test("its file fails (a full disk): none, and the journal's lines are still taken", async () => {
    // A link to /dev/full, where every write fails with ENOSPC, as a full disk's would.
    const file = path.join(tmp, `full-${Math.random().toString(36).slice(2)}.deflate`);
    await symlink('/dev/full', file);
    const live = await LivePages.start({ file, journal: 'j', seeds: ['http://127.0.0.2/p0.html'], maxTextChars: 100_000 });
    // Enough text to fill several of the list's 64 KiB chunks, so that deflate's output meets the disk mid-crawl.
    const text = Array.from({ length: 40_000 }, (_, i) => `w${(i * 7919) % 10007}`).join(' ');
    for (let i = 0; i < 8; i++) assert.doesNotThrow(() => live.add(journaledCapture(i), Buffer.from(JSON.stringify(text), 'utf8')));
    assert.equal(await live.finish(), null);
    await live.discard();
    assert.equal(existsSync(file), false);
    assert.ok(existsSync('/dev/full'), 'only the link is removed');
  });
});

describe('the journal tells its follower', () => {
  test('each capture once written: the line without text, the text as JSON bytes', async () => {
    const journal = await CaptureJournal.open(path.join(tmp, 'follow', 'captures.jsonl'));
    assert.equal(journal.fresh, true);
    const told: Array<[JournaledCapture, string | null]> = [];
    journal.follow((line, textJson) => told.push([line, textJson === null ? null : Buffer.from(textJson).toString('utf8')]));
    await journal.append(journaledCapture(0, { text: 'plain "quoted"' }));
    await journal.append(journaledCapture(1, { title: '' }), Buffer.from(JSON.stringify('from the page thread'), 'utf8'));
    await journal.append(journaledCapture(2));
    await journal.close();
    assert.deepEqual(told.map(([l]) => [l.url, 'text' in l, l.title]), [
      ['http://127.0.0.2/p0.html', false, 'Page 0'],
      ['http://127.0.0.2/p1.html', false, undefined],
      ['http://127.0.0.2/p2.html', false, 'Page 2'],
    ]);
    assert.deepEqual(told.map(([, t]) => t), [JSON.stringify('plain "quoted"'), JSON.stringify('from the page thread'), null]);
    const reopened = await CaptureJournal.open(path.join(tmp, 'follow', 'captures.jsonl'));
    assert.equal(reopened.fresh, false, 'a journal with lines is not this run\'s alone');
    await reopened.close();
  });
});
