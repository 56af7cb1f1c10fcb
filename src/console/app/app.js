// The console page: picks the job, shows the live crawl (status, controls,
// speed chart, queues, hosts, crawl.log) and the archive (captures, search,
// a capture's details and its replay). Everything it shows comes from the
// console's API; the live parts from its event stream.
import { ApiError } from './api.js';
import { closeDetail, loadCaptures, search } from './archive.js';
import { drawChart, smoothRates } from './chart.js';
import { bytes, count, duration, el, rate, time } from './format.js';
import { $, CAPTURES_PAGE, CHART_WINDOW_MS, HITS_PAGE, HOSTS_PAGE, api, live, notice, report, s } from './state.js';
import { addLogRow, loadHosts, loadLog } from './tables.js';

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


// ——— the archive ———

// ——— wiring ———


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
