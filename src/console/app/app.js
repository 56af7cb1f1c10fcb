// The console page: picks the job, shows the live crawl (status, controls,
// speed chart, queues, hosts, crawl.log) and the archive (captures, search,
// a capture's details and its replay). Everything it shows comes from the
// console's API; the live parts from its event stream.
import { Api, ApiError } from './api.js';
import { drawChart, smoothRates } from './chart.js';
import { bytes, count, duration, el, rate, statusClass, time } from './format.js';

const api = new Api();
const $ = (id) => document.getElementById(id);
const CHART_WINDOW_MS = 5 * 60 * 1000;
const LOG_ROWS = 40;
const HOSTS_PAGE = 25;
const CAPTURES_PAGE = 30;
const HITS_PAGE = 10;

const s = {
  info: null,
  jobs: [],
  job: null,
  status: null,
  samples: [],
  events: null,
  tab: 'crawl',
  hosts: { sort: 'fetched', order: 'desc', offset: 0 },
  captures: { offset: 0, total: 0 },
  search: { q: '', offset: 0, total: 0 },
  selected: null,
  replaySource: null,
};

function notice(text, error = false) {
  const box = $('notice');
  box.textContent = text;
  box.classList.toggle('error', error);
  box.hidden = !text;
}

function live() {
  return s.status !== null && s.status.state !== 'finished';
}

// ——— tabs and jobs ———

function showTab(tab) {
  s.tab = tab;
  for (const name of ['jobs', 'crawl', 'archive']) {
    $(`view-${name}`).hidden = name !== tab;
    $(`tab-${name}`).classList.toggle('active', name === tab);
  }
  writeHash();
  if (tab === 'archive') loadCaptures();
  if (tab === 'jobs') loadJobs();
  if (tab === 'crawl') redrawCrawl();
}

function writeHash() {
  const h = new URLSearchParams();
  if (s.job && s.info && !s.info.job) h.set('job', s.job);
  h.set('tab', s.tab);
  history.replaceState(null, '', `${location.pathname}${location.search}#${h}`);
}

async function loadJobs() {
  try {
    s.jobs = await api.get('/api/jobs');
  } catch (err) {
    return report(err);
  }
  const select = $('job-select');
  const current = s.job;
  select.replaceChildren(...s.jobs.map((j) => el('option', { value: j.name, text: `${j.name} — ${j.state}` })));
  if (current) select.value = current;
  const body = $('jobs-table').tBodies[0];
  body.replaceChildren(
    ...s.jobs.map((j) => {
      const link = el('a', { href: '#', text: j.name });
      link.addEventListener('click', (e) => {
        e.preventDefault();
        selectJob(j.name).then(() => showTab(j.state === 'finished' || j.state === 'interrupted' ? 'archive' : 'crawl'));
      });
      return el('tr', {}, el('td', {}, link), el('td', {}, endingBadge(j)), el('td', { class: 'num', text: count(j.pages) }),
        el('td', { text: time(j.started) }), el('td', { text: time(j.ended) }), el('td', { text: j.wacz ?? '–' }));
    }),
  );
  $('jobs-empty').hidden = s.jobs.length > 0;
}

// What ended a job, not only that it ended: a job that archived nothing, or that a limit stopped, is not "finished".
function endingBadge(j) {
  if (!j.ending) return el('span', { class: `badge ${j.state}`, text: j.state });
  const text = j.resumable ? `${j.ending} (resumable)` : j.ending;
  const title = j.resumable ? 'archiver run with its profile goes on with it' : j.endReason ?? '';
  return el('span', { class: `badge ending-${j.ending.replaceAll(' ', '-')}`, text, title });
}

async function loadProfiles() {
  try {
    const profiles = await api.get('/api/profiles');
    $('profile-select').replaceChildren(...profiles.map((p) => el('option', { value: p, text: p })));
    $('start-card').hidden = profiles.length === 0;
  } catch (err) {
    report(err);
  }
}

