/**
 * The profile's `output.wacz` and `output.pageText`, each against a crawl
 * of the same loopback site with the defaults, so that every assertion
 * fails where the option is not honoured. A crawl without a package ends
 * with the CDXJ index alone, the one `archiver wacz` then writes too; a
 * crawl without page text keeps none in its journal, page list or search
 * index, while titles stay searchable and links are still followed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { validateProfile } from '../../src/config/load-profile.js';
import type { CrawlSummary } from '../../src/crawl/reports.js';
import { formatSummary } from '../../src/crawl/reports.js';
import { extractFor } from '../../src/crawl/extract-for.js';
import { captureJournalPath } from '../../src/job/job-dir.js';
import type { SearchResponse } from '../../src/search/search-types.js';
import { indexJob } from '../../src/wacz/finalize-job.js';
import { captureIo } from '../helpers/capture.js';
import { runCrawl } from '../helpers/run-crawl.js';
import { testProfileJson } from '../helpers/test-profile.js';
import { readZip } from './zip-read.js';

/** Three pages: each title and body has words of its own, found nowhere else. */
const PAGES: Record<string, { title: string; body: string; links: string[] }> = {
  '/': { title: 'Harbour index', body: 'The quartzite pier and its ferries.', links: ['/keeper', '/tides'] },
  '/keeper': { title: 'Lighthouse keeper', body: 'Marmalade was the keeper breakfast every morning.', links: ['/'] },
  '/tides': { title: 'Tide tables', body: 'Spring tides reach the salt marsh twice a month.', links: ['/keeper'] },
};

let tmp: string;
let server: Server;
let origin: string;

function page(p: { title: string; body: string; links: string[] }): string {
  const links = p.links.map((href) => `<a href="${href}">${href}</a>`).join(' ');
  return `<!DOCTYPE html><html><head><title>${p.title}</title></head><body><p>${p.body}</p><p>${links}</p></body></html>`;
}

