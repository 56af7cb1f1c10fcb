/**
 * What the scan keeps of a page does not keep the page: the tokenizer's
 * text runs are slices of the page's string (plain-run-tokenizer.ts), so
 * the text, the title and the style sheet's links are copied out of it
 * (own-string.ts). Measured in a child process with the collector exposed:
 * the results of reading ten pages of 8 MB each (one comment, a short text)
 * are kept, the pages dropped, and the heap must not hold them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ownString } from '../../src/fetch/own-string.js';

test('ownString: the same characters', () => {
  for (const s of ['', 'short', 'exactly 13 ch', 'a longer string than thirteen characters', 'ü'.repeat(40)]) assert.equal(ownString(s), s);
  const page = `<p>${'x'.repeat(100)}</p>`;
  assert.equal(ownString(page.slice(3, 50)), 'x'.repeat(47));
});

test('the text, title and links read from a page do not keep the page alive', () => {
  const extractor = new URL('../../src/fetch/link-extractor.js', import.meta.url).href;
  const child = `
    const { extractHtml } = await import(${JSON.stringify(extractor)});
    const kept = [];
    const page = (i) => '<title>A title of page ' + i + ', long enough to be a slice</title>' +
      '<style>body { background: url(/img/background-' + i + '.png) }</style>' +
      '<!--' + String(i).repeat(8 * 1024 * 1024) + '-->' +
      '<p>the only text of page ' + i + ', one run</p>';
    // In a function of its own, so that no page is left in this frame's registers when it returns.
    function readAll() {
      for (let i = 0; i < 10; i++) {
        const x = extractHtml(page(i), 'http://127.0.0.1/p' + i + '.html', { text: true });
        kept.push({ text: x.text, title: x.title, links: x.links.map((l) => l.url) });
      }
    }
    globalThis.gc(); globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    readAll();
    globalThis.gc(); globalThis.gc();
    const grown = process.memoryUsage().heapUsed - before;
    if (kept[3].text !== 'the only text of page 3, one run' || !kept[3].title.startsWith('A title') || !kept[3].links.some((u) => u.endsWith('background-3.png'))) throw new Error('unexpected extraction ' + JSON.stringify(kept[3]));
    console.log(JSON.stringify({ grownMb: grown / 1048576 }));
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', child], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const { grownMb } = JSON.parse(r.stdout.trim().split('\n').pop()!) as { grownMb: number };
  // Ten pages of 8 MB: kept, they would hold 80 MB (160 MB as two-byte strings); the results themselves are a few KB.
  assert.ok(grownMb < 4, `the heap grew by ${grownMb.toFixed(1)} MB while keeping the results of ten 8 MB pages`);
});