async function selectJob(name) {
  if (s.events) s.events.close();
  s.events = null;
  s.job = name;
  s.status = null;
  s.wide = null;
  s.samples = [];
  s.captures.offset = 0;
  s.search = { q: '', offset: 0, total: 0 };
  $('hits').replaceChildren();
  $('hits-pager').hidden = true;
  $('search-info').textContent = '';
  $('search-input').value = '';
  closeDetail();
  s.replaySource = null;
  $('job-select').value = name;
  writeHash();
  await refreshStatus();
  try {
    const history = await api.get('/api/crawl/history', { job: name });
    s.samples = history.map((x) => ({ t: Date.parse(x.time), ...x }));
  } catch {
    s.samples = [];
  }
  redrawCrawl();
  await loadLog();
  if (live()) openEvents();
  if (s.tab === 'archive') loadCaptures();
}

// ——— the crawl ———

async function refreshStatus() {
  try {
    renderStatus(await api.get('/api/crawl', { job: s.job }));
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ARCHIVER_CONSOLE_NO_STATUS') renderStatus(null, 'interrupted');
    else report(err);
  }
}

function renderStatus(status, fallbackState = '…') {
  s.status = status;
  const state = status ? status.state : fallbackState;
  const badge = $('state-badge');
  badge.textContent = state;
  const option = [...$('job-select').options].find((o) => o.value === s.job);
  if (option) option.textContent = `${s.job} — ${state}`;
  badge.className = `badge ${state}`;
  const v = (id, text) => ($(id).textContent = text);
  v('c-uris', count(status?.uris));
  v('c-pages', count(status?.pages));
  v('c-bytes', bytes(status?.bytes));
  v('c-errors', count(status?.errors));
  v('c-queued', count(status?.queued));
  v('c-rate', rate(status?.urisPerSec));
  v('c-kbps', rate(status?.kbPerSec));
  v('c-elapsed', duration(status?.elapsedSec));
  // Browser capture: shown only for a crawl that renders pages.
  $('c-tabs-box').hidden = !status?.browser;
  if (status?.browser) v('c-tabs', `${status.browser.busyTabs}/${status.browser.tabs} · ${count(status.browser.pagesRendered)}`);
  $('btn-pause').disabled = state !== 'running';
  $('btn-resume').disabled = state !== 'paused';
  $('btn-stop').disabled = state !== 'running' && state !== 'paused';
  // Seeds and exclusions steer a running crawl: a finished one has nothing to steer.
  const steerable = state === 'running' || state === 'paused';
  $('steer-row').hidden = !steerable;
  for (const id of ['seeds-form', 'exclude-form']) for (const c of $(id).elements) c.disabled = !steerable;
  const end = $('end-reason');
  end.hidden = !(status && status.endReason);
  if (status && status.endReason) end.textContent = `Ended: ${status.endReason}`;
  const names = { ready: 'ready', inProcess: 'in process', snoozed: 'snoozed', inactive: 'inactive', retired: 'retired', exhausted: 'exhausted' };
  $('queue-states').replaceChildren(
    ...Object.entries(names).map(([k, label]) => {
      const n = status ? status.queues[k] : null;
      return el('li', { class: n ? '' : 'zero' }, el('span', { text: label }), el('b', { text: count(n) }));
    }),
  );
  // Only /api/crawl carries the whole crawl (the event stream's statuses are this node's): kept between its reads.
  if (status && status.crawl) s.wide = status.crawl;
  renderNodes(status ? (s.wide ?? null) : null);
  const waiting = status ? status.waiting : [];
  $('waiting').replaceChildren(
    ...(waiting.length === 0 ? [el('li', { class: 'empty', text: 'none' })] : waiting.map((w) => el('li', {}, el('b', { text: w.host }), ` ${w.reason}, until ${time(w.until)}`))),
  );
}

