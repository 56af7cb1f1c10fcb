/**
 * Degree distribution summaries: min, median, mean, max, and a histogram
 * with logarithmic (power-of-two) bins — web degree distributions are heavy
 * tailed, so linear bins would put almost everything in the first one.
 * Bins: "0", "1", "2-3", "4-7", "8-15", … up to the bin holding the max;
 * empty bins in between are kept so the shape is visible.
 */
export interface DegreeSummary {
  min: number;
  median: number;
  mean: number;
  max: number;
  /** Bin label → number of nodes, bins in ascending order. */
  histogram: Record<string, number>;
  /** Exact degree → number of nodes, ascending by degree (for the log-log plot). */
  frequencies: [degree: number, count: number][];
}

/** Index of the log bin holding degree d: 0 → 0, 1 → 1, 2–3 → 2, 4–7 → 3, … */
export function logBinIndex(d: number): number {
  return d === 0 ? 0 : 32 - Math.clz32(d);
}

export function logBinLabel(index: number): string {
  if (index <= 1) return String(index);
  const lo = 2 ** (index - 1);
  return `${lo}-${2 * lo - 1}`;
}

export function summarizeDegrees(degrees: Int32Array): DegreeSummary {
  const n = degrees.length;
  if (n === 0) return { min: 0, median: 0, mean: 0, max: 0, histogram: {}, frequencies: [] };
  let max = 0;
  let min = Infinity;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const d = degrees[i]!;
    if (d > max) max = d;
    if (d < min) min = d;
    sum += d;
  }
  // Counting by exact degree gives the median and the plot without sorting n values.
  const counts = new Float64Array(max + 1);
  for (let i = 0; i < n; i++) counts[degrees[i]!]!++;
  const median = (kth(counts, Math.floor((n - 1) / 2)) + kth(counts, Math.floor(n / 2))) / 2;

  const bins = new Array<number>(logBinIndex(max) + 1).fill(0);
  const frequencies: [number, number][] = [];
  for (let d = 0; d <= max; d++) {
    const c = counts[d]!;
    if (c === 0) continue;
    frequencies.push([d, c]);
    bins[logBinIndex(d)]! += c;
  }
  const histogram: Record<string, number> = {};
  bins.forEach((c, i) => (histogram[logBinLabel(i)] = c));
  return { min, median, mean: sum / n, max, histogram, frequencies };
}

/** The k-th smallest (0-based) value given counts per value. */
function kth(counts: Float64Array, k: number): number {
  let seen = 0;
  for (let d = 0; d < counts.length; d++) {
    seen += counts[d]!;
    if (seen > k) return d;
  }
  return counts.length - 1;
}
