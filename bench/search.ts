/**
 * Search benchmark: index N synthetic pages of ~2 KB text (Zipf vocabulary
 * of 50,000 made-up words; every 20th page also carries Chinese text) with
 * one engine in this process, on one core, then time queries.
 *
 *   node dist/bench/search.js [--pages 100000] [--engine fts|minisearch] [--dir DIR]
 *
 * Engines: `fts` is archiver's (SearchStore: SQLite FTS5 on disk, text
 * prepared by text-prep.ts, batches of 500 pages per transaction);
 * `minisearch` is MiniSearch 7 in memory (title boosted ×4, all terms
 * required), the plain in-memory library it is compared with.
 *
 * Figures: indexing pages/s (wall and CPU; generation of the text not
 * counted), index bytes per page (on-disk files for fts, V8 heap growth for
 * minisearch), peak RSS; query latency p50/p95 over 1,000 queries of 1-3
 * words drawn by frequency from the vocabulary without its 100 most
 * frequent words (function words, which real queries rarely consist of),
 * and separately over 100 queries made only of those 100 words (the worst
 * case: each matches nearly every page); known-item accuracy: 1,000
 * phrases of 4 words each found on one page only, searched without quotes
 * (and with, for fts), counting how often that page comes first.
 *
 * Prints one `result {json}` line at the end for bench/run.ts.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './bench-args.js';
import MiniSearch from 'minisearch';
import { SearchCorpus } from '../test/helpers/search-corpus.js';
import { SearchStore } from '../src/search/search-store.js';
import type { SearchPage } from '../src/search/search-types.js';
import { mulberry32 } from '../test/helpers/prng.js';

const USAGE = 'usage: node dist/bench/search.js [--pages 100000] [--engine fts|minisearch] [--dir DIR] [--queries N]';

const { values } = benchArgs({
  options: {
    pages: { type: 'string', default: '100000' },
    engine: { type: 'string', default: 'fts' },
    dir: { type: 'string' },
    queries: { type: 'string', default: '1000' },
  },
}, { usage: USAGE });
const N = Number(values.pages);
const QUERIES = Number(values.queries);
const ENGINE = values.engine!;
const SEED = 20240501;
const TEXT_CHARS = 2000;
const KNOWN_ITEMS = Math.min(1000, Math.floor(N / 10));
const PHRASE_WORDS = 4;


/** The pages, generated afresh on each call (same seed, same pages): none is kept. */
function* pages(): Generator<{ i: number; ids: number[]; titleIds: number[]; page: SearchPage }, void, undefined> {
  const corpus = new SearchCorpus(mulberry32(SEED));
  for (let i = 0; i < N; i++) {
    const titleIds = corpus.textIds(40);
    const ids = corpus.textIds(TEXT_CHARS);
    let text = corpus.render(ids);
    if (i % 20 === 0) text += ' ' + corpus.chinese(60);
    yield {
      i,
      ids,
      titleIds,
      page: { url: `http://host${i % 500}.example/page/${i}`, timestamp: '2024-05-01T00:00:00Z', status: 200, mime: 'text/html', digest: null, title: corpus.render(titleIds), text },
    };
  }
}

