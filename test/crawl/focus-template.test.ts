/**
 * Issue 26, third round: on held-out documentation sites a relevant page's
 * navigation — "previous" and "next", its neighbours in the book, off the
 * topic — inherited the page's relevance like the links of its text, and
 * came first, being first in the page. Template links (src/focus/
 * template-links.ts) inherit less, below the links of the page's text: a
 * `<link rel=prev|next>` nothing, at once; an `<a>` half, once its words
 * recur on half the pages placed (and three).
 *
 * The hand-built book: an off-topic front page lists 20 off-topic chapters
 * and, under anchors that name the topic, three chapters about it, placed
 * in the book's order between off-topic ones. Every chapter opens with a
 * navigation bar (previous | contents | next) and its text; a chapter about
 * the topic links in its text to two more pages about it, under anchors
 * that say nothing of the topic (and differ from chapter to chapter). Order judged from the server's side.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { servePageMap, type PageMapServer } from '../helpers/page-map-server.js';
import { testProfileJson } from '../helpers/test-profile.js';

const OFF_WORDS = 'railway timetable platform ticket carriage departure station signal';
const ON_WORDS = 'tomato compost seedlings tomato greenhouse compost watering tomato';
const PADDING = 'The opening hours of the reading room change with the seasons of the year. '.repeat(2);
const CHAPTERS = 20;
/** The chapters about the topic, by the off-topic chapter they follow in the book. */
const ON_TOPIC_AFTER = new Map([[4, 'a'], [9, 'b'], [14, 'c']]);
const NAMES: Record<string, string> = { a: 'sowing', b: 'potting', c: 'harvesting' };

/** The book's order: c0 … c4, a, c5 … c9, b, c10 … */
function order(): string[] {
  const out: string[] = [];
  for (let i = 0; i < CHAPTERS; i++) {
    out.push(`/c${i}.html`);
    const t = ON_TOPIC_AFTER.get(i);
    if (t !== undefined) out.push(`/t/${t}.html`);
  }
  return out;
}

function chapter(title: string, body: string, prev: string, next: string, headLinks: boolean, text: string): string {
  const head = headLinks ? `<link rel="prev" href="${prev}"><link rel="next" href="${next}">` : '';
  const nav = `<p><a href="${prev}">previous</a> | <a href="/">contents</a> | <a href="${next}">next</a></p>`;
  return `<!doctype html><html><head><title>${title}</title>${head}</head><body>${nav}<p>${PADDING}</p><h1>${title}</h1><p>${body}</p>${text}</body></html>`;
}

function book(headLinks: boolean): Map<string, string> {
  const pages = new Map<string, string>();
  const seq = order();
  const toc: string[] = [];
  seq.forEach((p, i) => {
    const prev = seq[i - 1] ?? '/';
    const next = seq[i + 1] ?? '/';
    if (p.startsWith('/t/')) {
      const t = p.slice(3, 4);
      toc.push(`<li><a href="${p}">Tomato compost ${t}</a></li>`);
      const parts = `<p>${PADDING}<a href="/t/${t}1.html">${NAMES[t]} first part</a> ${PADDING}<a href="/t/${t}2.html">${NAMES[t]} second part</a> ${PADDING}</p>`;
      pages.set(p, chapter(`Chapter ${t}`, `${ON_WORDS} ${ON_WORDS} ${ON_WORDS}`, prev, next, headLinks, parts));
      for (const n of [1, 2]) pages.set(`/t/${t}${n}.html`, chapter(`Part ${t}${n}`, `${ON_WORDS} ${ON_WORDS}`, p, p, headLinks, ''));
    } else {
      toc.push(`<li><a href="${p}">Chapter ${p.slice(2, -5)}</a></li>`);
      pages.set(p, chapter(`Chapter ${p.slice(2, -5)}`, `${OFF_WORDS} ${OFF_WORDS}`, prev, next, headLinks, ''));
    }
  });
  pages.set('/', `<!doctype html><html><head><title>The book</title></head><body><h1>The book</h1><p>${OFF_WORDS}</p><ul>${toc.join('\n')}</ul></body></html>`);
  return pages;
}

let tmp: string;
const webs: PageMapServer[] = [];
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'archiver-focus-template-'));
});
after(async () => {
  for (const w of webs) await w.close();
  await rm(tmp, { recursive: true, force: true });
});

async function crawl(name: string, headLinks: boolean): Promise<string[]> {
  const web = await servePageMap(book(headLinks));
  webs.push(web);
  const origin = web.origin;
  // robots.txt, the front page, three chapters, six parts, and three more.
  const p = validateProfile(
    testProfileJson(name, [`${origin}/`], path.join(tmp, name), { limits: { maxPages: 14 }, focus: { keywords: ['tomato', 'compost'] } }),
    name, tmp,
  );
  const summary = await (await Crawl.start(p, { log: captureIo().stderr, quiet: true })).done;
  assert.equal(summary.status, 'FINISHED_DOCUMENT_LIMIT');
  return web.asked.filter((a) => a.endsWith('.html'));
}

const offTopic = (a: string): boolean => /^\/c\d+\.html$/.test(a);
const parts = (a: string): boolean => /^\/t\/[abc][12]\.html$/.test(a);

describe('a focused crawl of a book whose every page has the same navigation', () => {
  it('fetches the parts a relevant chapter\'s text links to before its neighbours, once "previous" and "next" recur', async () => {
    const pages = await crawl('anchors', false);
    assert.deepEqual(pages.slice(0, 3).sort(), ['/t/a.html', '/t/b.html', '/t/c.html'], pages.join(' '));
    // The last chapter's navigation is placed on the fourth page, "previous" and "next" seen on three of them.
    const lastParts = Math.max(pages.indexOf('/t/c1.html'), pages.indexOf('/t/c2.html'));
    assert.ok(lastParts > 0, `the last chapter's parts within the budget: ${pages.join(' ')}`);
    for (const neighbour of ['/c14.html', '/c15.html']) {
      const at = pages.indexOf(neighbour);
      assert.ok(at < 0 || at > lastParts, `${neighbour} after the parts: ${pages.join(' ')}`);
    }
  });

  it('fetches every part before any off-topic chapter when the navigation is also given as <link rel=prev|next>', async () => {
    const pages = await crawl('head-links', true);
    const firstOff = pages.findIndex(offTopic);
    assert.equal(pages.filter(parts).length, 6, pages.join(' '));
    assert.ok(firstOff < 0 || pages.slice(firstOff).filter(parts).length === 0, `off-topic chapter before a part: ${pages.join(' ')}`);
  });
});
