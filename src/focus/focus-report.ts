/**
 * `reports/focus-report.txt` and `.json`: how well a focused crawl kept to
 * its topic, read from crawl.log at the end (so a resumed job's report
 * covers every run, in the order pages were fetched):
 *
 * - the harvest rate: relevant 2xx HTML pages (relevance at or above the
 *   threshold) ÷ 2xx HTML pages fetched, overall and over time (per window
 *   of 100 pages, 10 for crawls of fewer than 500 pages: each window's own
 *   rate and the rate so far). Training pages are the operator's choice, not
 *   the crawl's: they are counted apart, not in the rate;
 * - the pages of highest relevance;
 * - the links not followed for `restrictHops`, and the topic's heaviest terms.
 *
 * Memory: one byte per 10 pages for the curve, the top list, whatever the log's size.
 */
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { FocusOptions } from '../config/profile.js';
import { isPageCapture } from '../job/capture-journal.js';
import { FOCUS_RESTRICTED, FOCUS_RESTRICTED_STATUS, FOCUS_TRAINING, relevanceOf } from './annotations.js';
import type { TopicModel } from './topic-model.js';
import { parseCrawlLogLine } from '../writer/crawl-log.js';

export const TOP_PAGES = 20;
const TOPIC_TERMS_SHOWN = 20;
/** Pages per counting block: windows are made of whole blocks. */
const BLOCK = 10;

export interface HarvestPoint {
  /** Pages fetched so far (training pages not counted). */
  pages: number;
  relevant: number;
  /** The window's own harvest rate, and the rate so far. */
  windowRate: number;
  cumulativeRate: number;
  /** When the window's last page was logged (ISO 8601). */
  time: string;
}

export interface FocusFigures {
  /** 2xx HTML pages fetched, training pages not counted. */
  pages: number;
  relevant: number;
  /** relevant ÷ pages (0 without pages). */
  harvestRate: number;
  trainingPages: number;
  /** Pages without a relevance (captured before focus was turned on for the job). */
  unscored: number;
  /** Links not followed for `restrictHops`. */
  restricted: number;
  windowPages: number;
  curve: HarvestPoint[];
  top: Array<{ url: string; relevance: number; time: string }>;
}

/** The figures of a crawl.log (an absent log: all zero). */
export async function focusFigures(crawlLog: string, threshold: number): Promise<FocusFigures> {
  let blocks = new Uint8Array(1024);
  let blockTimes: string[] = [];
  let pages = 0;
  let relevant = 0;
  let trainingPages = 0;
  let unscored = 0;
  let restricted = 0;
  const top: FocusFigures['top'] = [];
  for await (const line of logLines(crawlLog)) {
    const parsed = parseCrawlLogLine(line);
    if (parsed === null) continue;
    const { status, annotations } = parsed;
    if (status === FOCUS_RESTRICTED_STATUS && annotations.includes(FOCUS_RESTRICTED)) {
      restricted++;
      continue;
    }
    if (!isPageCapture(status, parsed.mime ?? '', false)) continue;
    if (annotations.includes(FOCUS_TRAINING)) {
      trainingPages++;
      continue;
    }
    const relevance = relevanceOf(annotations);
    if (relevance === null) unscored++;
    const block = Math.floor(pages / BLOCK);
    if (block >= blocks.length) {
      const grown = new Uint8Array(blocks.length * 2);
      grown.set(blocks);
      blocks = grown;
    }
    pages++;
    blockTimes[block] = parsed.time;
    if (relevance !== null && relevance >= threshold) {
      relevant++;
      blocks[block]!++;
    }
    if (relevance !== null) keepTop(top, { url: parsed.url, relevance, time: parsed.time });
  }
  const windowPages = pages < 500 ? 10 : 100;
  const curve: HarvestPoint[] = [];
  let sum = 0;
  let windowRelevant = 0;
  for (let b = 0; b * BLOCK < pages; b++) {
    sum += blocks[b]!;
    windowRelevant += blocks[b]!;
    const seen = Math.min(pages, (b + 1) * BLOCK);
    if (seen % windowPages === 0 || seen === pages) {
      const size = seen - Math.floor((seen - 1) / windowPages) * windowPages;
      curve.push({ pages: seen, relevant: sum, windowRate: windowRelevant / size, cumulativeRate: sum / seen, time: blockTimes[b] ?? '' });
      windowRelevant = 0;
    }
  }
  blockTimes = [];
  return { pages, relevant, harvestRate: pages === 0 ? 0 : relevant / pages, trainingPages, unscored, restricted, windowPages, curve, top };
}

