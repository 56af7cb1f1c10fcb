/**
 * Reading WARCs with links extracted on worker threads tells the graph
 * exactly what reading in one thread does, call for call and in the same
 * order. Under `npm test` (compiled JavaScript) the workers really run;
 * from the TypeScript sources they fall back by design.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PageLinksPool } from '../../src/analysis/page-links.js';
import { WarcReader, type CaptureSink } from '../../src/analysis/warc-reader.js';
import { pageHtml, warcBytes, type PageSpec } from './synthetic.js';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'archiver-pagelinks-'));
after(() => fs.rm(dir, { recursive: true, force: true }));

function recordingSink(calls: string[]): CaptureSink {
  return {
    captured: (url) => void calls.push(`captured ${url}`),
    page: (url, title, links) => void calls.push(`page ${url} ${title} ${links.join(' ')}`),
    redirect: (url, location) => void calls.push(`redirect ${url} ${location}`),
    revisit: (url, refersTo, isPage) => void calls.push(`revisit ${url} ${refersTo} ${isPage}`),
  };
}

test('worker-extracted links reach the graph in record order, identical to one-thread reading', async () => {
  const specs: PageSpec[] = [];
  for (let i = 0; i < 400; i++) {
    const links = Array.from({ length: 12 }, (_, k) => `/p/${(i * 7 + k) % 400}#frag`);
    const padding = i % 5 === 0 ? '' : `<p>${'text '.repeat(500)}</p>`; // every fifth page is small (stays in-thread)
    specs.push({ url: `http://site.test/p/${i}`, html: pageHtml(`Page ${i}`, links).replace('</body>', `${padding}</body>`) });
    if (i % 50 === 0) specs.push({ url: `http://site.test/old/${i}`, status: 301, headers: { Location: `/p/${i}` } });
    if (i % 70 === 0) specs.push({ url: `http://site.test/p/${i}`, type: 'revisit', refersTo: `http://site.test/p/${i}` });
  }
  const files: string[] = [];
  for (let f = 0; f < 3; f++) {
    const file = path.join(dir, `part-${f}.warc.gz`);
    await fs.writeFile(file, await warcBytes(specs.filter((_, i) => i % 3 === f), true));
    files.push(file);
  }
  const hooks = { warn: (m: string) => assert.fail(m) };
  const here: string[] = [];
  await new WarcReader(recordingSink(here), hooks).readFiles(files);
  const pool = new PageLinksPool(2);
  const threaded: string[] = [];
  await new WarcReader(recordingSink(threaded), hooks, (page) => pool.extract(page)).readFiles(files);
  const compiled = import.meta.url.endsWith('.js');
  assert.equal(pool.fellBack, !compiled, compiled ? 'the workers should have run' : 'from sources extraction stays here');
  await pool.close();
  assert.ok(here.length > 800, `${here.length} sink calls`);
  assert.deepEqual(threaded, here);
});