/** Known items: a phrase of PHRASE_WORDS words from every (N / KNOWN_ITEMS)-th page, kept if no other page holds it. */
function knownItems(words: readonly string[]): { page: number; phrase: string }[] {
  const step = Math.floor(N / KNOWN_ITEMS);
  const pick = mulberry32(SEED + 1);
  const candidates = new Map<string, { page: number; count: number }>();
  /** The first three words of each candidate, as one number (ids < 2^16): most windows are ruled out by it. */
  const heads = new Set<number>();
  const head = (ids: readonly number[], j: number): number => ids[j]! * 2 ** 32 + ids[j + 1]! * 65536 + ids[j + 2]!;
  // Five candidate windows per target page; the first unique one is used.
  for (const { i, ids } of pages()) {
    if (i % step !== 0) continue;
    for (let k = 0; k < 5; k++) {
      const at = Math.floor(pick() * (ids.length - PHRASE_WORDS));
      const key = ids.slice(at, at + PHRASE_WORDS).join(',');
      if (!candidates.has(key)) candidates.set(key, { page: i, count: 0 });
      heads.add(head(ids, at));
    }
  }
  // Counted over titles too: a phrase in another page's title is another page holding it.
  for (const { ids: body, titleIds } of pages()) {
    const seen = new Set<string>();
    for (const ids of [titleIds, body]) {
      for (let j = 0; j + PHRASE_WORDS <= ids.length; j++) {
        if (!heads.has(head(ids, j))) continue;
        const key = ids.slice(j, j + PHRASE_WORDS).join(',');
        const c = candidates.get(key);
        if (c !== undefined && !seen.has(key)) {
          seen.add(key);
          c.count++;
        }
      }
    }
  }
  const byPage = new Map<number, string>();
  for (const [key, c] of candidates) {
    if (c.count !== 1 || byPage.has(c.page)) continue;
    byPage.set(c.page, key.split(',').map((id) => words[Number(id)]!).join(' '));
  }
  return [...byPage].map(([page, phrase]) => ({ page, phrase }));
}

function wordQueries(words: readonly string[], count: number, fromRank: number, toRank: number, seed: number): string[] {
  const corpus = new SearchCorpus(mulberry32(seed));
  const r = mulberry32(seed + 7);
  const out: string[] = [];
  while (out.length < count) {
    const n = 1 + Math.floor(r() * 3);
    const q: string[] = [];
    while (q.length < n) {
      const id = toRank === Infinity ? corpus.wordId() : Math.floor(r() * toRank);
      if (id >= fromRank && id < toRank) q.push(words[id]!);
    }
    out.push(q.join(' '));
  }
  return out;
}

interface Engine {
  addBatch(batch: SearchPage[]): void;
  finish(): void;
  /** URLs of the first hits. */
  query(q: string): string[];
  indexBytes(): number;
  close(): void;
}

function ftsEngine(dir: string): Engine {
  const store = SearchStore.open(dir);
  return {
    addBatch: (b) => void store.addBatch(b),
    finish: () => {
      store.optimize();
      store.close();
    },
    query: (q) => {
      const s = SearchStore.open(dir, { readonly: true });
      try {
        return s.search(q, { limit: 10 }).hits.map((h) => h.url);
      } finally {
        s.close();
      }
    },
    indexBytes: () => readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0),
    close: () => store.close(),
  };
}

/** The reader kept open across queries, as the console and the worker keep theirs. */
function ftsReader(dir: string): Engine['query'] {
  const s = SearchStore.open(dir, { readonly: true });
  return (q) => s.search(q, { limit: 10 }).hits.map((h) => h.url);
}

function miniEngine(): Engine {
  const mini = new MiniSearch<SearchPage & { id: number }>({ fields: ['title', 'text'], storeFields: ['url'], idField: 'id', searchOptions: { boost: { title: 4 }, combineWith: 'AND' } });
  let next = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  return {
    addBatch: (b) => mini.addAll(b.map((p) => ({ ...p, id: next++ }))),
    finish: () => {},
    query: (q) => mini.search(q).slice(0, 10).map((h) => h['url'] as string),
    indexBytes: () => {
      globalThis.gc?.();
      return process.memoryUsage().heapUsed - heapBefore;
    },
    close: () => {},
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function timeQueries(query: Engine['query'], qs: readonly string[]): { p50: number; p95: number; max: number } {
  const ms: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    query(q);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), max: ms[ms.length - 1]! };
}

