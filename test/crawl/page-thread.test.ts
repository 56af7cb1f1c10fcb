/**
 * The page thread gives what the same work in this thread gives: HTML
 * extraction, and a capture's outlinks and WARC records in one trip. Under `npm test` (compiled JavaScript) the worker really runs;
 * from the TypeScript sources (tsx) the thread falls back by design, and the
 * test checks that too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { Worker } from 'node:worker_threads';
import { extractFor, MAX_DECODED_BYTES } from '../../src/crawl/extract-for.js';
import { PageThread, SMALL_PAGE_BYTES } from '../../src/crawl/page-thread.js';
import { startPageWorker, type PageWorker } from '../../src/crawl/page-worker-start.js';
import { BatchedWorker } from '../../src/core/batched-worker.js';
import { pageWork, type PageRequest } from '../../src/crawl/page-work.js';
import { inProcessGzip } from '../../src/writer/gzip-member.js';
import { sha1PayloadDigest } from '../../src/fetch/payload-digest.js';
import { extractHtml } from '../../src/fetch/link-extractor.js';
import { recordWithoutIds } from '../helpers/gzip-members.js';
import { bufferBody } from '../../src/core/buffer-body.js';
import type { BodyStore } from '../../src/core/exchange.js';

function page(n: number): string {
  const links = Array.from({ length: 60 }, (_, i) => `<li><a href="/p/${n}/${i}?q=${i}#f">link ${i} of ${n}</a> <img src="img/${i}.png" srcset="a.png 1x, b.png 2x"></li>`);
  return `<!doctype html><html><head><title> Page ${n} </title><meta name="robots" content="noindex"><base href="https://base.test/dir/"></head>
<body><p>Visible text ${n} é ü 漢字</p><script>var hidden = 1;</script><ul>${links.join('\n')}</ul></body></html>`;
}

const compiled = import.meta.url.endsWith('.js');

const HTML_HEADERS: Array<[string, string]> = [['Content-Type', 'text/html; charset=utf-8']];

/** A page's bytes as stored, as `readStored` is given them. */
function stored(html: string): BodyStore {
  return bufferBody(Buffer.from(html, 'utf8'));
}

/**
 * A stored body that counts how it is read. The main thread, handing a body
 * to the worker, reads its stored bytes once (`head`) and never decodes it
 * (decoding streams it, or reads it through `head` again).
 */
function countedBody(bytes: Buffer): { body: BodyStore; reads: { head: number; stream: number } } {
  const inner = bufferBody(bytes);
  const reads = { head: 0, stream: 0 };
  const body: BodyStore = {
    size: inner.size,
    stream: () => {
      reads.stream++;
      return inner.stream();
    },
    head: (max) => {
      reads.head++;
      return inner.head(max);
    },
    dispose: () => inner.dispose(),
  };
  return { body, reads };
}

test('pages read on the worker equal pages read here, many at once', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  assert.equal(await thread.whenReady(), compiled);
  const pages = Array.from({ length: 30 }, (_, n) => page(n));
  assert.ok(pages.every((p) => Buffer.byteLength(p) >= SMALL_PAGE_BYTES));
  const results = await Promise.all(pages.map((html, n) => thread.readStored(stored(html), HTML_HEADERS, `http://site.test/page/${n}`)));
  results.forEach((result, n) => assert.deepEqual(result, { page: extractHtml(pages[n] as string, `http://site.test/page/${n}`), capped: false }));
  assert.equal(results[3]?.page.title, 'Page 3');
  assert.equal(results[3]?.page.links.length, 122); // 60 pages, 60 images, a.png and b.png once (links are distinct)
  assert.equal(thread.fellBack, !compiled, compiled ? 'the worker should have run' : 'from sources extraction stays here');
  await thread.close();
});

test('a large gzip-encoded body in a legacy charset goes to the worker as stored bytes and is decoded there as here', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  await thread.whenReady();
  // windows-1252 bytes (é is 0xE9), declared by a meta tag only, behind gzip: all of it must be undone on the worker.
  const html = `<!doctype html><meta charset="windows-1252"><title>Caf\u00e9</title>${Array.from({ length: 3000 }, (_, i) => `<p>d\u00e9j\u00e0 vu ${i} <a href="/v/${i}">v${i}</a></p>`).join('')}`;
  const gzipped = gzipSync(Buffer.from(html, 'latin1'));
  const headers: Array<[string, string]> = [['Content-Type', 'text/html'], ['Content-Encoding', 'gzip']];
  const read = await thread.readStored(bufferBody(gzipped), headers, 'http://site.test/big');
  assert.deepEqual(read, { page: extractHtml(html, 'http://site.test/big'), capped: false });
  assert.equal(read.page.title, 'Caf\u00e9');
  assert.equal(read.page.links.length, 3000);
  assert.ok(read.page.text.includes('d\u00e9j\u00e0 vu 2999'));
  await thread.close();
});

