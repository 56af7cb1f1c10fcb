/**
 * The page list built with bounded memory (PageCollector's external sort,
 * PageList's one ordered pass), against the rule it replaced: every
 * candidate in memory, sorted by (file, offset), the first capture of a
 * URL listed, a text-less revisit given the title and text of the first
 * original with its digest, the main page chosen among the seeds. With a
 * sort buffer of a few hundred bytes every candidate is spilled to its own
 * run, so the merge is what orders them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PageList, type PageEntry } from '../../src/wacz/page-list.js';
import { PageCollector, type PageCandidate } from '../../src/wacz/pages.js';
import { mulberry32 } from '../helpers/prng.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-pages-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const FILES = ['A.warc.gz', 'B.warc.gz', 'C.warc.gz'];

function page(url: string, filename: string, offset: number, extra: Partial<PageCandidate> = {}): PageCandidate {
  return {
    url, filename, offset, warcDate: `2026-01-02T03:04:${String(offset % 60).padStart(2, '0')}Z`, digest: `sha1:${url}`, original: true,
    title: `T ${url}`, text: `text of ${url}`, ...extra,
  };
}

/** The rule as it was with every candidate in memory (the former PageCollector.#build and mainPage). */
function reference(cands: readonly PageCandidate[], seeds: readonly string[], marked: ReadonlySet<string>, maxTextChars: number): { lines: string[]; main: PageEntry | null } {
  const rank = (f: string): number => FILES.indexOf(f);
  const ordered = [...cands].sort((a, b) => rank(a.filename) - rank(b.filename) || a.offset - b.offset);
  const byDigest = new Map<string, PageCandidate>();
  for (const c of ordered) if (c.original && c.digest !== null && !byDigest.has(c.digest)) byDigest.set(c.digest, c);
  const seen = new Set<string>();
  const pages: PageEntry[] = [];
  for (const c of ordered) {
    if (seen.has(c.url)) continue;
    seen.add(c.url);
    const source = c.original || c.title !== undefined || c.text !== undefined ? c : (c.digest !== null ? byDigest.get(c.digest) : undefined);
    const p: PageEntry = { url: c.url, ts: new Date(Date.parse(c.warcDate)).toISOString() };
    if (source?.title) p.title = source.title;
    if (source?.text) p.text = source.text.slice(0, maxTextChars);
    pages.push(p);
  }
  let main: PageEntry | null = null;
  for (const s of seeds) {
    main = pages.find((p) => p.url === s) ?? null;
    if (main) break;
  }
  const byTime = [...pages].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  main ??= byTime.find((p) => marked.has(p.url)) ?? byTime[0] ?? null;
  return { lines: [{ format: 'json-pages-1.0', id: 'pages', title: 'All Pages', hasText: true }, ...pages].map((o) => JSON.stringify(o)), main };
}

async function streamed(cands: readonly PageCandidate[], seeds: readonly string[], marked: readonly string[], opts: { sortBufferBytes?: number; maxTextChars?: number } = {}) {
  const dir = await mkdtemp(path.join(tmp, 'run-'));
  const collector = new PageCollector({ files: FILES, tmpDir: dir, ...opts });
  for (const url of marked) collector.addSeed(url);
  for (const c of cands) await collector.add(c);
  const runs = collector.runs;
  const out = path.join(dir, 'pages.jsonl');
  const written = await collector.writeJsonl(out, seeds);
  const text = await readFile(out, 'utf8');
  assert.ok(text.endsWith('\n'));
  const left = (await readdir(dir)).filter((n) => n !== 'pages.jsonl');
  assert.deepEqual(left, [], 'sorted runs removed');
  return { lines: text.slice(0, -1).split('\n'), written, runs };
}