/** A crawl of several processes: every node, and the whole crawl's totals and queues (the counters above are this node's). */
function renderNodes(wide) {
  $('nodes-card').hidden = wide === null;
  if (wide === null) return;
  const t = wide.totals;
  $('nodes-totals').textContent = `${t.liveNodes} alive · ${count(t.pages)} pages · ${bytes(t.bytes)} · ${rate(t.pagesPerSec)} pages/s · ${count(t.inFlight)} in flight`;
  $('nodes').replaceChildren(
    ...wide.nodes.map((n) =>
      el('tr', { class: n.alive ? '' : 'zero' }, ...[n.node, n.alive ? 'yes' : 'no', count(n.pages), bytes(n.bytes), rate(n.pagesPerSec), count(n.inFlight), time(n.lastHeartbeat)].map((text) => el('td', { text }))),
    ),
  );
  const q = wide.queues;
  const states = Object.entries(q.byState).map(([k, v]) => `${k} ${count(v)}`).join(', ');
  $('nodes-queues').textContent = `Queues of the whole crawl: ${states || 'no live node'}; waiting for a node ${count(q.waitingForNode)}, held ${count(q.held)}, retired ${count(q.retired)}; ${count(q.queuedUris)} URIs queued.`;
}

function openEvents() {
  const es = new EventSource(`/api/events?job=${encodeURIComponent(s.job)}`);
  s.events = es;
  es.addEventListener('status', (e) => renderStatus(JSON.parse(e.data)));
  es.addEventListener('progress', (e) => {
    const { status, sample } = JSON.parse(e.data);
    renderStatus(status);
    s.samples.push({ t: Date.parse(sample.time), ...sample });
    if (s.wide && Date.now() - (s.wideAt ?? 0) > 2000) {
      s.wideAt = Date.now();
      refreshStatus();
    }
    if (s.samples.length > 1000) s.samples.shift();
    if (s.tab === 'crawl') drawCharts();
  });
  es.addEventListener('state', (e) => {
    const { status } = JSON.parse(e.data);
    renderStatus(status);
    if (status.state === 'finished') {
      es.close();
      s.events = null;
      setTimeout(() => {
        refreshStatus();
        loadJobs();
      }, 1500);
    }
  });
  const onLine = (e) => addLogRow(JSON.parse(e.data), true);
  es.addEventListener('capture', onLine);
  es.addEventListener('failure', onLine);
  es.addEventListener('host', () => loadHosts());
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) notice('The live view lost its connection to the console.', true);
  };
}

function drawCharts() {
  // Rates of one-second samples jump between 0 and 1 at low speed: drawn as averages over a window (chart.js).
  const pts = (key) => smoothRates(s.samples.map((x) => ({ t: x.t, v: x[key] })));
  const first = s.samples[0];
  const last = s.samples[s.samples.length - 1];
  // A live crawl: the last minutes up to now (the window grows from one minute to CHART_WINDOW_MS).
  // A crawl that is over: its whole history, read back from its crawl.log.
  const over = !live() && first && last;
  const end = over ? last.t : Date.now();
  const windowMs = over ? Math.max(1_000, last.t - first.t) : Math.min(CHART_WINDOW_MS, Math.max(60_000, first ? Date.now() - first.t : 0));
  $('speed-hint').textContent = over ? 'the whole crawl, from its crawl.log' : '';
  drawChart($('chart-rate'), [
    { points: pts('urisPerSec'), line: 'line-uris' },
    { points: pts('pagesPerSec'), line: 'line-pages', area: 'area-pages' },
  ], windowMs, end, over ? 'end' : 'now');
  drawChart($('chart-kb'), [{ points: pts('kbPerSec'), line: 'line-kb', area: 'area-kb' }], windowMs, end, over ? 'end' : 'now');
}

function redrawCrawl() {
  drawCharts();
  loadHosts();
}

async function control(action) {
  try {
    const { state } = await api.post(`/api/crawl/${action}?job=${encodeURIComponent(s.job)}`);
    if (s.status) renderStatus({ ...s.status, state });
    await refreshStatus();
  } catch (err) {
    report(err);
  }
}