test('a body too large to be decoded in one call here is not decoded here at all: its stored bytes are copied out once', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  await thread.whenReady();
  // Over a MiB stored: decoding it here would stream it (content-decoding.ts), which the count below would see.
  const html = `<!doctype html><title>Long</title>${Array.from({ length: 30_000 }, (_, i) => `<p>paragraph ${i} <a href="/p/${i}">p</a></p>`).join('')}`;
  assert.ok(html.length > 1024 * 1024);
  const { body, reads } = countedBody(Buffer.from(html, 'utf8'));
  const read = await thread.readStored(body, HTML_HEADERS, 'http://site.test/long');
  assert.deepEqual(read, { page: extractHtml(html, 'http://site.test/long', {}), capped: false });
  assert.equal(read.page.links.length, 30_000);
  if (compiled) assert.deepEqual(reads, { head: 1, stream: 0 }, 'this thread only copies the stored bytes out; it decodes nothing');
  else assert.equal(reads.stream, 1, 'without the worker the body is decoded here');
  await thread.close();
});

test('a body past MAX_DECODED_BYTES is read up to there, on the worker as here, and said to be capped', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  await thread.whenReady();
  // A title, then blank text past the limit: only the stored bytes up to the limit travel.
  const bytes = Buffer.alloc(MAX_DECODED_BYTES + 4096, 0x20);
  bytes.write('<title>Cut</title><a href="/first">first</a>', 0, 'latin1');
  const { body, reads } = countedBody(bytes);
  const read = await thread.readStored(body, HTML_HEADERS, 'http://site.test/cut');
  assert.equal(read.capped, true);
  assert.equal(read.page.title, 'Cut');
  assert.deepEqual(read.page.links.map((l) => l.url), ['http://site.test/first']);
  await thread.close();
  const here = await thread.readStored(bufferBody(bytes), HTML_HEADERS, 'http://site.test/cut');
  assert.deepEqual(here, read);
  if (compiled) assert.deepEqual(reads, { head: 1, stream: 0 });
});

test('small bodies, and everything after close, are read here with the same result', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  const small = '<title>s</title><a href="x">x</a>';
  assert.deepEqual(await thread.readStored(stored(small), HTML_HEADERS, 'http://s.test/'), { page: extractHtml(small, 'http://s.test/'), capped: false });
  await thread.close();
  const big = page(99);
  assert.deepEqual(await thread.readStored(stored(big), HTML_HEADERS, 'http://s.test/'), { page: extractHtml(big, 'http://s.test/'), capped: false });
  assert.equal(thread.fellBack, true);
});

test('a focused crawl\'s terms are cut on the worker, small pages too, as they would be here', async () => {
  const thread = new PageThread({ focusTerms: true, pagesBeforeWorker: 0 });
  await thread.whenReady();
  const small = '<title>绿茶</title><p>我们喜欢乌龙茶</p><a href="/tea/green">龙井</a>';
  const pages = [small, ...Array.from({ length: 5 }, (_, n) => page(n))];
  const results = await Promise.all(pages.map((html, n) => thread.readStored(stored(html), HTML_HEADERS, `http://site.test/page/${n}`)));
  for (const [n, result] of results.entries()) assert.deepEqual(result.page, await extractFor(pages[n] as string, `http://site.test/page/${n}`, { focusTerms: true }));
  assert.equal(results[0]?.page.terms, '绿茶 绿茶 我们 喜欢 乌龙茶 龙井');
  assert.equal(results[0]?.page.links[0]?.anchorTerms, '龙井');
  assert.equal(thread.fellBack, !compiled);
  await thread.close();
});

/** A gzip-compressed HTML capture as the fetcher hands it over. */
function capture(n: number): PageRequest {
  const html = Buffer.from(page(n), 'utf8');
  const body = gzipSync(html);
  return {
    exchange: {
      url: `http://site.test/page/${n}`,
      requestHead: Buffer.from(`GET /page/${n} HTTP/1.1\r\nHost: site.test\r\n\r\n`),
      status: 200,
      statusText: 'OK',
      httpVersion: '1.1',
      responseHeaders: [['Content-Type', 'text/html; charset=utf-8'], ['Content-Encoding', 'gzip'], ['Content-Length', String(body.length)]],
      truncated: null,
      payloadDigest: sha1PayloadDigest(body),
      ip: '127.0.0.1',
      startedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      durationMs: 3,
    },
    body,
    hopPath: 'L',
    via: 'http://site.test/',
    version: '1.1',
    extraction: { mime: 'text/html', obeyMetaRobots: true, maxOutlinks: 6000 },
  };
}

