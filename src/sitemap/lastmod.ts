/**
 * `<lastmod>`: a W3C Datetime (YYYY, YYYY-MM, YYYY-MM-DD, or with a time
 * hh:mm[:ss[.s]] and a zone), kept on the queued URI as written, and made
 * into a priority for the frontier's `priority` precedence (and a
 * best-first order to come): the more recently a page changed, the higher.
 *
 * The priority is the lastmod's day since 1970 divided by 100,000: it grows
 * with the date, stays inside (0, 1) for 1970-2243, so every page a sitemap
 * dates goes before undated links (priority 0) and the most recently
 * changed first, while whole numbers stay free for stronger signals (a
 * topic score, an operator's boost) to rank above it.
 */

const W3C_DATETIME = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;
const MS_PER_DAY = 86_400_000;
const DAYS_PER_UNIT = 100_000;

/** Epoch ms of a W3C Datetime, or null when it is not one (or not a real date). */
export function lastmodTime(value: string): number | null {
  const m = W3C_DATETIME.exec(value.trim());
  if (m === null) return null;
  const [, y, mo = '01', d = '01', h, mi, s = '00', fraction = '', zone] = m;
  const iso = h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}${zone}`;
  const ms = Date.parse(iso);
  // Date.parse rolls 2024-02-31 over to March; a date that does not round-trip is no date.
  if (!Number.isFinite(ms) || new Date(Date.parse(`${y}-${mo}-${d}T00:00:00Z`)).toISOString().slice(0, 10) !== `${y}-${mo}-${d}`) return null;
  return ms;
}

/** The queue priority of a page last modified at `value`; 0 when undated or before 1970. */
export function lastmodPriority(value: string): number {
  const ms = lastmodTime(value);
  return ms === null || ms <= 0 ? 0 : ms / MS_PER_DAY / DAYS_PER_UNIT;
}
