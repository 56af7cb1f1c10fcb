/**
 * Issue 26, second round: a focused crawl with a page budget spent about
 * 40% of it on the stylesheets, scripts and images of off-topic pages (the
 * frontier serves a page's embeds before any link). Now the embeds of a
 * page judged off the topic wait below every scored link, those of a
 * relevant page go at once — a stylesheet the off-topic seed embedded too
 * included, fetched once.
 *
 * The web: an off-topic seed embedding /site.css and /seed.png, linking to
 * three off-topic pages (each embedding an image) and to /a/tomato.html
 * (only its URL names the topic: a seed whose text named it would be
 * judged relevant, its embeds fetched at once); that page embeds /site.css
 * and /a.png and links to /b.html under an anchor naming the topic. Order judged from the
 * server's side.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { testProfileJson } from '../helpers/test-profile.js';

const OFF = 'railway timetable platform ticket carriage departure station signal';
const ON = 'tomato compost seedlings tomato greenhouse compost watering tomato';

function page(title: string, body: string, embeds: readonly string[], links: ReadonlyArray<[string, string]>): string {
  const head = embeds.filter((e) => e.endsWith('.css')).map((e) => `<link rel="stylesheet" href="${e}">`).join('');
  const imgs = embeds.filter((e) => e.endsWith('.png')).map((e) => `<img src="${e}" alt="">`).join('');
  const list = links.map(([href, anchor]) => `<li><a href="${href}">${anchor}</a></li>`).join('');
  return `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1><p>${body}</p>${imgs}<ul>${list}</ul></body></html>`;
}

const PAGES = new Map<string, string>([
  ['/', page('Welcome', `${OFF} ${OFF}`, ['/site.css', '/seed.png'], [['/o1.html', 'One'], ['/o2.html', 'Two'], ['/o3.html', 'Three'], ['/a/tomato.html', 'Garden']])],
  ['/a/tomato.html', page('Tomatoes', `${ON} ${ON}`, ['/site.css', '/a.png'], [['/b.html', 'Tomato seedlings']])],
  ['/b.html', page('Seedlings', `${ON} ${ON}`, [], [])],
  ...[1, 2, 3].map((i): [string, string] => [`/o${i}.html`, page(`Other ${i}`, `${OFF} ${OFF}`, [`/o${i}.png`], [])]),
]);

let tmp: string;
let server: http.Server;
let origin: string;
const asked: string[] = [];
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-embeds-'));
  server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    asked.push(p);
    const body = PAGES.get(p);
    if (body !== undefined) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    else if (p.endsWith('.css')) res.writeHead(200, { 'content-type': 'text/css' }).end('body { color: black }');
    else if (p.endsWith('.png')) res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(tmp, { recursive: true, force: true });
});

async function crawl(name: string, maxPages: number): Promise<string[]> {
  const p = validateProfile(
    testProfileJson(name, [`${origin}/`], path.join(tmp, name), { limits: { maxPages }, focus: { keywords: ['tomato', 'compost'] } }),
    name, tmp,
  );
  asked.length = 0;
  await (await Crawl.start(p, { log: captureIo().stderr, quiet: true })).done;
  return [...asked];
}

describe('a focused crawl with a budget', () => {
  it('fetches the embeds of relevant pages at once and those of off-topic pages after every scored link', async () => {
    // robots.txt, the seed, /a/tomato.html, its two embeds, /b.html: 6; then room for 2 more.
    const order = await crawl('budget', 8);
    const at = (p: string): number => order.indexOf(p);
    assert.ok(at('/a/tomato.html') > 0 && at('/b.html') > at('/a/tomato.html'), order.join(' '));
    assert.ok(at('/site.css') > at('/a/tomato.html') && at('/site.css') < at('/b.html'), `the shared stylesheet with /a/tomato.html: ${order.join(' ')}`);
    assert.ok(at('/a.png') > at('/a/tomato.html') && at('/a.png') < at('/b.html'), order.join(' '));
    assert.equal(order.filter((p) => p === '/site.css').length, 1, order.join(' '));
    const seedImage = at('/seed.png');
    assert.ok(seedImage === -1 || seedImage > at('/b.html'), `the off-topic seed's image waits: ${order.join(' ')}`);
  });

  it('fetches every embed in the end when the budget allows, each once', async () => {
    const order = await crawl('all', 100);
    for (const p of ['/site.css', '/seed.png', '/a.png', '/o1.png', '/o2.png', '/o3.png']) assert.equal(order.filter((a) => a === p).length, 1, `${p}: ${order.join(' ')}`);
  });
});

describe('a focused crawl without a budget', () => {
  it('keeps the frontier\'s order: an off-topic page\'s embeds are not held back (patience and deferral are for budgets)', async () => {
    // README: links wait for pages in flight or better links, and off-topic pages' embeds wait,
    // only in a crawl with a page or byte budget. Without one, the seed's embeds go before its
    // links, as in any crawl (the frontier serves a page's embeds first).
    const order = await crawl('unbudgeted', 0);
    const at = (p: string): number => order.indexOf(p);
    assert.ok(at('/seed.png') > 0 && at('/seed.png') < at('/a/tomato.html'), `the seed's image before its links: ${order.join(' ')}`);
    assert.ok(at('/site.css') > 0 && at('/site.css') < at('/a/tomato.html'), `the seed's stylesheet before its links: ${order.join(' ')}`);
    for (const p of ['/o1.html', '/o2.html', '/o3.html', '/b.html']) assert.ok(at(p) > 0, `${p} crawled: ${order.join(' ')}`);
  });
});