test('a capture sent to the page thread comes back with the outlinks and records this thread would make', async () => {
  const thread = new PageThread({ pagesBeforeWorker: 0 });
  await thread.whenReady();
  const requests = Array.from({ length: 12 }, (_, n) => capture(n));
  const results = await Promise.all(requests.map((r) => thread.page(r)));
  for (const [n, result] of results.entries()) {
    const here = await pageWork(requests[n]!, inProcessGzip);
    // The text comes apart, encoded for the journal, when the worker made it (not under tsx's fallback).
    const found = result.textJson === undefined ? result.found : { ...result.found, page: { ...result.found.page!, text: JSON.parse(result.textJson.toString('utf8')) as string } };
    if (result.textJson !== undefined) assert.equal(result.found.page?.text, '', 'the text is not also in the outlinks');
    assert.deepEqual(found, here.found);
    assert.equal(result.members.revisit, false);
    for (const key of ['main', 'request', 'metadata'] as const) assert.equal(recordWithoutIds(result.members[key] as Buffer), recordWithoutIds(here.members[key] as Buffer));
  }
  // The request's own body is whole after the trip (a copy travelled): a fallback could still redo it.
  assert.equal(requests[0]!.body.length > 0, true);
  const response = recordWithoutIds(results[0]!.members.main as Buffer);
  assert.match(response, /^WARC\/1\.1\r\nWARC-Type: response\r\n/);
  assert.ok(response.includes('Content-Encoding: gzip'), 'the record keeps the body as served');
  assert.ok(recordWithoutIds(results[0]!.members.metadata as Buffer).includes('outlink: https://base.test/p/0/1?q=1 L a/@href'));
  assert.equal(results[0]!.found.page?.title, 'Page 0');
  assert.equal(results.some((r) => r.textJson !== undefined), import.meta.url.endsWith('.js'), 'the worker sends each page\'s text apart');
  assert.deepEqual(results[0]!.found.annotations, ['noindex']);
  assert.equal(thread.fellBack, !import.meta.url.endsWith('.js'));
  await thread.close();
});

test('a crawl\'s first HTML page is worked here and other captures do not start the worker; the next page starts it, and captures stay here until it is ready', async () => {
  const thread = new PageThread();
  // The worker is what sends a page's text apart (textJson): a result without it was made here.
  const madeHere = (r: { textJson?: Buffer }): boolean => r.textJson === undefined;
  const robots: PageRequest = { ...capture(100), extraction: null, outlinks: { links: [], annotations: [], linksBeyondCap: 0 } };
  const image: PageRequest = { ...capture(101), extraction: { mime: 'image/png', obeyMetaRobots: true, maxOutlinks: 6000 } };
  assert.ok(madeHere(await thread.page(robots)));
  assert.ok(madeHere(await thread.page(capture(0))));
  for (let n = 0; n < 20; n++) assert.ok(madeHere(await thread.page(image)));
  assert.equal(thread.started, false, 'one page and what it embeds: the worker never starts');
  const second = thread.page(capture(1));
  assert.equal(thread.started, true, 'the first page beyond the seed starts it');
  assert.ok(madeHere(await second), 'the page that starts the worker does not wait for it');
  assert.equal(await thread.whenReady(), compiled);
  const later = await thread.page(capture(3));
  assert.equal(madeHere(later), !compiled, compiled ? 'once ready, the worker takes the captures' : 'from sources the work stays here');
  const here = await pageWork(capture(3), inProcessGzip);
  assert.equal(later.found.links.length, here.found.links.length);
  await thread.close();
});

test('a crawl that follows links starts the worker at once, and its seed goes to the worker once it is ready', async () => {
  const thread = new PageThread();
  const ready = thread.readyWithin(30_000);
  assert.equal(thread.started, true, 'started before any capture');
  assert.equal(await ready, compiled);
  const seed = await thread.page(capture(0));
  assert.equal(seed.textJson === undefined, !compiled, compiled ? 'the seed itself was worked by the worker' : 'from sources the work stays here');
  await thread.close();
});

test('a worker started ahead of the crawl is the one the thread uses, from the seed on, and it closes with the thread', async () => {
  const worker = startPageWorker();
  assert.equal(worker.started, true, 'started by startPageWorker, before there is a thread');
  const thread = new PageThread({ worker });
  assert.equal(thread.started, true, 'the thread has its worker before any capture');
  assert.equal(await thread.whenReady(), compiled);
  const seed = await thread.page(capture(0));
  assert.equal(seed.textJson === undefined, !compiled, compiled ? 'the seed was worked by the worker' : 'from sources the work stays here');
  const here = await pageWork(capture(0), inProcessGzip);
  assert.deepEqual(seed.found.links, here.found.links);
  await thread.close();
  assert.equal(await worker.whenReady(), false, 'closing the thread closed the worker it was given');
});

test('readyWithin waits for the worker until it is ready, and no longer than it is told for one that never is', async () => {
  const thread = new PageThread();
  assert.equal(await thread.readyWithin(30_000), compiled, compiled ? 'a real worker is ready well within the bound' : 'from sources: no worker, at once');
  await thread.close();
  // A worker that starts and never says it is ready.
  const silent: PageWorker = new BatchedWorker(() => new Worker('setInterval(() => {}, 60_000);', { eval: true }));
  const stuck = new PageThread({ worker: silent });
  const startedAt = performance.now();
  assert.equal(await stuck.readyWithin(300), false);
  const waited = performance.now() - startedAt;
  assert.ok(waited >= 290 && waited < 10_000, `waited ${waited.toFixed(0)} ms for a bound of 300 ms`);
  const seed = await stuck.page(capture(0));
  assert.equal(seed.textJson, undefined, 'meanwhile the captures are worked here');
  await stuck.close();
});
