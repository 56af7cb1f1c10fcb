/**
 * A crawl's harvest on the labelled topical web, judged from the server's
 * side (its request log) and the pages' labels — never from the crawler's
 * own scores: the HTML pages it answered 200 for, in the order they were
 * served, and of those the ones labelled with the topic. Also the server's
 * view of politeness: the most requests one host had in flight at once,
 * and the disallowed URLs asked for.
 */
import type { RequestLogEntry } from '../../src/demo/request-log.js';
import type { PageLabel } from './topical-web.js';

export interface Harvest {
  /** Labelled pages served with 200. */
  pages: number;
  /** Of those, labelled with the topic. */
  relevant: number;
  rate: number;
  /** The rate so far after every `step` pages (and at the end). */
  curve: Array<{ pages: number; rate: number }>;
  /** Most requests to one host in flight at once. */
  maxInFlightPerHost: number;
  /** Disallowed URLs that were requested. */
  disallowedAsked: string[];
}

export function harvestOf(requests: readonly RequestLogEntry[], labels: ReadonlyMap<string, PageLabel>, topic: PageLabel, disallowed: readonly string[] = [], step = 50): Harvest {
  const ordered = [...requests].sort((a, b) => a.startMs - b.startMs);
  const forbidden = new Set(disallowed);
  let pages = 0;
  let relevant = 0;
  let maxInFlight = 0;
  const curve: Harvest['curve'] = [];
  const asked: string[] = [];
  for (const r of ordered) {
    maxInFlight = Math.max(maxInFlight, r.inFlightAtStart);
    const url = `http://${r.host}${r.path}`;
    if (forbidden.has(url)) asked.push(url);
    const label = labels.get(url);
    if (label === undefined || r.status !== 200) continue;
    pages++;
    if (label === topic) relevant++;
    if (pages % step === 0) curve.push({ pages, rate: relevant / pages });
  }
  if (pages % step !== 0) curve.push({ pages, rate: pages === 0 ? 0 : relevant / pages });
  return { pages, relevant, rate: pages === 0 ? 0 : relevant / pages, curve, maxInFlightPerHost: maxInFlight, disallowedAsked: asked };
}