async function loadHosts() {
  if (!s.job) return;
  let hosts;
  try {
    hosts = await api.get('/api/hosts', { job: s.job, sort: s.hosts.sort, order: s.hosts.order, offset: s.hosts.offset, limit: HOSTS_PAGE + 1 });
  } catch (err) {
    return report(err);
  }
  const more = hosts.length > HOSTS_PAGE;
  const rows = hosts.slice(0, HOSTS_PAGE).map((h) => {
    const wait = h.closed ? `closed: ${h.closed.cause} (${h.closed.status})` : h.waiting ? `${h.waiting.reason}, until ${time(h.waiting.until)}` : '';
    return el('tr', {}, el('td', { text: h.host }), el('td', { class: 'num', text: count(h.fetched) }), el('td', { class: 'num', text: bytes(h.bytes) }),
      el('td', { class: 'num', text: count(h.errors) }), el('td', { class: 'num', text: h.delayMs === null ? '–' : `${h.delayMs} ms` }),
      el('td', { text: h.robots ?? '–' }), el('td', { class: h.closed ? 'status-bad' : h.waiting ? 'status-client' : '', text: wait }));
  });
  $('hosts-table').tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 7, class: 'empty', text: 'No hosts yet.' }))]));
  for (const th of $('hosts-table').tHead.rows[0].cells) {
    th.classList.toggle('sorted-asc', th.dataset.sort === s.hosts.sort && s.hosts.order === 'asc');
    th.classList.toggle('sorted-desc', th.dataset.sort === s.hosts.sort && s.hosts.order === 'desc');
  }
  $('hosts-prev').disabled = s.hosts.offset === 0;
  $('hosts-next').disabled = !more;
  $('hosts-page').textContent = rows.length ? `${s.hosts.offset + 1}–${s.hosts.offset + rows.length}` : '';
}

function logRow(line, fresh) {
  const notes = line.annotations ? line.annotations.join(', ') : line.duplicate ? 'duplicate:digest' : '';
  // Rendered in the browser (browser capture): from a streamed capture, or its crawl.log annotation.
  const rendered = line.rendered === true || (line.annotations ?? []).some((a) => a.startsWith('rendered:'));
  return el('tr', { class: fresh ? 'fresh' : '', 'data-key': `${line.time}|${line.url}` }, el('td', { text: time(line.time) }), el('td', { class: `num ${statusClass(line.status)}`, text: String(line.status) }),
    el('td', { class: 'num', text: line.size === null || line.size === undefined ? '–' : bytes(line.size) }),
    el('td', { class: 'url', text: rendered ? `◧ ${line.url}` : line.url, ...(rendered ? { title: 'rendered in the browser' } : {}) }),
    el('td', { text: line.hopPath || '–' }), el('td', { text: line.mime || '–' }), el('td', { text: notes }));
}

function addLogRow(line, fresh) {
  const body = $('log-table').tBodies[0];
  // A line may come both from the stream and from the last tail read.
  const key = `${line.time}|${line.url}`;
  for (const row of body.rows) if (row.dataset.key === key) return;
  body.prepend(logRow(line, fresh));
  while (body.rows.length > LOG_ROWS) body.deleteRow(body.rows.length - 1);
}

async function loadLog() {
  try {
    const lines = await api.get('/api/log', { job: s.job, tail: LOG_ROWS });
    $('log-table').tBodies[0].replaceChildren(...lines.reverse().map((l) => logRow(l, false)));
  } catch (err) {
    report(err);
  }
}

// ——— the archive ———

