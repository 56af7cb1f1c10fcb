/**
 * The site bench's generated sites of tiny pages (bench/real-sites.ts): the
 * flat one and the long crawl's tree, read back with the link extractor the
 * crawl uses, and the CPU per request.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cpuPerRequestMs, pickSites, TINY_PAGES, TINY_TREE, UnknownSiteError, writeTinySite, writeTinyTree } from '../../bench/real-sites.js';
import { extractHtml } from '../../src/fetch/link-extractor.js';

test('the generated site: a front page linking each tiny page once, pages linking nowhere', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tiny-site-'));
  try {
    await writeTinySite(dir, 25);
    const files = (await readdir(dir)).sort();
    assert.equal(files.length, 26);
    const front = extractHtml(await readFile(path.join(dir, 'index.html'), 'utf8'), 'http://127.0.0.1:8080/');
    const linked = front.links.map((l) => l.url).sort();
    assert.deepEqual(linked, files.filter((f) => f !== 'index.html').map((f) => `http://127.0.0.1:8080/${f}`).sort());
    const page = extractHtml(await readFile(path.join(dir, 'p7.html'), 'utf8'), 'http://127.0.0.1:8080/p7.html');
    assert.deepEqual(page.links, []);
    assert.equal(page.title, 'p7');
    assert.ok((await stat(path.join(dir, 'p7.html'))).size < 128, 'about 100 bytes');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the long crawl\'s tree: a front page linking each section, each section its own pages once', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tiny-tree-'));
  try {
    await writeTinyTree(dir, { sections: 3, pagesPerSection: 4 });
    const files = (await readdir(dir)).sort();
    assert.equal(files.length, 1 + 3 + 12);
    const linksOf = async (name: string): Promise<string[]> =>
      extractHtml(await readFile(path.join(dir, name), 'utf8'), `http://127.0.0.1:8080/${name}`).links.map((l) => l.url.slice('http://127.0.0.1:8080/'.length)).sort();
    assert.deepEqual(await linksOf('index.html'), ['s0.html', 's1.html', 's2.html']);
    assert.deepEqual(await linksOf('s1.html'), ['p4.html', 'p5.html', 'p6.html', 'p7.html']);
    assert.deepEqual(await linksOf('p11.html'), []);
    assert.ok((await stat(path.join(dir, 'p11.html'))).size < 128, 'about 100 bytes');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the defaults begin with the generated site; `--site tiny-pages` or `tiny-tree` names one alone', () => {
  const said: string[] = [];
  assert.equal(pickSites([], (l) => said.push(l))[0], TINY_PAGES);
  assert.ok(!pickSites([], () => {}).includes(TINY_TREE), 'the long crawl is not a default');
  assert.deepEqual(pickSites(['tiny-pages'], () => {}), [TINY_PAGES]);
  assert.deepEqual(pickSites(['tiny-tree'], () => {}), [TINY_TREE]);
  assert.deepEqual(pickSites(['pg=/srv/pg'], () => {}), [{ name: 'pg', root: '/srv/pg' }]);
  // A default site's name alone is its document root (it was an empty root: nginx refused its config, and every tool fetched nothing).
  assert.deepEqual(pickSites(['postgresql-doc-15'], () => {}), [{ name: 'postgresql-doc-15', root: '/usr/share/doc/postgresql-doc-15/html' }]);
  assert.throws(() => pickSites(['pg'], () => {}), (e: unknown) => e instanceof UnknownSiteError && /^--site pg: not a site the bench knows \(tiny-pages, tiny-tree, python3\.11-doc, .*\); give its document root as pg=ROOT$/.test(e.message));
});

test('CPU per request in ms, none without requests', () => {
  assert.equal(cpuPerRequestMs({ cpuSecs: 2.1, requests: 1201 }), '1.75');
  assert.equal(cpuPerRequestMs({ cpuSecs: 0.5, requests: 0 }), '–');
});
