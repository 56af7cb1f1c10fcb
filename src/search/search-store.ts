/**
 * The search index on disk: one SQLite database (`search.db` in the index
 * directory, e.g. `<job>/indexes/search/`) holding a table of pages and an
 * FTS5 full-text table over their prepared title, body and CJK bigrams
 * (text-prep.ts). Synchronous (better-sqlite3): it runs on the search
 * worker thread in a crawl (search-index.ts), in-thread elsewhere.
 *
 * Why SQLite FTS5: the index stays on disk and memory stays bounded
 * whatever the job's size (a page cache of a few MiB per connection), BM25
 * with per-column weights, phrases, NOT and snippets are built in, and WAL
 * mode gives atomic, crash-safe commits with readers in other processes
 * (`archiver search` while the crawl writes).
 *
 * Identity: (url, timestamp) is UNIQUE; a page added twice is inserted
 * once (its text is prepared only when it is new). A batch is one
 * transaction: after a kill the index holds whole batches only.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SearchIndexError } from './errors.js';
import { ftsQuery } from './fts-query.js';
import { parseQuery } from './query-parse.js';
import { DEFAULT_LIMIT, MAX_LIMIT, type SearchHit, type SearchOptions, type SearchPage, type SearchResponse } from './search-types.js';
import { ELLIPSIS, hasMark, MARK_CLOSE, MARK_OPEN, markedHtml, needleSnippet } from './snippet.js';
import { preparePage } from './text-prep.js';
import { hostnameOf } from '../url/hosts.js';

export const SEARCH_DB_FILE = 'search.db';
/** Bumped whenever what is stored or how text is prepared changes: an index of another version must be rebuilt. */
export const SEARCH_SCHEMA_VERSION = '1';

