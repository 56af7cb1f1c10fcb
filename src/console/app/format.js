// Numbers, sizes, times and statuses as the page shows them.

const nf = new Intl.NumberFormat('en-US');

export function count(n) {
  return n === null || n === undefined ? '–' : nf.format(n);
}

export function bytes(n) {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[u]}`;
}

export function rate(n) {
  if (n === null || n === undefined) return '–';
  return n >= 100 ? nf.format(Math.round(n)) : n.toFixed(1);
}

export function duration(sec) {
  if (sec === null || sec === undefined) return '–';
  const s = Math.round(sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m ${String(r).padStart(2, '0')}s` : `${r}s`;
}

/** Local time of an ISO string: time only when today, date and time otherwise. */
export function time(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date().toDateString() === d.toDateString();
  const clock = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  return today ? clock : `${d.toLocaleDateString()} ${clock}`;
}

export function statusClass(status) {
  if (status < 0) return 'status-bad';
  if (status < 300) return 'status-ok';
  if (status < 400) return 'status-redirect';
  if (status < 500) return 'status-client';
  return 'status-bad';
}

/** An element with attributes (`class`, `title`, `data-*`…) and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}
