// The Crawl view's tables: hosts (paged, sorted on the server) and the tail of
// crawl.log (fed by the event stream).
import { bytes, count, el, statusClass, time } from './format.js';
import { $, HOSTS_PAGE, LOG_ROWS, api, report, s } from './state.js';

export async function loadHosts() {
  if (!s.job) return;
  let hosts;
  try {
    hosts = await api.get('/api/hosts', { job: s.job, sort: s.hosts.sort, order: s.hosts.order, offset: s.hosts.offset, limit: HOSTS_PAGE + 1 });
  } catch (err) {
    return report(err);
  }
  const more = hosts.length > HOSTS_PAGE;
  // A crawl of several processes: whose figures each row has (a node's own console shows its own hosts live, the others' from the store).
  const byNode = hosts.some((h) => 'node' in h);
  $('hosts-node').hidden = !byNode;
  const rows = hosts.slice(0, HOSTS_PAGE).map((h) => {
    const wait = h.closed ? `closed: ${h.closed.cause} (${h.closed.status})` : h.waiting ? `${h.waiting.reason}, until ${time(h.waiting.until)}` : '';
    const node = byNode ? [el('td', { text: h.node ?? '–' })] : [];
    return el('tr', {}, el('td', { text: h.host }), ...node, el('td', { class: 'num', text: count(h.fetched) }), el('td', { class: 'num', text: bytes(h.bytes) }),
      el('td', { class: 'num', text: count(h.errors) }), el('td', { class: 'num', text: h.delayMs === null ? '–' : `${h.delayMs} ms` }),
      el('td', { text: h.robots ?? '–' }), el('td', { class: h.closed ? 'status-bad' : h.waiting ? 'status-client' : '', text: wait }));
  });
  $('hosts-table').tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: byNode ? 8 : 7, class: 'empty', text: 'No hosts yet.' }))]));
  for (const th of $('hosts-table').tHead.rows[0].cells) {
    th.classList.toggle('sorted-asc', th.dataset.sort === s.hosts.sort && s.hosts.order === 'asc');
    th.classList.toggle('sorted-desc', th.dataset.sort === s.hosts.sort && s.hosts.order === 'desc');
  }
  $('hosts-prev').disabled = s.hosts.offset === 0;
  $('hosts-next').disabled = !more;
  $('hosts-page').textContent = rows.length ? `${s.hosts.offset + 1}–${s.hosts.offset + rows.length}` : '';
}

function logRow(line, fresh) {
  const said = line.annotations ? line.annotations.join(', ') : line.duplicate ? 'duplicate:digest' : '';
  // A crawl of several processes: which node's crawl-<node>.log the line is from.
  const notes = line.node ? [`node ${line.node}`, said].filter(Boolean).join(' · ') : said;
  // Rendered in the browser (browser capture): from a streamed capture, or its crawl.log annotation.
  const rendered = line.rendered === true || (line.annotations ?? []).some((a) => a.startsWith('rendered:'));
  return el('tr', { class: fresh ? 'fresh' : '', 'data-key': `${line.time}|${line.url}` }, el('td', { text: time(line.time) }), el('td', { class: `num ${statusClass(line.status)}`, text: String(line.status) }),
    el('td', { class: 'num', text: line.size === null || line.size === undefined ? '–' : bytes(line.size) }),
    el('td', { class: 'url', text: rendered ? `◧ ${line.url}` : line.url, ...(rendered ? { title: 'rendered in the browser' } : {}) }),
    el('td', { text: line.hopPath || '–' }), el('td', { text: line.mime || '–' }), el('td', { text: notes }));
}

export function addLogRow(line, fresh) {
  const body = $('log-table').tBodies[0];
  // A line may come both from the stream and from the last tail read.
  const key = `${line.time}|${line.url}`;
  for (const row of body.rows) if (row.dataset.key === key) return;
  body.prepend(logRow(line, fresh));
  while (body.rows.length > LOG_ROWS) body.deleteRow(body.rows.length - 1);
}

export async function loadLog() {
  try {
    const lines = await api.get('/api/log', { job: s.job, tail: LOG_ROWS });
    $('log-table').tBodies[0].replaceChildren(...lines.reverse().map((l) => logRow(l, false)));
  } catch (err) {
    report(err);
  }
}
