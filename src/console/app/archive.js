// The Archive view: the captures list, the search, a capture's details and its
// replay in the embedded viewer.
import { ApiError } from './api.js';
import { bytes, count, el, statusClass, time } from './format.js';
import { $, CAPTURES_PAGE, HITS_PAGE, api, live, report, s } from './state.js';

export async function loadCaptures() {
  if (!s.job) return;
  let page;
  try {
    page = await api.get('/api/captures', { job: s.job, offset: s.captures.offset, limit: CAPTURES_PAGE, pages: $('pages-only').checked ? 1 : 0, order: $('captures-order').value });
  } catch (err) {
    return report(err);
  }
  s.captures.total = page.total;
  const rows = page.rows.map((c) => {
    const tr = el('tr', { class: 'selectable' },
      el('td', { class: 'title-cell' }, el('span', { class: 't', text: c.title || '(no title)', title: c.title || '' }), el('span', { class: 'u', text: c.url, title: c.url })),
      el('td', { class: `num ${statusClass(c.status)}`, text: String(c.status) }), el('td', { text: c.mime || '–', title: c.revisit ? 'a revisit: the payload was archived earlier' : null }, c.revisit ? el('span', { class: 'tag', text: 'revisit' }) : null),
      el('td', { class: 'num', text: bytes(c.size) }), el('td', { text: time(c.timestamp) }));
    tr.addEventListener('click', () => {
      for (const r of $('captures-table').tBodies[0].rows) r.classList.remove('selected');
      tr.classList.add('selected');
      openCapture(c.url, ts14(c.timestamp), c.title);
    });
    return tr;
  });
  $('captures-table').tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 5, class: 'empty', text: 'No captures yet.' }))]));
  const from = page.total === 0 ? 0 : s.captures.offset + 1;
  $('captures-page').textContent = `${count(from)}–${count(s.captures.offset + page.rows.length)} of ${count(page.total)}`;
  $('captures-prev').disabled = s.captures.offset === 0;
  $('captures-next').disabled = s.captures.offset + CAPTURES_PAGE >= page.total;
}

function ts14(iso) {
  return iso ? iso.replace(/[-:T]/g, '').slice(0, 14) : '';
}

export async function search(offset = 0) {
  const q = $('search-input').value.trim();
  if (!q) return;
  s.search.q = q;
  s.search.offset = offset;
  const info = $('search-info');
  info.textContent = 'Searching…';
  let result;
  try {
    result = await api.get('/api/search', { job: s.job, q, limit: HITS_PAGE, offset });
  } catch (err) {
    $('hits').replaceChildren();
    $('hits-pager').hidden = true;
    info.textContent = err instanceof ApiError && err.status === 503 ? 'Search is not available in this console: no search engine is wired in.' : `Search failed: ${err.message}`;
    return;
  }
  s.search.total = result.total;
  info.textContent = `${count(result.total)} result${result.total === 1 ? '' : 's'} (${result.tookMs} ms)`;
  $('hits').replaceChildren(
    ...result.hits.map((h) => {
      const snippet = el('div', { class: 'hit-snippet' });
      // The engine escapes everything but its <mark> elements.
      snippet.innerHTML = h.snippet;
      const li = el('li', {}, el('div', { class: 'hit-title', text: h.title || h.url }), el('div', { class: 'hit-url', text: h.url }), snippet,
        el('div', { class: 'hit-meta', text: `${time(h.timestamp)} · ${h.status} · ${h.mime}` }));
      li.addEventListener('click', () => openCapture(h.url, ts14(h.timestamp), h.title));
      return li;
    }),
  );
  $('hits-pager').hidden = result.total <= HITS_PAGE;
  $('hits-page').textContent = `${count(offset + 1)}–${count(offset + result.hits.length)} of ${count(result.total)}`;
  $('hits-prev').disabled = offset === 0;
  $('hits-next').disabled = offset + HITS_PAGE >= result.total;
}

export function closeDetail() {
  $('detail').hidden = true;
  $('replay-frame').removeAttribute('src');
  s.selected = null;
}

export async function openCapture(url, ts, title = null) {
  s.selected = { url, ts };
  let page;
  try {
    page = await api.get('/api/page', { job: s.job, url, ts });
  } catch (err) {
    return report(err);
  }
  $('detail').hidden = false;
  $('detail-title').textContent = page.title || title || url;
  const facts = [
    ['URL', url],
    ['Status', String(page.status ?? '–')],
    ['Type', page.revisit ? 'revisit (payload archived earlier)' : page.mime || '–'],
    ['Size', bytes(page.size)],
    ['Digest', page.digest ?? '–'],
    ['Captured', `${time(page.timestamp)} (${page.timestamp})`],
    ['PageRank', page.pagerank ? `#${page.pagerank.rank} (${page.pagerank.score.toExponential(3)})` : 'not analysed (archiver analyze <job> --out <job>/analysis)'],
  ];
  $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  const linkItem = (l) => {
    const a = el('a', { href: '#', text: l.url });
    a.addEventListener('click', (e) => {
      e.preventDefault();
      openCapture(l.url, '');
    });
    return el('li', {}, el('span', { class: 'hop', text: l.hop }), ' ', a);
  };
  $('out-count').textContent = `(${count(page.outlinkCount)})`;
  $('outlinks').replaceChildren(...(page.outlinks.length ? page.outlinks.map(linkItem) : [el('li', { class: 'empty', text: 'none' })]));
  if (page.inlinks) {
    $('in-count').textContent = `(${count(page.inlinkCount)})`;
    $('inlinks').replaceChildren(...(page.inlinks.length ? page.inlinks.map(linkItem) : [el('li', { class: 'empty', text: 'none' })]));
  } else {
    $('in-count').textContent = '';
    const why = page.inlinksState === 'building' ? 'Indexing the links of the job…' : page.inlinksState === 'failed' ? 'The links index could not be built.' : 'Known once the crawl has finished.';
    $('inlinks').replaceChildren(el('li', { class: 'empty', text: why }));
    if (page.inlinksState === 'building') setTimeout(() => s.selected?.url === url && openCapture(url, ts, title), 2000);
  }
  await showReplay(url, page.ts);
}

async function showReplay(url, ts) {
  if (s.replaySource === null || live()) {
    try {
      s.replaySource = (await api.get('/api/replay', { job: s.job })).source;
    } catch (err) {
      return report(err);
    }
  }
  const params = new URLSearchParams({ source: s.replaySource, url, ts });
  const frame = $('replay-frame');
  const src = `/embed/replay.html?${params}`;
  if (frame.getAttribute('src') !== src) frame.setAttribute('src', src);
}

