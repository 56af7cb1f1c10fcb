// A small line chart drawn as SVG: the last minutes of one or two series,
// time on x, a rounded maximum on y with three grid lines.

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

/**
 * Draws `series` ([{points: [{t: epochMs, v}], line: class, area?: class}])
 * into `container`, over the window [now - windowMs, now].
 */
export function drawChart(container, series, windowMs) {
  const now = Date.now();
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
  const minutes = Math.round(windowMs / 60000);
  for (const [t, text, anchor] of [[from, `−${minutes} min`, 'start'], [now, 'now', 'end']]) {
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