async function crawl(name: string, output: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<{ dir: string; summary: CrawlSummary }> {
  const dir = path.join(tmp, name);
  const profile = validateProfile(testProfileJson(name, [`${origin}/`], dir, { output: { dir, ...output }, ...extra }), name);
  const summary = await runCrawl({ profile, stderr: captureIo().stderr, quiet: true });
  return { dir, summary };
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = captureIo();
  const code = await main(args, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function search(dir: string, query: string): Promise<string[]> {
  const r = await cli('search', dir, query, '--json');
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as SearchResponse).hits.map((h) => new URL(h.url).pathname);
}

async function waczFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.wacz'));
}

/** The WACZ's page list, header line left out. */
async function packagedPages(wacz: string): Promise<Array<{ url: string; title?: string; text?: string }>> {
  const zip = new Map(readZip(await readFile(wacz)).map((e) => [e.name, e.data]));
  return zip.get('pages/pages.jsonl')!.toString('utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as { url: string; title?: string; text?: string });
}

async function journalLines(dir: string): Promise<Array<Record<string, unknown>>> {
  const lines = (await readFile(captureJournalPath(dir), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return lines.filter((l) => typeof l['url'] === 'string');
}

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-output-options-'));
  server = createServer((req, res) => {
    const p = PAGES[req.url ?? ''];
    if (p === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(p));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(tmp, { recursive: true, force: true });
});

describe('output.wacz', () => {
  test('false: the crawl ends with the CDXJ index alone, the same index a package then carries', async () => {
    const packaged = await crawl('packaged');
    assert.deepEqual(await waczFiles(packaged.dir), ['packaged.wacz']);
    assert.ok(packaged.summary.wacz !== null);

    const { dir, summary } = await crawl('index-only', { wacz: false });
    assert.deepEqual(await waczFiles(dir), []);
    assert.equal(summary.wacz, null);
    assert.ok(summary.cdxj !== null && existsSync(summary.cdxj));
    assert.match(formatSummary(summary), /WACZ {6}none \(output\.wacz is false/);
    const index = await readFile(summary.cdxj, 'utf8');
    // robots.txt (404) and the three pages.
    assert.equal(index.trimEnd().split('\n').length, 4);
    for (const p of Object.keys(PAGES)) assert.ok(index.includes(`"url":"${origin}${p}"`), p);

    // Packaged later, the job gets its WACZ and the same index.
    const r = await cli('wacz', dir);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await waczFiles(dir), ['index-only.wacz']);
    assert.equal(await readFile(summary.cdxj, 'utf8'), index);
    assert.deepEqual((await packagedPages(path.join(dir, 'index-only.wacz'))).map((p) => p.title).sort(), Object.values(PAGES).map((p) => p.title).sort());

    // Indexed again without a package (a resumed run with output.wacz false): the package, which would
    // no longer cover the job, goes; the index stays what it was.
    const again = await indexJob({ jobDir: dir, name: 'index-only', software: 'archiver-test' });
    assert.equal(again.captures, 4);
    assert.deepEqual(await waczFiles(dir), []);
    assert.equal(await readFile(summary.cdxj, 'utf8'), index);
  });

  test('is a boolean: anything else is refused, naming the field', () => {
    const json = testProfileJson('bad', [`${origin}/`], path.join(tmp, 'bad'), { output: { dir: path.join(tmp, 'bad'), wacz: 'no' } });
    assert.throws(() => validateProfile(json, 'bad.json'), /\/output\/wacz/);
    const text = testProfileJson('bad', [`${origin}/`], path.join(tmp, 'bad'), { output: { dir: path.join(tmp, 'bad'), pageText: 1 } });
    assert.throws(() => validateProfile(text, 'bad.json'), /\/output\/pageText/);
  });
});

describe('output.pageText', () => {
  test('false: no page text in the journal, the page list or the search index; titles and links stay', async () => {
    const withText = await crawl('with-text');
    const without = await crawl('without-text', { pageText: false });
    for (const { summary } of [withText, without]) assert.equal(summary.uris, 4);

    const kept = await journalLines(withText.dir);
    const dropped = await journalLines(without.dir);
    assert.ok(kept.some((l) => String(l['text']).includes('Marmalade')));
    assert.equal(dropped.filter((l) => 'text' in l).length, 0);
    assert.deepEqual(dropped.filter((l) => l['page'] === true).map((l) => l['title']).sort(), Object.values(PAGES).map((p) => p.title).sort());

    const keptPages = await packagedPages(withText.summary.wacz!);
    const droppedPages = await packagedPages(without.summary.wacz!);
    assert.ok(keptPages.some((p) => p.text?.includes('Marmalade')));
    assert.equal(droppedPages.filter((p) => p.text !== undefined && p.text !== '').length, 0);
    assert.equal(droppedPages.length, keptPages.length);

    assert.deepEqual(await search(withText.dir, 'marmalade'), ['/keeper']);
    assert.deepEqual(await search(without.dir, 'marmalade'), []);
    assert.deepEqual(await search(without.dir, 'lighthouse'), ['/keeper']);
  });

  test('false: the page thread does not gather the text at all, unless a focused crawl needs it', async () => {
    const html = page(PAGES['/keeper']!);
    const url = `${origin}/keeper`;
    const gathered = await extractFor(html, url, {});
    const skipped = await extractFor(html, url, { text: false });
    assert.match(gathered.text, /Marmalade/);
    assert.equal(skipped.text, '');
    assert.equal(skipped.title, 'Lighthouse keeper');
    assert.deepEqual(skipped.links, gathered.links);
    assert.match((await extractFor(html, url, { text: false, focusTerms: true })).text, /Marmalade/);
  });

  test('false in a focused crawl: the pages are still scored by their text, which is then dropped', async () => {
    const focus = { focus: { keywords: ['marmalade', 'breakfast'] } };
    const scored = await crawl('focused-with-text', {}, focus);
    const { dir } = await crawl('focused-without-text', { pageText: false }, focus);
    const relevance = (lines: Array<Record<string, unknown>>): unknown[] => lines.filter((l) => l['page'] === true).map((l) => [l['url'], l['relevance']]).sort();
    const lines = await journalLines(dir);
    assert.deepEqual(relevance(lines), relevance(await journalLines(scored.dir)));
    assert.ok(lines.some((l) => typeof l['relevance'] === 'number' && l['relevance'] > 0));
    assert.equal(lines.filter((l) => 'text' in l).length, 0);
  });
});