async function loadCaptures() {
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

async function search(offset = 0) {
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

function closeDetail() {
  $('detail').hidden = true;
  $('replay-frame').removeAttribute('src');
  s.selected = null;
}

async function openCapture(url, ts, title = null) {
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

// ——— wiring ———

function report(err) {
  if (err instanceof ApiError && err.status === 401) notice('The console token is missing or wrong: open the console with the address archiver printed (it ends in #token=…).', true);
  else if (err instanceof TypeError) notice('The console is not reachable (has the crawl ended?).', true);
  else notice(err.message, true);
}

function wire() {
  for (const button of $('tabs').querySelectorAll('button')) button.addEventListener('click', () => showTab(button.dataset.tab));
  $('job-select').addEventListener('change', () => selectJob($('job-select').value));
  $('btn-pause').addEventListener('click', () => control('pause'));
  $('btn-resume').addEventListener('click', () => control('resume'));
  $('btn-stop').addEventListener('click', () => {
    if (confirm('Stop the crawl? In-flight fetches finish; the job can be resumed later with archiver run.')) control('stop');
  });
  $('seeds-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const urls = $('seeds-input').value.split(/\s+/).filter(Boolean);
    if (urls.length === 0) return;
    const out = $('seeds-result');
    try {
      const r = await api.post(`/api/crawl/seeds?job=${encodeURIComponent(s.job)}`, { urls });
      out.replaceChildren(el('div', { class: 'ok', text: `Added ${r.added.length}.` }), ...r.rejected.map((x) => el('div', { class: 'bad', text: `${x.url}: ${x.reason}` })));
      if (r.added.length) $('seeds-input').value = '';
    } catch (err) {
      out.replaceChildren(el('div', { class: 'bad', text: err.message }));
    }
  });
  $('exclude-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const regex = $('exclude-input').value;
    const out = $('exclude-result');
    try {
      const r = await api.post(`/api/crawl/exclude?job=${encodeURIComponent(s.job)}`, { regex });
      out.replaceChildren(el('div', { class: 'ok', text: r.added ? `Excluded ${regex}: new links are refused, queued ones dropped as they come up.` : `${regex} was excluded already.` }));
      $('exclude-input').value = '';
    } catch (err) {
      out.replaceChildren(el('div', { class: 'bad', text: err.message }));
    }
  });
  for (const th of $('hosts-table').tHead.rows[0].cells) {
    if (!th.dataset.sort) continue;
    th.addEventListener('click', () => {
      const key = th.dataset.sort;
      s.hosts.order = s.hosts.sort === key ? (s.hosts.order === 'asc' ? 'desc' : 'asc') : key === 'host' ? 'asc' : 'desc';
      s.hosts.sort = key;
      s.hosts.offset = 0;
      loadHosts();
    });
  }
  $('hosts-prev').addEventListener('click', () => {
    s.hosts.offset = Math.max(0, s.hosts.offset - HOSTS_PAGE);
    loadHosts();
  });
  $('hosts-next').addEventListener('click', () => {
    s.hosts.offset += HOSTS_PAGE;
    loadHosts();
  });
  $('captures-prev').addEventListener('click', () => {
    s.captures.offset = Math.max(0, s.captures.offset - CAPTURES_PAGE);
    loadCaptures();
  });
  $('captures-next').addEventListener('click', () => {
    s.captures.offset += CAPTURES_PAGE;
    loadCaptures();
  });
  for (const id of ['pages-only', 'captures-order']) {
    $(id).addEventListener('change', () => {
      s.captures.offset = 0;
      loadCaptures();
    });
  }
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    search(0);
  });
  $('search-clear').addEventListener('click', () => {
    $('search-input').value = '';
    $('hits').replaceChildren();
    $('hits-pager').hidden = true;
    $('search-info').textContent = '';
  });
  $('hits-prev').addEventListener('click', () => search(Math.max(0, s.search.offset - HITS_PAGE)));
  $('hits-next').addEventListener('click', () => search(s.search.offset + HITS_PAGE));
  $('detail-close').addEventListener('click', closeDetail);
  $('start-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const r = await api.post('/api/jobs', { profile: $('profile-select').value });
      await loadJobs();
      await selectJob(r.job);
      showTab('crawl');
    } catch (err) {
      report(err);
    }
  });
}

async function main() {
  wire();
  try {
    s.info = await api.open();
  } catch (err) {
    report(err);
    return;
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  const serve = !s.info.job;
  $('tab-jobs').hidden = !serve;
  if (s.info.startsJobs) await loadProfiles();
  await loadJobs();
  const wanted = s.info.job ?? hash.get('job') ?? (s.jobs.find((j) => j.state === 'running') ?? s.jobs[0])?.name;
  // archiver serve opens on its list of jobs; run --console on its crawl.
  const tab = hash.get('tab') ?? (serve ? 'jobs' : 'crawl');
  if (wanted) await selectJob(wanted);
  showTab(['jobs', 'crawl', 'archive'].includes(tab) && (tab !== 'jobs' || serve) ? tab : 'crawl');
  setInterval(() => {
    if (!s.job) return;
    if (s.tab === 'crawl' && live()) {
      loadHosts();
      loadLog();
      if (!s.events) refreshStatus();
    }
    if (s.tab === 'crawl') drawCharts();
    if (s.tab === 'archive' && live() && s.captures.offset === 0) loadCaptures();
  }, 3000);
  if (serve) setInterval(loadJobs, 5000);
}

main();