describe('page list from an external sort', () => {
  test('a URL captured twice is listed once, at its first capture in package order, whatever the order added', async () => {
    const cands = [
      page('http://a/x', 'B.warc.gz', 10, { title: 'second' }),
      page('http://a/y', 'A.warc.gz', 500),
      page('http://a/x', 'A.warc.gz', 900, { title: 'first' }),
      page('http://a/z', 'C.warc.gz', 0),
    ];
    const { lines, written, runs } = await streamed(cands, [], [], { sortBufferBytes: 100 });
    assert.ok(runs >= 4, `every candidate spilled (${runs} runs)`);
    const pages = lines.slice(1).map((l) => JSON.parse(l) as PageEntry);
    assert.deepEqual(pages.map((p) => [p.url, p.title]), [['http://a/y', 'T http://a/y'], ['http://a/x', 'first'], ['http://a/z', 'T http://a/z']]);
    assert.equal(written.pages, 3);
  });

  test('a text-less revisit borrows the title and text of the first original with its digest; without one it has none', async () => {
    const shared = 'sha1:SHARED';
    const cands = [
      page('http://b/rev1', 'B.warc.gz', 100, { original: false, digest: shared, title: undefined, text: undefined }),
      page('http://b/orig', 'A.warc.gz', 100, { digest: shared, title: 'Original', text: 'the original text' }),
      page('http://b/orig2', 'A.warc.gz', 200, { digest: shared, title: 'Later original', text: 'other' }),
      page('http://b/rev2', 'C.warc.gz', 5, { original: false, digest: shared, title: undefined, text: undefined }),
      page('http://b/own', 'C.warc.gz', 9, { original: false, digest: shared, title: 'Own title', text: undefined }),
      page('http://b/orphan', 'C.warc.gz', 20, { original: false, digest: 'sha1:NONE', title: undefined, text: undefined }),
    ];
    const { lines } = await streamed(cands, [], [], { sortBufferBytes: 100 });
    const pages = new Map(lines.slice(1).map((l) => JSON.parse(l) as PageEntry).map((p) => [p.url, p]));
    for (const url of ['http://b/rev1', 'http://b/rev2']) {
      assert.equal(pages.get(url)?.title, 'Original', url);
      assert.equal(pages.get(url)?.text, 'the original text', url);
    }
    assert.equal(pages.get('http://b/own')?.title, 'Own title');
    assert.equal(pages.get('http://b/own')?.text, undefined, 'a revisit with a title of its own keeps its own');
    assert.equal(pages.get('http://b/orphan')?.title, undefined);
    assert.equal(pages.size, 6);
  });

  test('an original after its revisit in package order: the revisit borrows from the late originals handed over, else nothing', () => {
    const pass = (lateOriginals?: Map<string, { title?: string; text?: string }>) => {
      const list = new PageList({ borrowers: new Map([['sha1:D', 1]]), ...(lateOriginals ? { lateOriginals } : {}) });
      const rev = list.next({ url: 'http://c/rev', warcDate: '2026-01-01T00:00:00Z', digest: 'sha1:D', original: false });
      list.next({ url: 'http://c/orig', warcDate: '2026-01-01T00:00:01Z', digest: 'sha1:D', original: true, title: 'T', text: 'x' });
      return rev;
    };
    assert.deepEqual(pass(), { url: 'http://c/rev', ts: '2026-01-01T00:00:00.000Z' });
    const late = new Map([['sha1:D', { title: 'T', text: 'x' }]]);
    assert.deepEqual(pass(late), { url: 'http://c/rev', ts: '2026-01-01T00:00:00.000Z', title: 'T', text: 'x' });
    assert.equal(late.size, 0, 'dropped once its last revisit has passed');
  });

  test('pages added in package order (read from WARCs), a revisit ahead of its original: it borrows as one after it does (a crawl writes them so when its page work ends first)', async () => {
    const shared = 'sha1:AHEAD';
    const cands = [
      page('http://f/rev-ahead', 'A.warc.gz', 10, { original: false, digest: shared, title: undefined, text: undefined }),
      page('http://f/orig', 'A.warc.gz', 20, { digest: shared, title: 'Redirecting…', text: 'the original text' }),
      page('http://f/rev-after', 'B.warc.gz', 5, { original: false, digest: shared, title: undefined, text: undefined }),
      page('http://f/orig-again', 'C.warc.gz', 5, { digest: shared, title: 'A second original', text: 'other' }),
    ];
    const expected = reference(cands, [], new Set(), 100_000);
    for (const sortBufferBytes of [undefined, 100]) {
      const { lines } = await streamed(cands, [], [], sortBufferBytes !== undefined ? { sortBufferBytes } : {});
      assert.deepEqual(lines, expected.lines, `buffer ${sortBufferBytes}`);
      const pages = new Map(lines.slice(1).map((l) => JSON.parse(l) as PageEntry).map((p) => [p.url, p]));
      for (const url of ['http://f/rev-ahead', 'http://f/rev-after']) assert.deepEqual([pages.get(url)?.title, pages.get(url)?.text], ['Redirecting…', 'the original text'], url);
    }
  });

  test('main page: the first profile seed listed; else the earliest marked seed; else the earliest page', async () => {
    const cands = [
      page('http://d/late', 'A.warc.gz', 1, { warcDate: '2026-01-02T00:00:09Z' }),
      page('http://d/marked', 'A.warc.gz', 2, { warcDate: '2026-01-02T00:00:05Z' }),
      page('http://d/early', 'A.warc.gz', 3, { warcDate: '2026-01-02T00:00:01Z' }),
      page('http://d/seed2', 'B.warc.gz', 1, { warcDate: '2026-01-02T00:00:07Z' }),
    ];
    const main = async (seeds: string[], marked: string[]) => (await streamed(cands, seeds, marked, { sortBufferBytes: 100 })).written.main?.url;
    assert.equal(await main(['http://d/missing', 'http://d/seed2', 'http://d/late'], ['http://d/marked']), 'http://d/seed2');
    assert.equal(await main(['http://d/missing'], ['http://d/marked', 'http://d/late']), 'http://d/marked');
    assert.equal(await main([], []), 'http://d/early');
    // Same capture time: the first listed wins, as the former stable sort by time chose.
    const tie = new PageList({ markedSeeds: new Set(['http://e/2', 'http://e/3']) });
    for (const n of [1, 2, 3]) tie.next({ url: `http://e/${n}`, warcDate: '2026-01-02T00:00:00Z', digest: null, original: true });
    assert.equal(tie.mainPage()?.url, 'http://e/2');
    const tieAll = new PageList();
    for (const n of [1, 2]) tieAll.next({ url: `http://e/${n}`, warcDate: '2026-01-02T00:00:00Z', digest: null, original: true });
    assert.equal(tieAll.mainPage()?.url, 'http://e/1');
    const empty = new PageCollector({ files: FILES, tmpDir: tmp });
    const out = path.join(tmp, 'empty.jsonl');
    assert.deepEqual(await empty.writeJsonl(out, ['http://d/late']), { pages: 0, main: null });
    assert.equal(await readFile(out, 'utf8'), '{"format":"json-pages-1.0","id":"pages","title":"All Pages","hasText":true}\n');
  });

  test('a crawl-like stream (originals before their revisits, repeated URLs, long texts): byte-identical to the in-memory rule, spilled or not', async () => {
    const random = mulberry32(7);
    const cands: PageCandidate[] = [];
    const digests: string[] = [];
    const offsets = new Map<string, number>(FILES.map((f) => [f, 0]));
    for (let i = 0; i < 600; i++) {
      const filename = FILES[Math.min(FILES.length - 1, Math.floor(i / 200))]!;
      const offset = offsets.get(filename)!;
      offsets.set(filename, offset + 1 + Math.floor(random() * 5000));
      const url = `http://h${i % 7}/p${Math.floor(random() * 400)}`;
      const warcDate = `2026-01-02T03:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
      if (digests.length > 0 && random() < 0.3) {
        const digest = digests[Math.floor(random() * digests.length)]!;
        cands.push({ url, filename, offset, warcDate, digest, original: false });
      } else {
        const digest = `sha1:${i}`;
        digests.push(digest);
        const text = random() < 0.1 ? undefined : `words ${i} `.repeat(1 + Math.floor(random() * 300)) + '\u00e9\ud83d\ude00';
        cands.push({ url, filename, offset, warcDate, digest, original: true, ...(random() < 0.9 ? { title: `Title ${i}` } : {}), ...(text ? { text } : {}) });
      }
    }
    // Added as finalize adds them: one file after another, not in package order.
    const added = [...cands.filter((c) => c.filename === 'C.warc.gz'), ...cands.filter((c) => c.filename !== 'C.warc.gz')];
    const seeds = ['http://nowhere/', cands[250]!.url];
    const marked = new Set([cands[10]!.url]);
    const expected = reference(cands, seeds, marked, 1000);
    for (const sortBufferBytes of [undefined, 4096]) {
      const got = await streamed(added, seeds, [...marked], { maxTextChars: 1000, ...(sortBufferBytes !== undefined ? { sortBufferBytes } : {}) });
      if (sortBufferBytes !== undefined) assert.ok(got.runs > 50, `${got.runs} runs`);
      else assert.equal(got.runs, 0);
      assert.deepEqual(got.lines, expected.lines, `buffer ${sortBufferBytes}`);
      // The list keeps the main page's URL and time (what datapackage.json names), not its text.
      assert.deepEqual(got.written.main, expected.main && { url: expected.main.url, ts: expected.main.ts });
      assert.equal(got.written.pages, expected.lines.length - 1);
    }
    assert.ok(expected.lines.some((l) => l.includes('\ud83d\ude00')), 'some text survives the cut');
  });
});