export interface FocusReportInput {
  crawlLog: string;
  reportsDir: string;
  focus: FocusOptions;
  /** The topic, when it was learnt. */
  model: TopicModel | null;
  /** A node of a shared crawl: its own report (`focus-report-NODE.*`) from its own crawl.log. */
  node?: string;
}

export async function writeFocusReport(i: FocusReportInput): Promise<FocusFigures> {
  const fig = await focusFigures(i.crawlLog, i.focus.threshold);
  const terms = i.model?.topTerms(TOPIC_TERMS_SHOWN) ?? [];
  const json = {
    weighting: i.focus.weighting,
    threshold: i.focus.threshold,
    restrictHops: i.focus.restrictHops,
    keywords: i.focus.keywords,
    training: i.focus.training,
    topic: i.model === null ? null : { trainingDocuments: i.model.nDoc, terms: i.model.size, languages: [...i.model.languages], heaviest: terms.map(([term, weight]) => ({ term, weight })) },
    ...fig,
  };
  const rate = (x: number): string => x.toFixed(3);
  const text = [
    'Focus report',
    `Weighting: ${i.focus.weighting}   Threshold: ${i.focus.threshold}   Restrict hops: ${i.focus.restrictHops}`,
    i.model === null
      ? 'Topic: not learnt (the crawl ended before its training pages were fetched)'
      : `Topic: ${i.model.size} terms from ${i.model.nDoc} training page(s) and ${i.focus.keywords.length} keyword(s); languages ${[...i.model.languages].join(' ') || '-'}`,
    ...(terms.length > 0 ? [`Heaviest terms: ${terms.map(([t, w]) => `${t} ${w.toPrecision(3)}`).join(', ')}`] : []),
    `HTML pages fetched (2xx): ${fig.pages}${fig.trainingPages > 0 ? ` (and ${fig.trainingPages} training page(s), not counted)` : ''}`,
    `Relevant pages (relevance >= ${i.focus.threshold}): ${fig.relevant}`,
    `Harvest rate: ${rate(fig.harvestRate)}`,
    ...(fig.unscored > 0 ? [`Pages without a relevance: ${fig.unscored}`] : []),
    `Links not followed (restrictHops): ${fig.restricted}`,
    '',
    `Harvest over time (per ${fig.windowPages} pages):`,
    table(['[pages]', '[relevant]', '[window-rate]', '[cumulative-rate]', '[time]'], fig.curve.map((p) => [String(p.pages), String(p.relevant), rate(p.windowRate), rate(p.cumulativeRate), p.time])),
    '',
    `Top pages by relevance:`,
    table(['[relevance]', '[url]'], fig.top.map((p) => [rate(p.relevance), p.url])),
  ].join('\n');
  const name = i.node === undefined ? 'focus-report' : `focus-report-${i.node}`;
  await writeFile(path.join(i.reportsDir, `${name}.txt`), text + '\n');
  await writeFile(path.join(i.reportsDir, `${name}.json`), JSON.stringify(json, null, 2) + '\n');
  return fig;
}

/** Keeps the TOP_PAGES of highest relevance, highest first (earlier first among equals). */
function keepTop(top: FocusFigures['top'], page: FocusFigures['top'][number]): void {
  if (top.length === TOP_PAGES && top[top.length - 1]!.relevance >= page.relevance) return;
  let i = top.length;
  while (i > 0 && top[i - 1]!.relevance < page.relevance) i--;
  top.splice(i, 0, page);
  if (top.length > TOP_PAGES) top.pop();
}

async function* logLines(file: string): AsyncGenerator<string> {
  const input = createReadStream(file, { encoding: 'utf8' });
  try {
    await new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve());
      input.once('error', reject);
    });
  } catch {
    return;
  }
  yield* createInterface({ input, crlfDelay: Infinity });
}

function table(header: string[], rows: string[][]): string {
  return [header.join(' '), ...rows.map((r) => r.join(' '))].join('\n');
}
