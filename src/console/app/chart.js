// A small line chart drawn as SVG: the last minutes of one or two series (or
// a whole finished crawl), time on x, a rounded maximum on y with three grid
// lines; and the smoothing of the rates it draws.

const NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 170;
const PAD = { left: 44, right: 8, top: 8, bottom: 20 };

function svg(tag, attrs) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** 1, 2, 5 × 10^n at or above `v` (at least 1). */
function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function label(v) {
  return v >= 1000 ? `${Math.round(v / 100) / 10}k` : String(Math.round(v * 10) / 10);
}

/** Averages over at least SMOOTH_MIN_MS, widened up to SMOOTH_MAX_MS until SMOOTH_EVENTS are in it. */
const SMOOTH_MIN_MS = 5_000;
const SMOOTH_MAX_MS = 60_000;
const SMOOTH_EVENTS = 10;

/**
 * Rates (`v` per second since the previous point) as trailing averages: at
 * 0.3 URIs/s one-second samples read 0, 0, 1, 0, 0, 1, a sawtooth. Each point
 * becomes what happened over the time before it that holds SMOOTH_EVENTS
 * (at least SMOOTH_MIN_MS, at most SMOOTH_MAX_MS), over that time.
 */
export function smoothRates(points) {
  const out = [];
  for (let i = 0; i < points.length; i++) {
    let events = 0;
    let span = 0;
    for (let j = i; j > 0; j--) {
      const dt = points[j].t - points[j - 1].t;
      if (span > 0 && span + dt > SMOOTH_MAX_MS) break;
      events += points[j].v * (dt / 1000);
      span += dt;
      if (span >= SMOOTH_MIN_MS && events >= SMOOTH_EVENTS) break;
    }
    out.push({ t: points[i].t, v: span > 0 ? events / (span / 1000) : points[i].v });
  }
  return out;
}

/** `40 s`, `5 min`, `3 h 20 min` */
function span(ms) {
  if (ms < 90_000) return `${Math.round(ms / 1000)} s`;
  const minutes = Math.round(ms / 60000);
  if (minutes < 120) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  return `${h} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/**
 * Draws `series` ([{points: [{t: epochMs, v}], line: class, area?: class}])
 * into `container`, over the window [end - windowMs, end] (end: now, or the
 * last sample of a crawl that is over, labelled `endLabel`).
 */
export function drawChart(container, series, windowMs, end = Date.now(), endLabel = 'now') {
  const now = end;
  const from = now - windowMs;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.points.filter((p) => p.t >= from).map((p) => p.v))));
  const x = (t) => PAD.left + ((t - from) / windowMs) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img' });
  for (const f of [0, 0.5, 1]) {
    const yy = y(max * f);
    root.append(svg('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: yy, y2: yy }));
    const tick = svg('text', { class: 'tick', x: PAD.left - 6, y: yy + 3, 'text-anchor': 'end' });
    tick.textContent = label(max * f);
    root.append(tick);
  }
  for (const [t, text, anchor] of [[from, `−${span(windowMs)}`, 'start'], [now, endLabel, 'end']]) {
    const tick = svg('text', { class: 'tick', x: x(t), y: H - 5, 'text-anchor': anchor });
    tick.textContent = text;
    root.append(tick);
  }
  for (const s of series) {
    const pts = s.points.filter((p) => p.t >= from);
    if (pts.length < 2) continue;
    const coords = pts.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`);
    if (s.area) {
      const base = y(0).toFixed(1);
      root.append(svg('polygon', { class: s.area, points: `${x(pts[0].t).toFixed(1)},${base} ${coords.join(' ')} ${x(pts[pts.length - 1].t).toFixed(1)},${base}` }));
    }
    root.append(svg('polyline', { class: s.line, points: coords.join(' ') }));
  }
  container.replaceChildren(root);
}
