/**
 * Issue 26: on real sites a focused crawl fell back to breadth-first. The
 * seed counted as score 1, so every link on an off-topic front page
 * inherited 0.5, while a relevant page passed on only its relevance — a
 * cosine of 0.05–0.3 for a topic given by keywords — and the front page's
 * whole table of contents was fetched before the topic's neighbourhood.
 * Besides, with no politeness delay the host's next URI was chosen while
 * the page before it was still having its links placed.
 *
 * The hand-built web: an off-topic seed links to 50 off-topic pages, to one
 * relevant hub under an anchor that says nothing ("Section 26", in the
 * middle of the list), and after the list to one page whose anchor names
 * the topic.
 * The hub links to ten relevant pages (anchors that say nothing either) and
 * back to the seed. With keywords alone and a budget, the page named by its
 * anchor comes before every off-topic page, and once the hub is fetched its
 * ten pages come before any off-topic page not yet fetched. Order judged
 * from the server's side: the order requests arrived in.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { validateProfile } from '../../src/config/load-profile.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { captureIo } from '../helpers/capture.js';
import { pageMapFixture } from '../helpers/page-map-server.js';
import { testProfileJson } from '../helpers/test-profile.js';

const OFF_TOPIC = 50;
const HUB_AT = 25;
const HUB_PAGES = 10;
const OFF_WORDS = 'railway timetable platform ticket carriage departure station signal';
const ON_WORDS = 'tomato compost seedlings tomato greenhouse compost watering tomato';

function page(title: string, body: string, links: ReadonlyArray<[href: string, anchor: string]>, more = ''): string {
  const list = links.map(([href, anchor]) => `<li><a href="${href}">${anchor}</a></li>`).join('\n');
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p><ul>\n${list}\n</ul>${more}</body></html>`;
}

/** Words enough that the text around one link does not reach its neighbours'. */
const PADDING = 'The opening hours of the reading room change with the seasons of the year. '.repeat(2);

function site(): Map<string, string> {
  const pages = new Map<string, string>();
  const seedLinks: Array<[string, string]> = [];
  for (let i = 0; i < OFF_TOPIC; i++) {
    if (i === HUB_AT) seedLinks.push(['/s/26.html', 'Section 26']);
    const n = i < HUB_AT ? i : i + 1;
    seedLinks.push([`/s/${n}.html`, `Section ${n}`]);
    pages.set(`/s/${n}.html`, page(`Section ${n}`, `${OFF_WORDS} ${OFF_WORDS}`, [['/', 'Home']]));
  }
  const named = `<p>${PADDING}<a href="/s/named.html">Tomato compost</a> ${PADDING}</p>`;
  pages.set('/', page('Welcome', `${OFF_WORDS}. Contents of this site below.`, seedLinks, named));
  pages.set('/s/named.html', page('Section 52', `${ON_WORDS} ${ON_WORDS}`, [['/', 'Home']]));
  const hubLinks: Array<[string, string]> = [['/', 'Home']];
  for (let i = 0; i < HUB_PAGES; i++) {
    hubLinks.push([`/h/${i}.html`, `Part ${i}`]);
    pages.set(`/h/${i}.html`, page(`Part ${i}`, `${ON_WORDS} ${OFF_WORDS}`, [['/s/26.html', 'Up']]));
  }
  pages.set('/s/26.html', page('Section 26', `${ON_WORDS} ${ON_WORDS} ${ON_WORDS}`, hubLinks));
  return pages;
}

const fixture = pageMapFixture('focus-hub', site);

describe('a focused crawl from an off-topic seed', () => {
  it('fetches the page its anchor names, then the relevant hub\'s neighbourhood, before the seed\'s other links', async () => {
    const name = 'hub';
    const p = validateProfile(
      testProfileJson(name, [`${fixture.web.origin}/`], path.join(fixture.tmp, name), { limits: { maxPages: 45 }, focus: { keywords: ['tomato', 'compost'] } }),
      name, fixture.tmp,
    );
    fixture.web.asked.length = 0;
    const summary = await (await Crawl.start(p, { log: captureIo().stderr, quiet: true })).done;
    assert.equal(summary.status, 'FINISHED_DOCUMENT_LIMIT');
    const pages = fixture.web.asked.filter((a) => a.endsWith('.html'));
    const offTopic = (a: string): boolean => a.startsWith('/s/') && a !== '/s/26.html' && a !== '/s/named.html';
    const firstOff = pages.findIndex(offTopic);
    assert.ok(pages.indexOf('/s/named.html') >= 0 && pages.indexOf('/s/named.html') < firstOff, `the page named by its anchor first: ${pages.slice(0, 5).join(' ')}`);
    const hub = pages.indexOf("/s/26.html");
    assert.ok(hub >= 0, 'the hub was fetched within the budget');
    const afterHub = pages.slice(hub + 1, hub + 1 + HUB_PAGES);
    assert.deepEqual(afterHub.filter(offTopic), [], `after the hub: ${afterHub.join(' ')}`);
    assert.equal(new Set(afterHub.filter((a) => a.startsWith('/h/'))).size, HUB_PAGES);
    // The budget was not spent on the seed's table of contents first: the hub came before most of it.
    assert.ok(pages.slice(0, hub).filter(offTopic).length <= HUB_AT, `${pages.slice(0, hub).filter(offTopic).length} off-topic pages before the hub`);
  });
});
