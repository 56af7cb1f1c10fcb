/**
 * Relevance labels for a documentation site on disk, computed without any
 * of archiver's code (the focus model's tokenizer, stop words and scores
 * stay out of it), the way a reader would judge a page at a glance: strip
 * scripts, styles and tags from each HTML file with regular expressions,
 * decode the few entities that matter, fold to lower case, split at every
 * character that is not a letter or a digit, and count the words of the
 * topic. A page is relevant when it holds at least `minMentions` of them.
 *
 * The harvest of a crawl is then read from the web server's access log:
 * the HTML pages it answered 200 for, in the order it answered them.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface SiteLabels {
  /** Every HTML page, by its path on the server (`/library/asyncio.html`), with its count of topic words. */
  mentions: Map<string, number>;
  minMentions: number;
  relevant: number;
}

const TAGGED_BLOCK = /<(script|style)\b[\s\S]*?<\/\1\s*>/gi;
const COMMENT = /<!--[\s\S]*?-->/g;
const TAG = /<[^>]*>/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", '#160': ' ' };

/** The words of an HTML file's text, lower case. */
export function pageWords(html: string): string[] {
  const text = html
    .replace(TAGGED_BLOCK, ' ')
    .replace(COMMENT, ' ')
    .replace(TAG, ' ')
    .replace(/&(#?\w+);/g, (m, e: string) => ENTITIES[e.toLowerCase()] ?? ' ');
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
}

/** Labels of every `.html` file under `root` for a topic of `words` (each one word, any case). */
export async function labelSite(root: string, words: readonly string[], minMentions: number): Promise<SiteLabels> {
  const topic = new Set(words.map((w) => w.toLowerCase()));
  const mentions = new Map<string, number>();
  for (const file of await htmlFiles(root)) {
    const html = await fs.readFile(file, 'utf8');
    let n = 0;
    for (const w of pageWords(html)) if (topic.has(w)) n++;
    mentions.set('/' + path.relative(root, file).split(path.sep).join('/'), n);
  }
  let relevant = 0;
  for (const n of mentions.values()) if (n >= minMentions) relevant++;
  return { mentions, minMentions, relevant };
}

async function htmlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await htmlFiles(p)));
    else if (e.name.endsWith('.html') && (e.isFile() || e.isSymbolicLink())) out.push(p);
  }
  return out.sort();
}

export interface AccessLogHarvest {
  /** HTML pages of the site served 200, in the order served. */
  pages: number;
  relevant: number;
  rate: number;
  /** The rate so far after each quarter of the pages. */
  quarters: number[];
}

/**
 * The harvest read from an nginx access log (its default `combined`
 * format): pages are the site's HTML files answered 200 (`/` as
 * `/index.html`), each counted once; `exclude` (training pages) left out.
 */
export function harvestFromAccessLog(log: string, labels: SiteLabels, exclude: ReadonlySet<string> = new Set()): AccessLogHarvest {
  const seen = new Set<string>();
  const relevantAt: boolean[] = [];
  for (const line of log.split('\n')) {
    const m = /"GET (\S+) HTTP\/[\d.]+" (\d{3}) /.exec(line);
    if (m === null || m[2] !== '200') continue;
    let p = decodeURIComponent(m[1]!.split('?')[0]!.split('#')[0]!);
    if (p.endsWith('/')) p += 'index.html';
    const n = labels.mentions.get(p);
    if (n === undefined || seen.has(p) || exclude.has(p)) continue;
    seen.add(p);
    relevantAt.push(n >= labels.minMentions);
  }
  const pages = relevantAt.length;
  const relevant = relevantAt.filter(Boolean).length;
  const rateAt = (k: number): number => (k === 0 ? 0 : relevantAt.slice(0, k).filter(Boolean).length / k);
  return { pages, relevant, rate: rateAt(pages), quarters: [1, 2, 3].map((q) => rateAt(Math.round((q / 4) * pages))) };
}