/** BM25 weights of the FTS columns: title, body, cjk. */
const WEIGHTS = [4.0, 1.0, 1.0] as const;
/** Tokens of body text in a snippet. */
const SNIPPET_TOKENS = 24;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pages(
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  status INTEGER NOT NULL,
  mime TEXT NOT NULL,
  host TEXT NOT NULL,
  digest TEXT,
  title TEXT NOT NULL,
  UNIQUE(url, timestamp)
);
CREATE INDEX IF NOT EXISTS pages_host ON pages(host);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, cjk, tokenize = 'unicode61 remove_diacritics 2');
`;

export interface SearchStoreOptions {
  /** Open an existing index for reading only (another process may be writing it). */
  readonly?: boolean;
}

/** A page as stored (its text as prepared for the engine), for comparing two indexes. */
export interface StoredPage extends Omit<SearchPage, 'text'> {
  host: string;
  body: string;
}

export class SearchStore {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #insertBatch: (pages: readonly SearchPage[]) => number;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.#insertBatch = db.transaction((pages: readonly SearchPage[]) => {
      let added = 0;
      for (const p of pages) if (this.#insertOne(p)) added++;
      return added;
    });
  }

  /** Open (creating unless readonly) the index in `dir`. */
  static open(dir: string, opts: SearchStoreOptions = {}): SearchStore {
    const file = path.join(dir, SEARCH_DB_FILE);
    let db: Database.Database;
    try {
      if (!opts.readonly) mkdirSync(dir, { recursive: true });
      db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, timeout: 10_000 });
    } catch (err) {
      throw new SearchIndexError('ARCHIVER_SEARCH_OPEN', `${file}: cannot open the search index (${(err as Error).message})`, { cause: err });
    }
    try {
      if (!opts.readonly) {
        // Pages of 2 KB text rows waste half of a 4 KiB page; 16 KiB pages hold seven. Takes effect when the file is created.
        db.pragma('page_size = 16384');
        db.pragma('journal_mode = WAL');
        // In WAL mode a commit survives a killed process without an fsync; only a power cut can lose the last ones.
        db.pragma('synchronous = NORMAL');
        db.exec(SCHEMA);
        const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get() as string | undefined;
        if (version === undefined) db.prepare(`INSERT INTO meta(key, value) VALUES ('schema', ?)`).run(SEARCH_SCHEMA_VERSION);
      }
      db.pragma('cache_size = -16000');
      const version = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get() as string | undefined;
      if (version !== SEARCH_SCHEMA_VERSION) {
        throw new Error(`index version ${version ?? 'none'}, this archiver writes ${SEARCH_SCHEMA_VERSION}: rebuild it with archiver index`);
      }
    } catch (err) {
      db.close();
      throw new SearchIndexError('ARCHIVER_SEARCH_OPEN', `${file}: ${(err as Error).message}`, { cause: err });
    }
    return new SearchStore(db);
  }

  /** Add pages in one transaction; returns how many were new. */
  addBatch(pages: readonly SearchPage[]): number {
    try {
      return this.#insertBatch(pages);
    } catch (err) {
      throw new SearchIndexError('ARCHIVER_SEARCH_WRITE', `cannot add ${pages.length} page(s) to the search index: ${(err as Error).message}`, { cause: err });
    }
  }

  has(url: string, timestamp: string): boolean {
    return this.#stmt('SELECT 1 FROM pages WHERE url = ? AND timestamp = ?').get(url, timestamp) !== undefined;
  }

  /** Pages in the index. */
  count(): number {
    return this.#stmt('SELECT count(*) FROM pages').pluck().get() as number;
  }

  getMeta(key: string): string | null {
    return (this.#stmt('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
  }

  setMeta(key: string, value: string): void {
    this.#stmt('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Merge the full-text index into one segment (after a bulk build: fewer segments to read per query). */
  optimize(): void {
    this.#db.exec(`INSERT INTO fts(fts) VALUES ('optimize')`);
  }

  search(query: string, opts: SearchOptions = {}): SearchResponse {
    const started = performance.now();
    const limit = clampInt(opts.limit, DEFAULT_LIMIT, 0, MAX_LIMIT);
    const offset = clampInt(opts.offset, 0, 0, Number.MAX_SAFE_INTEGER);
    const q = ftsQuery(parseQuery(query));
    if (q.match === null) return { total: 0, tookMs: elapsed(started), hits: [] };
    const f = filters(opts);
    const total = this.#count(q.match, f);
    let ranked: Ranked[];
    if (q.boost === null) {
      ranked = this.#rank(q.match, f, limit, offset);
    } else {
      // Pages holding the words as one phrase first, then the others; each part in BM25 order.
      const first = `(${q.match}) AND (${q.boost})`;
      ranked = this.#rank(first, f, limit, offset);
      if (ranked.length < limit) {
        // Fewer than asked from the first part: the rest come from the second, past what the first holds.
        const firstCount = ranked.length > 0 || offset === 0 ? offset + ranked.length : this.#count(first, f);
        ranked.push(...this.#rank(`(${q.match}) NOT (${q.boost})`, f, limit - ranked.length, Math.max(0, offset - firstCount)));
      }
    }
    const hits: SearchHit[] = [];
    for (const { id, r } of ranked) {
      const page = this.#stmt('SELECT url, timestamp, status, mime, title FROM pages WHERE id = ?').get(id) as Pick<SearchHit, 'url' | 'timestamp' | 'status' | 'mime' | 'title'>;
      hits.push({ ...page, snippet: this.#snippet(id, q.match, q.needles), score: scoreOf(r) });
    }
    return { total, tookMs: elapsed(started), hits };
  }

  /** Every page, in (url, timestamp) order, for comparing indexes. */
  *pages(): Generator<StoredPage, void, undefined> {
    yield* this.#db
      .prepare('SELECT p.url, p.timestamp, p.status, p.mime, p.host, p.digest, p.title, f.body FROM pages p JOIN fts f ON f.rowid = p.id ORDER BY p.url, p.timestamp')
      .iterate() as Iterable<StoredPage>;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  #rank(match: string, f: Filters, limit: number, offset: number): Ranked[] {
    if (limit === 0) return [];
    const sql = `SELECT fts.rowid AS id, bm25(fts, ${WEIGHTS.join(', ')}) AS r FROM fts${f.join} WHERE fts MATCH ?${f.where} ORDER BY r LIMIT ? OFFSET ?`;
    return this.#stmt(sql).all(match, ...f.params, limit, offset) as Ranked[];
  }

  #count(match: string, f: Filters): number {
    return this.#stmt(`SELECT count(*) FROM fts${f.join} WHERE fts MATCH ?${f.where}`).pluck().get(match, ...f.params) as number;
  }

  #insertOne(p: SearchPage): boolean {
    if (this.has(p.url, p.timestamp)) return false;
    const title = p.title ?? '';
    const id = this.#stmt('INSERT INTO pages(url, timestamp, status, mime, host, digest, title) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(p.url, p.timestamp, p.status, p.mime, hostnameOf(p.url) ?? '', p.digest, title).lastInsertRowid;
    const prepared = preparePage(title, p.text ?? '');
    this.#stmt('INSERT INTO fts(rowid, title, body, cjk) VALUES (?, ?, ?, ?)').run(id, prepared.title, prepared.body, prepared.cjk);
    return true;
  }

  #snippet(id: number, match: string, needles: readonly string[]): string {
    // The rowid bound as an integer: FTS5 disregards `rowid = ?` beside MATCH when given a REAL (a JS number).
    const raw = this.#stmt(`SELECT snippet(fts, 1, '${MARK_OPEN}', '${MARK_CLOSE}', '${ELLIPSIS}', ${SNIPPET_TOKENS}) FROM fts WHERE fts MATCH ? AND rowid = ?`).pluck().get(match, BigInt(id)) as string | undefined;
    if (raw !== undefined && hasMark(raw)) return markedHtml(raw);
    // Matched in the title or the CJK bigrams only: cut the body around a query word, if it holds one.
    const body = this.#stmt('SELECT body FROM fts WHERE rowid = ?').pluck().get(BigInt(id)) as string | undefined;
    return (body !== undefined ? needleSnippet(body, needles) : null) ?? markedHtml(raw ?? '');
  }

  #stmt(sql: string): Database.Statement {
    let s = this.#statements.get(sql);
    if (s === undefined) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }
}

interface Ranked {
  id: number;
  r: number;
}

/** SQL of the host, mime and status filters: a join with the pages table when there is one. */
interface Filters {
  join: string;
  where: string;
  params: (string | number)[];
}

function filters(opts: SearchOptions): Filters {
  const conds: string[] = [];
  const params: (string | number)[] = [];
  if (opts.host !== undefined && opts.host !== '') {
    conds.push('p.host = ?');
    params.push(opts.host.toLowerCase().replace(/\.$/, ''));
  }
  if (opts.mime !== undefined && opts.mime !== '') {
    conds.push('p.mime = ?');
    params.push(opts.mime.toLowerCase());
  }
  if (opts.status !== undefined) {
    conds.push('p.status = ?');
    params.push(opts.status);
  }
  if (conds.length === 0) return { join: '', where: '', params };
  return { join: ' JOIN pages p ON p.id = fts.rowid', where: ` AND ${conds.join(' AND ')}`, params };
}

function clampInt(v: number | undefined, fallback: number, min: number, max: number): number {
  if (v === undefined || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(v)));
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/**
 * FTS5's bm25() (negated: higher is better) to 4 significant digits. Not to 4
 * decimals: a word on most of the pages has an idf FTS5 clamps to 1e-6, and
 * every hit of `river` in the demo (51 of 76 pages) then read `score 0`
 * though the scores still ordered them (issue 28).
 */
export function scoreOf(bm25: number): number {
  return bm25 === 0 ? 0 : Number((-bm25).toPrecision(4));
}
