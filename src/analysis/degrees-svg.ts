/**
 * A log-log scatter plot of the in- and out-degree distributions as a
 * stand-alone SVG a browser opens directly: x = degree, y = number of pages
 * with that degree, one point per distinct degree. Degree 0 has no place on
 * a log axis; its counts are given in the legend instead.
 */
import type { DegreeSummary } from './degrees.js';

const WIDTH = 720;
const HEIGHT = 480;
const MARGIN = { left: 70, right: 24, top: 40, bottom: 56 };
const SERIES = [
  { name: 'in-degree', color: '#1f77b4' },
  { name: 'out-degree', color: '#ff7f0e' },
] as const;

/** 1, 10, 100, 1k, 10k, 1M … */
function decadeLabel(exp: number): string {
  if (exp < 3) return String(10 ** exp);
  if (exp < 6) return `${10 ** (exp - 3)}k`;
  if (exp < 9) return `${10 ** (exp - 6)}M`;
  return `1e${exp}`;
}

/** Pages of degree 0 have no place on a log axis: the legend counts them. */
function zeroNote(zero: number): string {
  if (zero === 0) return '';
  return ` (${zero} ${zero === 1 ? 'page' : 'pages'} of degree 0, not shown)`;
}

export function degreesSvg(inDeg: DegreeSummary, outDeg: DegreeSummary): string {
  const series = [inDeg, outDeg].map((s) => s.frequencies.filter(([d]) => d > 0));
  const maxDegree = Math.max(1, ...series.flat().map(([d]) => d));
  const maxCount = Math.max(1, ...series.flat().map(([, c]) => c));
  // Axes span whole decades; at least one decade so a tiny graph still has a scale.
  const xDecades = Math.max(1, Math.ceil(Math.log10(maxDegree + 1)));
  const yDecades = Math.max(1, Math.ceil(Math.log10(maxCount + 1)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (d: number): number => MARGIN.left + (Math.log10(d) / xDecades) * plotW;
  const y = (c: number): number => MARGIN.top + plotH - (Math.log10(c) / yDecades) * plotH;
  const f = (v: number): string => v.toFixed(1);

  const parts: string[] = [];
  parts.push(
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<title>Degree distributions (log-log)</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15">Degree distributions (log-log)</text>`,
  );
  // Grid and decade ticks.
  for (let e = 0; e <= xDecades; e++) {
    const px = f(x(10 ** e));
    parts.push(
      `<line x1="${px}" y1="${MARGIN.top}" x2="${px}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`,
      `<text x="${px}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${decadeLabel(e)}</text>`,
    );
  }
  for (let e = 0; e <= yDecades; e++) {
    const py = f(y(10 ** e));
    parts.push(
      `<line x1="${MARGIN.left}" y1="${py}" x2="${MARGIN.left + plotW}" y2="${py}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${decadeLabel(e)}</text>`,
    );
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">degree</text>`,
    `<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">pages</text>`,
  );
  series.forEach((points, i) => {
    const { name, color } = SERIES[i]!;
    parts.push(`<g fill="${color}" fill-opacity="0.75"><title>${name}</title>`);
    for (const [d, c] of points) parts.push(`<circle cx="${f(x(d))}" cy="${f(y(c))}" r="3"/>`);
    parts.push(`</g>`);
  });
  // Legend, with the pages of degree 0 that the log axis cannot show.
  [inDeg, outDeg].forEach((s, i) => {
    const { name, color } = SERIES[i]!;
    const zero = s.frequencies.find(([d]) => d === 0)?.[1] ?? 0;
    const ly = MARGIN.top + 18 + i * 18;
    const lx = MARGIN.left + plotW - 290;
    parts.push(
      `<circle cx="${lx}" cy="${ly}" r="4" fill="${color}"/>`,
      `<text x="${lx + 10}" y="${ly}" dominant-baseline="middle">${name}${zeroNote(zero)}</text>`,
    );
  });
  parts.push(`</svg>`);
  return parts.join('\n') + '\n';
}