const words = new SearchCorpus(mulberry32(SEED)).words;
console.log(`search bench: ${N} pages, engine ${ENGINE}`);
const dir = values.dir ?? mkdtempSync(path.join(os.tmpdir(), 'archiver-bench-search-'));
const engine = ENGINE === 'minisearch' ? miniEngine() : ftsEngine(dir);
let indexMs = 0;
let indexCpuMs = 0;
let batch: SearchPage[] = [];
let textBytes = 0;
const flush = (): void => {
  const t = performance.now();
  const c = process.cpuUsage();
  engine.addBatch(batch);
  const used = process.cpuUsage(c);
  indexCpuMs += (used.user + used.system) / 1000;
  indexMs += performance.now() - t;
  batch = [];
};
for (const { page } of pages()) {
  textBytes += page.text.length;
  batch.push(page);
  if (batch.length === 500) flush();
}
flush();
{
  const t = performance.now();
  engine.finish();
  indexMs += performance.now() - t;
}
const indexBytes = engine.indexBytes();
console.log(`indexed ${N} pages (${(textBytes / N).toFixed(0)} chars of text each) in ${(indexMs / 1000).toFixed(1)} s: ${(N / (indexMs / 1000)).toFixed(0)} pages/s wall, ${(N / (indexCpuMs / 1000)).toFixed(0)} pages/s of CPU; index ${(indexBytes / N).toFixed(0)} B/page`);

const query = ENGINE === 'minisearch' ? engine.query : ftsReader(dir);
const content = wordQueries(words, QUERIES, 100, Infinity, SEED + 2);
const common = wordQueries(words, 100, 0, 100, SEED + 3);
query(content[0]!);
const contentTimes = timeQueries(query, content);
const commonTimes = timeQueries(query, common);
console.log(`queries (1-3 words, not the 100 most frequent): p50 ${contentTimes.p50.toFixed(2)} ms, p95 ${contentTimes.p95.toFixed(2)} ms, max ${contentTimes.max.toFixed(1)} ms`);
console.log(`queries of the 100 most frequent words only (100): p50 ${commonTimes.p50.toFixed(2)} ms, p95 ${commonTimes.p95.toFixed(2)} ms, max ${commonTimes.max.toFixed(1)} ms`);

const items = knownItems(words);
let firstPlain = 0;
let firstQuoted = 0;
const knownMs: number[] = [];
for (const { page, phrase } of items) {
  const url = `http://host${page % 500}.example/page/${page}`;
  const t = performance.now();
  if (query(phrase)[0] === url) firstPlain++;
  knownMs.push(performance.now() - t);
  if (ENGINE !== 'minisearch' && query(`"${phrase}"`)[0] === url) firstQuoted++;
}
knownMs.sort((a, b) => a - b);
const plainPct = (100 * firstPlain) / items.length;
const quotedPct = ENGINE === 'minisearch' ? null : (100 * firstQuoted) / items.length;
console.log(`known items: ${items.length} phrases of ${PHRASE_WORDS} words on one page only: first ${plainPct.toFixed(1)}% unquoted${quotedPct === null ? '' : `, ${quotedPct.toFixed(1)}% quoted`}; p50 ${percentile(knownMs, 0.5).toFixed(2)} ms, p95 ${percentile(knownMs, 0.95).toFixed(2)} ms`);
const peakRssMb = process.resourceUsage().maxRSS / 1024;
console.log(`peak RSS ${peakRssMb.toFixed(0)} MB`);
engine.close();
if (values.dir === undefined) rmSync(dir, { recursive: true, force: true });
console.log(
  'result ' +
    JSON.stringify({
      engine: ENGINE,
      pages: N,
      pagesPerSec: N / (indexMs / 1000),
      pagesPerCpuSec: N / (indexCpuMs / 1000),
      bytesPerPage: indexBytes / N,
      peakRssMb,
      query: contentTimes,
      commonQuery: commonTimes,
      knownItems: items.length,
      knownFirstPct: plainPct,
      knownQuotedFirstPct: quotedPct,
    }),
);
